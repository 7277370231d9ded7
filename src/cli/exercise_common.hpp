// What the exercise commands (commands_exercise, commands_check, commands_grade, commands_course)
// share: their options, finding an exercise, and the learner's progress file, its warnings told
// on the console. Private to src/cli.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "qkv/cli.hpp"
#include "qkv/exercise.hpp"
#include "qkv/progress.hpp"
#include "qkv/trace.hpp"

namespace qkv::cli {

// --lang, --color, --precision, --full, and --format text|json when the command has a JSON form.
void add_options(boost::program_options::options_description& desc, output_choice& c, bool with_json, lang l);
// What those choices come to; --format is text or json (anything else a usage_error).
output resolve(const output_choice& c, const console& io);

// The exercise with this id, or a usage_error (in the language) naming the nearest one.
const exercise& need_exercise(const exercise_set& set, const std::string& id, lang l = lang::en);

// --data FILE and --student NAME: compute on another scenario, or on a student's own numbers.
void add_student_options(boost::program_options::options_description& desc, std::string& data, std::string& student, lang l);
// The student's name: --student, else QKV_STUDENT, else none (the lessons' own numbers).
std::string student_name(const std::string& given);

// The learner's progress (a warning on the console when an unreadable file was set aside).
progress open_progress(const console& io, const std::string& path);
// Change the progress under its lock (update_progress), with the same warning.
progress change_progress(const console& io, const std::string& path, const std::function<void(progress&)>& change);
// Mark the lessons shown to the end as read. A progress file that cannot be written is worth a
// warning, not a failed lesson.
void record_lessons_read(const console& io, const std::vector<trace>& traces);

}  // namespace qkv::cli
