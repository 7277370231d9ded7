// The JSON trace of design.md, for other tools: every shown value in full precision.
#pragma once

#include <string>

#include "qkv/trace.hpp"

namespace qkv {

// {"lesson", "title", "lang", "scenario", "stages": [{"index", "id", "title", "formula", "text",
//   "values": [{"name", "role", "shape", "row_labels", "col_labels", "data"}]}]}
// Non-finite numbers (the -inf of a mask, an overflow) are the strings "-inf", "inf", "nan".
// `indent` < 0 gives one line.
std::string render_json(const trace& t, int indent = 2);

}  // namespace qkv
