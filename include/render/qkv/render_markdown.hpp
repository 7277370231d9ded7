// A Markdown handout of a trace: reads well on any Git host.
#pragma once

#include <string>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Tables for matrices, formulas in code spans, weights with their row sums.
std::string render_markdown(const trace& t, const render_options& o);

}  // namespace qkv
