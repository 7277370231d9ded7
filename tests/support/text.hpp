// Reading what a program or a renderer wrote: how often a piece occurs in it, and the standard
// output of a shell command.
#pragma once

#include <cstdio>
#include <string>

namespace qkv::test {

// How many times `part` occurs in `text`, overlaps counted.
inline std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// Standard output of a shell command ("" when it cannot start).
inline std::string shell(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    char buf[65536];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
    return out;
}

}  // namespace qkv::test
