// What the processor can run, read by the tests themselves from Linux's /proc/cpuinfo: a yardstick
// for qkv's own choice of kernel build (cpu_features.cpp asks CPUID), and a line in the test log
// for every build a test could not check on this machine.
#pragma once

#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace qkv::test {

// The words of the first "flags" line of /proc/cpuinfo; empty when there is none (no Linux, or
// not x86).
inline std::set<std::string> cpu_flags() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0 && line.find(':') != std::string::npos) {
            std::istringstream words(line.substr(line.find(':') + 1));
            return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
        }
    return {};
}

// The kernel builds a processor with these flags runs, widest first: "avx512" needs avx512f,
// avx512vl, avx512bw and avx512dq (the four its code is compiled for), "avx2" needs avx2 and fma,
// and "plain" runs anywhere.
inline std::vector<std::string> builds_for(const std::set<std::string>& flags) {
    auto has = [&](std::initializer_list<const char*> all) {
        for (const char* f : all)
            if (!flags.count(f)) return false;
        return true;
    };
    std::vector<std::string> out;
    if (has({"avx512f", "avx512vl", "avx512bw", "avx512dq"})) out.push_back("avx512");
    if (has({"avx2", "fma"})) out.push_back("avx2");
    out.push_back("plain");
    return out;
}

// One line in the test log (standard output, which the test runner keeps, unlike Boost's
// messages at the default log level): which builds `what` checked and which it skipped.
inline void report_builds(const std::string& what, const std::vector<std::string>& checked,
                          const std::vector<std::string>& skipped) {
    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& b : v) s += (s.empty() ? "" : ", ") + b;
        return s.empty() ? std::string("none") : s;
    };
    std::cout << what << ": checked the " << list(checked) << " build(s); skipped, as this processor cannot run them: "
              << list(skipped) << std::endl;
}

}  // namespace qkv::test
