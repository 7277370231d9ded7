// A Markdown handout of a trace: reads well on any Git host.
#pragma once

#include <string>
#include <string_view>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Tables for matrices, formulas in code spans, weights with their row sums.
std::string render_markdown(const trace& t, const render_options& o);

// `body` (ending in a line end) as a fenced code block whose fence is longer than any run of
// backticks in it: a token "```" cannot close the block and let what follows become live Markdown.
std::string markdown_code(std::string_view body, std::string_view info = "");

}  // namespace qkv
