// The course: the lessons in order, each with its exercises, and where one learner stands in it
// (their progress). `qkv next`, a bare `qkv`, and the end of every lesson read it. Private to src/cli.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "qkv/cli.hpp"
#include "qkv/i18n.hpp"
#include "qkv/progress.hpp"
#include "qkv/trace.hpp"

namespace qkv::cli {

struct course_lesson {
    int number = 0;
    std::string title;
    std::vector<std::string> exercises;  // ids, in order
};

// Every lesson of lessons_dir(), by number, with its exercises (none when the exercise files
// cannot be read: the lessons still run).
std::vector<course_lesson> load_course(lang l);

// Fill each trace's what_next from the course.
void add_what_next(std::vector<trace>& traces, const std::vector<course_lesson>& course);

// Mark the lessons read in the learner's progress. A progress file that cannot be written is
// worth a warning, not a failed lesson.
void record_lessons_read(const console& io, const std::vector<trace>& traces);

// The next thing for this learner: the first lesson not yet read, or an exercise of a read
// lesson not yet right; nothing when all is done.
struct next_step {
    enum class kind { lesson, exercise, done } k = kind::done;
    int lesson = 0;
    std::string title;     // the lesson's
    std::string exercise;  // its id, for kind::exercise
};
next_step find_next(const std::vector<course_lesson>& course, const progress& p);

// "Next: lesson 3 · Scores (qkv lesson 3)"; for a returning learner it first says what they have
// done ("2 of 16 lessons read, 5 of 40 exercises right"). Wrapped to `width` columns.
std::string where_you_are(const std::vector<course_lesson>& course, const progress& p, const next_step& n, lang l,
                          std::size_t width);

}  // namespace qkv::cli
