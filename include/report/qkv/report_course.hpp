// Where a learner stands, in words (course.hpp's values): what they have done and what comes next
// (`qkv next`, a bare `qkv`), and their progress on the exercises (`qkv progress`, also JSON).
#pragma once

#include <cstddef>
#include <string>

#include "qkv/course.hpp"
#include "qkv/render.hpp"
#include "qkv/render_format.hpp"

namespace qkv {

// "Next: lesson 3 · Scores (qkv lesson 3)"; for a returning learner it first says what they have
// done ("2 of 16 lessons read, 5 of 40 exercises right"). Wrapped to `width` columns, no line end.
std::string position_text(const course_position& at, lang l, std::size_t width);

// A bar per lesson, the totals and the hints used, then where the learner stands.
std::string progress_text(const progress_summary& s, const course_position& at, const render_options& o);
// {"path", "lessons_read", "exercises": [{"id", "status", "attempts", "hints", "solution_seen"}],
// "correct", "total"}
std::string progress_json(const progress_summary& s);
// `qkv progress --reset` done: the sentence, or {"reset": true, "path"} for a script.
std::string progress_reset(const std::string& path, format form, lang l);

}  // namespace qkv
