// One number as prose and tables write it: fixed decimals, scientific, a percentage or a whole
// number. A number printed as zero carries no sign: "-0.0000" says nothing true and only makes a
// learner look for a mistake. Quotes (quote_format.hpp) and the renderers' cells both use it.
#pragma once

#include <string>

namespace qkv {

enum class number_style {
    fixed,       // "0.5347" with `digits` decimals
    scientific,  // "1.2e-04" with `digits` decimals
    percent,     // 100·x with `digits` decimals and "%": "53.5%"
    whole,       // rounded to the nearest whole number: "3"
};

// x must be finite: what NaN and infinity read as is each caller's own word ("NaN", "∞", "inf").
std::string number_text(double x, number_style s, int digits = 0);

}  // namespace qkv
