// A Markdown handout of a trace: reads well on any Git host.
#pragma once

#include <string>
#include <string_view>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Tables for matrices, formulas in code spans, weights with their row sums.
std::string render_markdown(const trace& t, const render_options& o);

// Text from a file or an argument as one inline piece of Markdown (a table cell, a heading): no
// control character, no tag (& < > as entities), and every Markdown mark escaped, so that a '|'
// cannot add a table column, nor "[x](javascript:…)" become a link or "*a*" emphasis.
std::string markdown_cell(std::string_view raw);

// `body` (ending in a line end) as a fenced code block whose fence is longer than any run of
// backticks in it: a token "```" cannot close the block and let what follows become live Markdown.
std::string markdown_code(std::string_view body, std::string_view info = "");

}  // namespace qkv
