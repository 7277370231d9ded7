// The pieces the exercise reports lay their text out with: an exercise's own prose wrapped as a
// lesson's is, a hanging paragraph, a bar of done out of total, a listing's first line, and the
// right answer as check and solution show it. Private to src/report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "qkv/exercise_view.hpp"
#include "qkv/render.hpp"
#include "qkv/render_json.hpp"

namespace qkv::detail {

// An exercise's own prose (question, hint, solution) as lesson prose is laid out: the author's
// lines joined and wrapped to the screen, so a quote that grew a line does not run off it;
// control characters escaped. Ends with a line end.
std::string prose(const std::string& text, const render_options& o);
// One paragraph wrapped to the screen after `lead`, its later lines hanging at `indent` ("  A. …").
std::string hanging(const std::string& text, const render_options& o, std::string_view lead, std::string_view indent);
// "███░░░░░░░": done of total in ten cells, the done ones green on a colour terminal.
std::string bar(std::size_t done, std::size_t total, bool color = false);
// The first line of a question or an answer, cut to fit a listing, its control characters escaped.
std::string first_line(const std::string& text, std::size_t columns);
// The right answer as check and solution show it: "S[2, 3] = 1.5669", a shape, the matrix drawn as
// the lesson draws it, or the right choice under this student's letter (and whose letter it is).
std::string expected_text(const expected_answer& x, const render_options& o);
// The right answer as JSON: a number or a matrix as a trace writes a value, a shape as {"name",
// "shape"}, a choice as {"letter", "file_letter", "text"}.
trace_json expected_json(const expected_answer& x);

// The fields an exercise's JSON and a check's verdict open with, in this order: "id", "lesson",
// "kind", "lang", "scenario", "student" (null without one).
template <class View>
trace_json exercise_head_json(const View& v) {
    trace_json j;
    j["id"] = v.id;
    j["lesson"] = v.lesson;
    j["kind"] = kind_name(v.kind);
    j["lang"] = lang_code(v.language);
    if (v.scenario.empty()) j["scenario"] = nullptr;  // the lesson made its own data, as its trace says
    else j["scenario"] = v.scenario;
    j["student"] = v.student.empty() ? trace_json() : trace_json(v.student);
    return j;
}

}  // namespace qkv::detail
