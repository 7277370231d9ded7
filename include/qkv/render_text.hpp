// The terminal rendering of a trace: tables aligned at the decimal point, heatmaps, CJK labels.
#pragma once

#include <cstddef>
#include <string>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// One stage: heading "3/7  title", formula, explanation, each value as a table (name, shape,
// axes; labels; numbers aligned at the decimal point; elided numpy-style when too wide), weights
// with a heatmap and row sums, and the sub-steps built-ins recorded.
std::string render_text_stage(const trace& t, std::size_t stage, const render_options& o);

// The whole lesson: a lesson heading, then every stage.
std::string render_text(const trace& t, const render_options& o);

}  // namespace qkv
