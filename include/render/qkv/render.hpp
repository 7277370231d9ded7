// What every renderer is told. Renderers read a trace and return text (JSON: a JSON value, or its
// text); none computes a number (row sums and the like are in the trace already).
#pragma once

#include <cstddef>

#include "qkv/i18n.hpp"

namespace qkv {

struct render_options {
    lang language = lang::en;
    bool color = false;      // terminal colours (text only)
    int precision = 4;       // decimals shown
    bool full = false;       // never elide rows or columns
    std::size_t width = 100; // the screen's columns, for eliding wide matrices (text)
};

}  // namespace qkv
