// What the processor can run, read by the tests themselves from Linux's /proc/cpuinfo: a yardstick
// for qkv's own choice of kernel build (kernel_builds.cpp asks CPUID through the compiler), and a
// line in the test log for every build a test could not check on this machine.
#pragma once

#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/kernel_builds.hpp"

namespace qkv::test {

// The words of the first "flags" line of /proc/cpuinfo; empty when there is none (no Linux), and
// on any processor but x86-64, whose flags are the words the kernel builds state their needs in
// (an arm64 kernel lists "Features" instead, and qemu-user may show the host's x86 flags).
inline std::set<std::string> cpu_flags() {
#if defined(__x86_64__)
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0 && line.find(':') != std::string::npos) {
            std::istringstream words(line.substr(line.find(':') + 1));
            return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
        }
#endif
    return {};
}

// Whether the flags have every word of `needs` (a build's cpu_flags: space-separated, "" for none).
inline bool has_all(const std::set<std::string>& flags, std::string_view needs) {
    std::istringstream words{std::string(needs)};
    for (std::string w; words >> w;)
        if (!flags.count(w)) return false;
    return true;
}

// The kernel builds a processor with these flags runs, as the flags tell it (not as qkv's own
// CPUID test does): those of the table whose stated needs the flags all have, widest first.
inline std::vector<std::string> builds_for(const std::set<std::string>& flags) {
    std::vector<std::string> out;
    for (const attention::kernel_build& b : attention::kernel_builds())
        if (has_all(flags, b.cpu_flags)) out.emplace_back(b.name);
    return out;
}

// One line in the test log (standard output, which the test runner keeps, unlike Boost's
// messages at the default log level): which builds `what` checked and which it skipped. Off
// x86-64 it says too that the x86 builds were not compiled, so a run there is not taken for one
// that checked them.
inline void report_builds(const std::string& what, const std::vector<std::string>& checked,
                          const std::vector<std::string>& skipped) {
    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& b : v) s += (s.empty() ? "" : ", ") + b;
        return s.empty() ? std::string("none") : s;
    };
    std::cout << what << ": checked the " << list(checked) << " build(s); skipped, as this processor cannot run them: "
              << list(skipped)
#if !defined(__x86_64__)
              << "; the x86-64 builds (AVX-512, AVX2) are not compiled for this processor, and not checked"
#endif
              << std::endl;
}

}  // namespace qkv::test
