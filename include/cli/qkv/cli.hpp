// The command line as a library: `run` takes the arguments, a console and what the commands compute
// with (a program) and gives back the exit status, so a test runs a command in-process; the
// program's main() only hands it the process's standard streams and its ranks. Also the one table
// of commands {name, usage, summary, function, what it uses}, and the pieces every command shares
// (output options, usage errors, writing to a closed pipe).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "qkv/builtins.hpp"
#include "qkv/devices.hpp"
#include "qkv/error.hpp"
#include "qkv/render.hpp"
#include "qkv/render_format.hpp"

namespace qkv::cli {

using args = std::vector<std::string>;

// Where a command's words go: all it prints to `out`; the one error line, warnings and the
// progress line to `err`. The descriptors behind them, when there are any, say whether they are
// a terminal (colour under --color auto, the width, a progress line) and where --step and
// --present draw and read keys; without them (-1) those two draw into `out` and read no keys,
// as at the end of input.
struct console {
    std::ostream& out;
    std::ostream& err;
    int out_fd = -1;
    int err_fd = -1;
    int in_fd = -1;

    // Write to out; throws broken_pipe when the reader has gone.
    void print(std::string_view text) const;
    // Write to err (an error, a warning, a progress line). Never throws: when err itself cannot be
    // written (2>/dev/full, 2>&-) there is nobody to tell, and the command goes on or ends with the
    // status it would have had.
    void tell(std::string_view text) const noexcept;
};

// A group of built-ins a layer above the engine brings to the formula language (add_builtin_group).
struct formula_group {
    std::string_view name;
    std::vector<builtin> (*make)();
};

// What the commands compute with beyond their arguments, composed once by whoever runs them (the
// program's main, a test its own) and put in place by run() only for a command that uses it
// (command::uses), only while it runs: `qkv list` adds no built-in and installs no device.
struct program {
    std::vector<formula_group> formulas;  // for the commands that run lessons: lesson 18's training group
    devices::group* ranks = nullptr;      // lesson 11's devices on real ranks (mpirun); nullptr: this one process
};
// What the program composes on one process: the training group, no ranks.
program standard_program();

// One run of qkv: `argv` without the program's name ({"lesson", "3", "--format", "json"}). Every
// word goes through the console; returns the exit status: 0 done, 1 a check that did not pass,
// 2 a usage or input error (its one line on err), 141 when out went away. Reads the environment
// (QKV_LANG, XDG_STATE_HOME, …) as the program does; what it changes of the process (a terminal's
// mode, a signal's handler while a file is written, the devices installed) it gives back before it
// returns. What the command computes with is `p`'s.
int run(const args& argv, const console& io, const program& p);
// The same with standard_program().
int run(const args& argv, const console& io);
// The same on two streams with no descriptors behind them (a test's strings).
int run(const args& argv, std::ostream& out, std::ostream& err);

// The program: the standard streams made safe to write to (a closed one parked on /dev/null,
// SIGPIPE ignored so that a closed pipe is an error and not a death), then run().
int main(int argc, char** argv);

// What of the program a command computes with (command::uses), flags.
namespace use {
inline constexpr unsigned nothing = 0;
inline constexpr unsigned formulas = 1;  // the formula language with the program's groups (it runs lessons)
inline constexpr unsigned ranks = 2;     // the program's ranks as lesson 11's devices
inline constexpr unsigned lessons = formulas | ranks;
}  // namespace use

struct command {
    std::string_view name;
    std::string_view usage;    // "N|all [options]"
    std::string_view summary;  // one line for `qkv --help`
    int (*run)(const args& a, const console& io);
    unsigned uses = use::nothing;  // use::formulas, use::ranks
};

// Every command, in the order `qkv --help` lists them.
const std::vector<command>& commands();

// --- shared by the commands ---------------------------------------------------------------------

// A wrong option or argument: printed as "qkv CMD: message" with exit status 2.
class usage_error : public input_error {
public:
    using input_error::input_error;
};

// Standard output went away (`qkv lesson 1 | head`): run ends quietly with 141.
struct broken_pipe {};

// Parse args against desc (and positionals); `--help` prints usage + desc and returns false.
bool parse(const console& io, std::string_view cmd, const args& a, const boost::program_options::options_description& desc,
           const boost::program_options::positional_options_description& pos,
           boost::program_options::variables_map& vm);
// The same for a command that asks nothing of the variables map afterwards, with at most one
// positional argument: the option `positional`, taking `count` values (-1: all that are left).
bool parse(const console& io, std::string_view cmd, const args& a, const boost::program_options::options_description& desc,
           const char* positional = nullptr, int count = -1);

// The options every command words alike: --help (-h), --lang, --color (its help as short as the
// command's), and --format with the formats this command writes ("text or json").
void add_help_option(boost::program_options::options_description& desc);
void add_lang_option(boost::program_options::options_description& desc, std::string& lang);
inline constexpr const char* color_help_short = "auto, always or never";
// CLICOLOR_FORCE forces colour with any value but "" and "0" (resolve_output), so the help says so.
inline constexpr const char* color_help_long =
    "auto, always or never (auto: only on a terminal, not under mpirun, never with NO_COLOR, always with "
    "CLICOLOR_FORCE set and not 0)";
void add_color_option(boost::program_options::options_description& desc, std::string& color,
                      const char* help = color_help_long);
// --help, --lang and --color are the options every command takes: `qkv list --color never` from an
// alias that adds it to every command, or `qkv --lang en` with no command at all (cli.cpp). A
// command whose output has no colour, or no words of its own, still takes them and checks them.
// Adds the three to desc; check_common_options reads them back (a usage_error when one is wrong).
struct common_choice {
    std::string lang, color = "auto";
};
void add_common_options(boost::program_options::options_description& desc, common_choice& c);
void check_common_options(const common_choice& c, const console& io);
// The formats a command writes (render_format.hpp's table), in the order its --help names them.
using format_list = std::vector<format>;
inline const format_list lesson_formats{format::text, format::markdown, format::json, format::html};
inline const format_list text_and_json{format::text, format::json};
// "text, markdown or json": a command's formats in the words of its help and its errors.
std::string format_words(const format_list& writes);
// --format, its help naming the formats the command writes, then `note` ("(a row per student)").
void add_format_option(boost::program_options::options_description& desc, std::string& format, const format_list& writes,
                       std::string_view note = {});
// The format typed, when the command writes it; else a usage_error naming those it does.
format format_of(std::string_view typed, const format_list& writes);
// --lang as typed: QKV_LANG and the locale (default_lang) when empty, else zh or en or a usage_error.
lang language_of(std::string_view typed);

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
// Checks the choices (usage_error on a bad one, a format not among those the command writes too).
// Colour under "auto" and the width come from the console's terminal, if it has one.
output resolve_output(const output_choice& c, const console& io, const format_list& writes = lesson_formats);

// The commands.
int cmd_list(const args& a, const console& io);
int cmd_lesson(const args& a, const console& io);
int cmd_run(const args& a, const console& io);       // commands_lesson.cpp: a lesson file from anywhere
int cmd_validate(const args& a, const console& io);  // commands_author.cpp: validate, scenario, formulas
int cmd_scenario(const args& a, const console& io);
int cmd_formulas(const args& a, const console& io);
int cmd_exercises(const args& a, const console& io);
int cmd_exercise(const args& a, const console& io);
int cmd_check(const args& a, const console& io);
int cmd_hint(const args& a, const console& io);
int cmd_solution(const args& a, const console& io);
int cmd_grade(const args& a, const console& io);
int cmd_progress(const args& a, const console& io);
int cmd_next(const args& a, const console& io);
int cmd_bench(const args& a, const console& io);
int cmd_bench_tensor_parallel(const args& a, const console& io);  // commands_bench_ranks.cpp: --tensor-parallel
int cmd_train(const args& a, const console& io);     // commands_train.cpp
int cmd_serve(const args& a, const console& io);     // commands_serve.cpp

}  // namespace qkv::cli
