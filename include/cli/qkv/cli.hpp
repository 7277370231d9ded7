// The command line: one table of commands {name, usage, summary, function}, and the pieces every
// command shares (output options, usage errors, writing to a closed pipe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "qkv/error.hpp"
#include "qkv/render.hpp"
#include "qkv/render_format.hpp"

namespace qkv::cli {

using args = std::vector<std::string>;

struct command {
    std::string_view name;
    std::string_view usage;    // "N|all [options]"
    std::string_view summary;  // one line for `qkv --help`
    int (*run)(const args& a);
};

// Every command, in the order `qkv --help` lists them.
const std::vector<command>& commands();

// The whole program: dispatch, and the only place that prints an error and picks an exit status.
int main(int argc, char** argv);

// --- shared by the commands ---------------------------------------------------------------------

// A wrong option or argument: printed as "qkv CMD: message" with exit status 2.
class usage_error : public input_error {
public:
    using input_error::input_error;
};

// Standard output went away (`qkv lesson 1 | head`): main ends quietly.
struct broken_pipe {};

// Parse args against desc (and positionals); `--help` prints usage + desc and returns false.
bool parse(std::string_view cmd, const args& a, const boost::program_options::options_description& desc,
           const boost::program_options::positional_options_description& pos,
           boost::program_options::variables_map& vm);

// --lang, --color, --format, --precision, --full as typed: added to desc, and read back into
// render options and a format. A command without --format writes text.
struct output_choice {
    std::string lang, color = "auto", format = "text";
    int precision = 4;
    bool full = false;
};
void add_output_options(boost::program_options::options_description& desc, output_choice& c);
// What the choices come to: how to render, and in which format (the one place --format is read).
struct output {
    render_options options;
    format form = format::text;
};
// The formats a command writes: the four of a lesson, or text and JSON.
enum class formats { all, text_or_json };
// Checks the choices (usage_error on a bad one, a format the command does not write too).
output resolve_output(const output_choice& c, formats allowed = formats::all);
// --format read on its own (a command with options of its own): text or json, or a usage_error.
format text_or_json(std::string_view name);

// Write to standard output; throws broken_pipe when the reader has gone.
void write_out(std::string_view text);

// Write to standard error (an error, a warning, a progress line). Never throws: when standard
// error itself cannot be written (2>/dev/full, 2>&-) there is nobody to tell, and the command goes
// on or ends with the status it would have had.
void tell(std::string_view text) noexcept;

// The commands.
int cmd_list(const args& a);
int cmd_lesson(const args& a);
int cmd_run(const args& a);       // commands_lesson.cpp: a lesson file from anywhere
int cmd_validate(const args& a);  // commands_author.cpp: validate, scenario, formulas
int cmd_scenario(const args& a);
int cmd_formulas(const args& a);
int cmd_exercises(const args& a);
int cmd_exercise(const args& a);
int cmd_check(const args& a);
int cmd_hint(const args& a);
int cmd_solution(const args& a);
int cmd_grade(const args& a);
int cmd_progress(const args& a);
int cmd_next(const args& a);
int cmd_bench(const args& a);

}  // namespace qkv::cli
