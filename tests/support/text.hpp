// Reading what a program or a renderer wrote: its lines and how many, the pieces it must hold, how
// often a piece occurs in it, and the standard output of a shell command.
#pragma once

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace qkv::test {

// The lines of `text`, without their '\n'.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// How many lines `s` ends ('\n' counted): a one-line message is 1.
inline std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Whether `piece` occurs in `text`.
inline bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

// One check a piece: each of `pieces` occurs in `text` (a failure names the piece it lacks).
inline void check_has_each(const std::string& text, std::initializer_list<std::string> pieces) {
    for (const std::string& piece : pieces) BOOST_TEST(text.find(piece) != std::string::npos, "lacks: " << piece);
}

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
