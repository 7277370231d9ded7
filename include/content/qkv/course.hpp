// The course: the lessons in order, each with its exercises, and where one learner stands in it
// (their progress): what they have done and what comes next. `qkv next`, `qkv progress`, a bare
// `qkv` and the end of every lesson read it. Plain values: the report puts them into words.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "qkv/exercise.hpp"
#include "qkv/i18n.hpp"
#include "qkv/progress.hpp"
#include "qkv/trace.hpp"

namespace qkv {

struct course_lesson {
    int number = 0;
    std::string title;
    std::vector<std::string> exercises;  // ids, in order
};

// Every lesson of lessons_dir(), by number, with its exercises (none when the exercise files
// cannot be read: the lessons still run).
std::vector<course_lesson> load_course(lang l);
// The same with the exercises of the lessons in `ran` alone, each read from its own file
// (exercises/NN.toml, with the mistake book): all add_what_next reads, for a tenth of the files.
// A lesson whose exercise file cannot be read has none listed, as above.
std::vector<course_lesson> load_course(lang l, const std::vector<trace>& ran);

// Fill each trace's what_next from the course.
void add_what_next(std::vector<trace>& traces, const std::vector<course_lesson>& course);

// Mark the lessons shown to their last stage as read.
void mark_read(progress& p, const std::vector<trace>& traces);

// The next thing for this learner: the first lesson not yet read, or an exercise of a read
// lesson not yet right; nothing when all is done.
struct next_step {
    enum class kind { lesson, exercise, done } k = kind::done;
    int lesson = 0;
    std::string title;     // the lesson's
    std::string exercise;  // its id, for kind::exercise
};
next_step find_next(const std::vector<course_lesson>& course, const progress& p);

// Where a learner stands: what they have done of the course, and the next step.
struct course_position {
    std::size_t lessons = 0, read = 0;     // lessons in the course, and read
    std::size_t exercises = 0, right = 0;  // exercises in the course, and right
    next_step next;
};
course_position position_in(const std::vector<course_lesson>& course, const progress& p);

// `qkv progress`: the learner's record of every exercise, and the right ones per lesson.
struct progress_summary {
    struct lesson_count {
        int lesson = 0;
        std::size_t right = 0, total = 0;
    };
    struct exercise_record {
        std::string id;
        exercise_progress mine;
    };
    std::string path;                      // the progress file
    std::set<int> lessons_read;
    std::vector<exercise_record> exercises;  // every exercise, in the set's order
    std::vector<lesson_count> lessons;       // by number
    std::size_t right = 0, total = 0, hints = 0;
};
progress_summary summarize(const exercise_set& set, const progress& p, const std::string& path);

}  // namespace qkv
