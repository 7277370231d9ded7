// What the exercise commands (commands_exercise, commands_check, commands_grade,
// commands_course) share: their options, finding an exercise, the learner's progress, the
// listing pieces (bars, first lines) and the values an exercise shows. Private to src/cli.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "qkv/cli.hpp"
#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "qkv/progress.hpp"
#include "qkv/value.hpp"

namespace qkv::cli {

using ojson = nlohmann::ordered_json;

// --lang, --color, --precision, --full, and --format text|json when the command has a JSON form.
void add_options(boost::program_options::options_description& desc, output_choice& c, bool with_json);
// What those choices come to; --format is text or json (anything else a usage_error).
output resolve(const output_choice& c, const console& io);

// The exercise with this id, or a usage_error (in the language) naming the nearest one.
const exercise& need_exercise(const exercise_set& set, const std::string& id, lang l = lang::en);

// --data FILE and --student NAME: compute on another scenario, or on a student's own numbers.
void add_student_options(boost::program_options::options_description& desc, std::string& data, std::string& student);
// The student's name: --student, else QKV_STUDENT, else none (the lessons' own numbers).
std::string student_name(const std::string& given);

// The right answer as check and solution show it: "S[2, 3] = 1.5669", or the matrix drawn.
std::string expected_text(const exercise& e, const exercise_run& r, const render_options& o);

// The learner's progress (a warning on the console when an unreadable file was set aside).
progress open_progress(const console& io, const std::string& path);
// Change the progress under its lock (update_progress), with the same warning.
progress change_progress(const console& io, const std::string& path, const std::function<void(progress&)>& change);

// Every lesson's title in the language, by number.
std::map<int, std::string> lesson_titles(lang l);
// "███░░░░░░░": done of total in ten cells, the done ones green on a colour terminal.
std::string bar(std::size_t done, std::size_t total, bool color = false);
// The first line of a question or an answer, cut to fit a listing, its control characters escaped.
std::string first_line(const std::string& text, std::size_t columns);
// An exercise's own text (question, choice, hint, solution, an explanation) as the terminal
// shows it: control characters escaped, paragraphs wrapped to `columns` as lesson prose is.
std::string shown_text(const std::string& text, std::size_t columns);
// The values an exercise shows, drawn as a lesson stage draws them, weights with their row sums.
std::string values_text(const std::vector<std::string>& names, const workspace& ws, const render_options& o);

}  // namespace qkv::cli
