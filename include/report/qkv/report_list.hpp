// What `qkv list` shows: the lessons' numbers, names, titles and stage counts, as a text table (a
// title cut to the width unless full), a markdown table with the same columns, or JSON.
#pragma once

#include <string>
#include <vector>

#include "qkv/lesson.hpp"
#include "qkv/render.hpp"
#include "qkv/render_format.hpp"

namespace qkv {

// {"lang", "lessons": [{"number", "title", "stages", "name"}]} for format::json; a table for text
// and markdown.
std::string lesson_list(const std::vector<lesson>& lessons, format form, const render_options& o);

}  // namespace qkv
