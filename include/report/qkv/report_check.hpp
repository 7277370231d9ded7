// A checked answer in words and JSON (check_verdict.hpp's value): right, with the right answer
// and the worked solution; or not yet, with what is wrong, the mistake it matches, and the way to
// a hint.
#pragma once

#include <string>

#include "qkv/check_verdict.hpp"
#include "qkv/render.hpp"

namespace qkv {

std::string verdict_text(const check_verdict& v, const render_options& o);

// {"id", "lesson", "kind", "lang", "scenario", "student", "answer", "correct", "mistakes": [{"id",
// "text"}], "places", "explanation", "expected", "solution"}. As the text, a wrong answer does not
// give the right one away: "expected" and "solution" are null then (`qkv solution` shows them, and
// records that it did). "expected": a number or a matrix as a lesson's trace writes a value
// ({"name", "shape", "row_labels", "col_labels", "data"}), a shape as {"name", "shape"},
// a choice as {"letter", "file_letter", "text"} (the letter this student sees, and the file's).
std::string verdict_json(const check_verdict& v);

}  // namespace qkv
