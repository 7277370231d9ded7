// The JSON trace of design.md, for other tools: every shown value in full precision.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkv/trace.hpp"

namespace qkv {

// float as the number type: nlohmann then prints 0.1f as 0.1 (shortest round-trip for float),
// not the 0.10000000149011612 of its double; ordered_map keeps the documented key order.
using trace_json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t,
                                        std::uint64_t, float>;

// {"lesson", "title", "lang", "scenario", "stages": [{"index", "id", "title", "formula", "text",
//   "values": [{"name", "role", "shape", "row_labels", "col_labels", "data"}]}]}
// Non-finite numbers (the -inf of a mask, an overflow) are the strings "-inf", "inf", "nan".
trace_json json_of(const trace& t);

// json_of(t) as text; `indent` < 0 gives one line. A stray byte that is not UTF-8 in a lesson's
// text is replaced, so that it does not cost the user the whole trace.
std::string render_json(const trace& t, int indent = 2);
std::string render_json(const trace_json& j, int indent = 2);

}  // namespace qkv
