// The exercises in words (exercise_view.hpp's values): the list with each one's status, one
// exercise with its values drawn as a lesson draws them, the hints so far and the worked solution;
// the list and one exercise also as JSON, for a teacher's tools and the browser.
#pragma once

#include <string>

#include "qkv/exercise_view.hpp"
#include "qkv/progress.hpp"
#include "qkv/render.hpp"

namespace qkv {

// Lesson by lesson: a heading with a bar of the exercises right, then a line per exercise (id,
// kind, status, the question's first line), and how to go on.
std::string exercises_text(const exercise_listing& x, const render_options& o);
// {"exercises": [{"id", "lesson", "kind", "question", "status", "solution_seen"}]}
std::string exercises_json(const exercise_listing& x);

// The heading, the question, the choices, the values, how to answer, and this learner's hints
// seen and status (`mine`).
std::string exercise_text(const exercise_view& v, const exercise_progress& mine, const render_options& o);
// {"id", "lesson", "kind", "lang", "scenario", "student", "question", "choices": [{"letter",
// "text"}], "values": [as a lesson's trace writes them], "tolerance"}: student and tolerance null
// when there is none; values in full precision.
std::string exercise_json(const exercise_view& v);

// {"id", "total", "shown": [every hint so far and the next], "none_new"}
std::string hints_json(const hints_view& h);
// {"id", "question", "expected" (as a verdict's), "solution"}
std::string solution_json(const worked_solution& s);
// Every hint so far and the next; after the last, where the worked solution is.
std::string hints_text(const hints_view& h, const render_options& o);
// The question again, the right answer, and the worked solution.
std::string solution_text(const worked_solution& s, const render_options& o);

}  // namespace qkv
