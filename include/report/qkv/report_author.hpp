// What the authors' commands show: `qkv validate`'s findings, file by file, and `qkv formulas`, the
// formula language and every built-in with its help.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "qkv/i18n.hpp"
#include "qkv/validate.hpp"

namespace qkv {

// "FILE: ok (what was checked)" for a clean file, else each problem's "file:line: …" line; each
// warning after; then "N problems in M of K files" when there are any, in `l`.
std::string validation_text(const std::vector<std::pair<std::string, validation>>& checked, lang l = lang::en);

// The formula language in a few lines, then each built-in's signature and help, the help wrapped
// to `width` columns under its first line (under the name on a narrow screen).
std::string formulas_text(std::size_t width);

}  // namespace qkv
