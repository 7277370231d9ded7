// Lesson prose laid out for a screen of a given width: authors break lines near 95 columns, which
// at 80 columns would cut words ("nega / tive"), so paragraphs are joined and wrapped again.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

// One paragraph (no line ends) as lines of at most `width` display columns, broken at spaces in
// latin text and between CJK characters (never before a closing mark such as "，" or "。"). A
// word wider than the line is cut. A token of the sentence (token_span.hpp) is shown in quotes and
// kept whole with what is written against it ("“苹果”'s"). Lines after the first start with `indent`.
std::vector<std::string> wrap_paragraph(std::string_view text, std::size_t width, std::string_view indent = {});

// A text as the author wrote it, wrapped to `width`: a blank line separates paragraphs (and stays
// one), a paragraph's lines are joined (no space between two CJK characters), a list item
// ("1. ", "- ", "• ") starts a line and its continuation lines indented under it join it, and any
// other line starting with a space (a worked example, code) keeps its line break and indent.
std::vector<std::string> reflow(std::string_view text, std::size_t width);

// reflow's lines, each ending in "\n": a paragraph of a report (bench's explanation).
std::string reflowed(std::string_view text, std::size_t width);

// Each line of `text` wrapped on its own, its continuation lines after `indent`, each ending in
// "\n": facts one to a line, such as bench's header.
std::string wrap_each_line(std::string_view text, std::size_t width, std::string_view indent);

}  // namespace qkv
