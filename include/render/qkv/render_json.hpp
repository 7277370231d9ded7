// The JSON trace, for other tools (numpy, PyTorch): every value a lesson shows, in full precision.
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

// {"lesson", "title", "lang", "scenario", "causal", "stages": [{"index", "id", "title", "formula", "text",
//   "values": [{"name", "role", "shape", "row_labels", "col_labels", "data", "row_sums"?, "marked"?}],
//   "steps"?: [{"label", "values": [{"name", "role", "shape", "row_labels", "col_labels", "data"}]}]}]}
// "data" is a number, [rows][cols] or [heads][rows][cols]; "row_sums" (attention weights only) is
// [n], or [h][n] for a stack; "steps" (only when a built-in recorded sub-steps, e.g. the tiles of
// tiled attention) lists them in order. Non-finite numbers (the -inf of a mask, an overflow) are
// the strings "-inf", "inf", "nan".
// Throws input_error, before building anything, when the JSON of t would not fit in the memory
// there is (MemAvailable, and what ulimit -v leaves): a DOM too large cannot even be unwound.
trace_json json_of(const trace& t);

// One shown value as the trace writes it: {"name", "role", "shape", "row_labels", "col_labels",
// "stack_axis"?, "data", "row_sums"?} (a teacher's tool reads an exercise's values like a lesson's).
trace_json json_of(const shown_value& v);

// The numbers json_of(t) would write, and the check json_of makes with them.
std::size_t json_cells(const trace& t);
void check_json_fits(const trace& t);

// json_of(t) as text; `indent` < 0 gives one line. A stray byte that is not UTF-8 in a lesson's
// text is replaced, so that it does not cost the user the whole trace.
std::string render_json(const trace& t, int indent = 2);
std::string render_json(const trace_json& j, int indent = 2);
// Any other JSON a command prints (listings, grades, progress, bench), alike: a byte that is not
// UTF-8 (a file name) is replaced instead of throwing type_error 316 and losing the whole output.
std::string render_json(const nlohmann::ordered_json& j, int indent = 2);

}  // namespace qkv
