// The command table and the one place that turns errors into a line on the console's err and an
// exit status: 0 done, 1 a check that did not pass, 2 a usage or input error.
#include "qkv/cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <optional>
#include <sstream>
#include <system_error>
#include <typeinfo>

#include <fmt/format.h>

#include "qkv/course.hpp"
#include "qkv/report_course.hpp"
#include "qkv/suggest.hpp"
#include "qkv/tasks.hpp"
#include "qkv/terminal.hpp"
#include "qkv/trim.hpp"
#include "qkv_config.hpp"
#include "program_setup.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

const std::vector<command>& commands() {
    static const std::string train_usage = fmt::format("[--task {}] [options]", train::task_list("|", "|"));
    static const std::vector<command> table = {
        {"list", "[options]", "list the lessons: number, title, stages", cmd_list},
        {"lesson", "N|NAME|all [options]", "run a lesson (or all of them) stage by stage", cmd_lesson, use::lessons},
        {"run", "FILE.toml [options]", "run a lesson file from anywhere (same options as lesson)", cmd_run, use::lessons},
        {"validate", "FILE... [options]", "check lesson, scenario and exercise files; list every problem", cmd_validate, use::lessons},
        {"scenario", "--tokens \"A B C\" [options]", "write a scenario for your own sentence", cmd_scenario},
        {"formulas", "[options]", "the formula language and its built-in functions", cmd_formulas, use::formulas},
        {"exercises", "[--lesson N] [options]", "the exercises, with your status and a progress bar per lesson", cmd_exercises, use::lessons},
        {"exercise", "ID [options]", "show an exercise: its question and the values it refers to", cmd_exercise, use::lessons},
        {"check", "ID ANSWER | ID --file FILE [options]", "check an answer; a wrong one is explained", cmd_check, use::lessons},
        {"hint", "ID [options]", "the hints for an exercise so far, and the next one", cmd_hint, use::lessons},
        {"solution", "ID [options]", "the worked solution of an exercise (recorded as seen)", cmd_solution, use::lessons},
        {"grade", "SHEET.toml|DIR... [options]", "grade answer sheets of \"ID\" = \"ANSWER\" lines (a class's too)", cmd_grade, use::lessons},
        {"progress", "[--reset] [options]", "your progress on the exercises", cmd_progress},
        {"next", "[options]", "where you stand, and the next lesson or exercise, shown", cmd_next, use::lessons},
        {"bench", "[kv] [options]", "time attention at scale on this machine", cmd_bench, use::ranks},  // --tensor-parallel
        {"train", train_usage, "train a small transformer and watch its heads learn", cmd_train},
        {"serve", "[--port P] [--bind ADDR] [options]", "the lessons and live training in a browser, from this machine", cmd_serve, use::lessons},
    };
    return table;
}

namespace {

void print_main_help(const console& io) {
    std::string out = fmt::format("qkv {} — self-attention, taught by running it\n\nUsage: qkv COMMAND [options]\n\nCommands:\n",
                                  QKV_VERSION);
    for (const command& c : commands()) out += fmt::format("  {:<10} {}\n", c.name, c.summary);
    out += "\nEvery command takes --help. Start with: qkv lesson 0 (or qkv next)\n"
           "Exit status: 0 done, 1 a check that did not pass, 2 a usage or input error.\n";
    io.print(out);
}

// "Start here: lesson 0 …" or, for a returning learner, what they have done and what is next.
// Nothing when the lessons or the progress cannot be read: the help below still is.
void greet(const console& io, lang l) {
    try {
        const course_position at = position_in(load_course(l), load_progress(progress_path()));
        io.print(position_text(at, l, terminal::width(io.out_fd)) + "\n\n");
    } catch (const input_error&) {
    }
}

[[noreturn]] void unknown_command(const std::string& name) {
    std::vector<std::string> names;
    for (const command& c : commands()) names.emplace_back(c.name);
    std::string near = nearest(name, names);
    throw usage_error(fmt::format("unknown command '{}'{}; see qkv --help", name,
                                  near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
}

// QKV_RANK_TIMEOUT=abc read as 0 and quietly became the 60 s default: a value set must be seconds
// above 0 (checked for every command, as every command may run under mpirun).
void check_environment() {
    const char* v = std::getenv("QKV_RANK_TIMEOUT");
    if (!v) return;
    char* end = nullptr;
    errno = 0;
    const double s = std::strtod(v, &end);
    if (*v == '\0' || *end != '\0' || errno != 0 || !(s > 0 && s <= 1e9))
        throw input_error(fmt::format("QKV_RANK_TIMEOUT must be the seconds a rank waits, a number above 0, not '{}'", v));
}

// A command with what it uses of the program in place, for as long as it runs.
int run_command(const command& c, const args& a, const console& io, const program& p) {
    const program_setup setup(c.uses, p, io);
    return c.run(a, io);
}

// The options every command takes (--lang, --color) typed before the command: `qkv --lang en`,
// an alias `qkv --color never`. How many words of argv they take ("--lang", "en" or "--lang=en");
// the command and its arguments follow them.
std::size_t leading_common_options(const args& argv) {
    std::size_t i = 0;
    while (i < argv.size()) {
        const std::string& a = argv[i];
        if (a == "--lang" || a == "--color") i += 2;
        else if (a.starts_with("--lang=") || a.starts_with("--color=")) i += 1;
        else break;
    }
    return std::min(i, argv.size());
}

// The leading options read as every command reads them: a missing or wrong value is the same
// usage error as after a command.
common_choice common_of(const args& leading, const console& io) {
    common_choice c;
    po::options_description desc;
    add_common_options(desc, c);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(leading).options(desc).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(fmt::format("{}; see qkv --help", e.what()));
    }
    for (const auto& [name, value] : {std::pair{"lang", c.lang}, std::pair{"color", c.color}})
        if (vm.count(name) && !vm[name].defaulted() && trim(value).empty()) throw usage_error(fmt::format("--{} needs a value; an empty one names nothing", name));
    check_common_options(c, io);
    return c;
}

// The leading options that go on to the command: those it is not given again after its name, where
// the later word wins (`qkv --lang en lesson 1 --lang zh`: an alias, then what the user typed).
args passed_on(const args& leading, const args& rest) {
    auto given = [&](std::string_view option) {
        for (const std::string& a : rest) {
            if (a == "--") break;
            if (a == option || (a.starts_with(option) && a[option.size()] == '=')) return true;
        }
        return false;
    };
    args out;
    for (std::size_t i = 0; i < leading.size();) {
        const std::string& a = leading[i];
        const std::size_t words = a.find('=') == std::string::npos ? 2 : 1;
        if (!given(a.substr(0, a.find('='))))
            out.insert(out.end(), leading.begin() + std::ptrdiff_t(i), leading.begin() + std::ptrdiff_t(std::min(i + words, leading.size())));
        i += words;
    }
    return out;
}

int dispatch(const args& argv, const console& io, const program& p) {
    const auto skip = static_cast<std::ptrdiff_t>(leading_common_options(argv));
    const args leading(argv.begin(), argv.begin() + skip);
    const common_choice common = common_of(leading, io);
    std::string name = skip < std::ptrdiff_t(argv.size()) ? argv[std::size_t(skip)] : "";
    args rest(argv.begin() + std::min<std::ptrdiff_t>(skip + 1, std::ptrdiff_t(argv.size())), argv.end());
    if (name == "help" && !rest.empty()) {  // qkv help lesson = qkv lesson --help; qkv help formulas
        for (const command& c : commands())
            if (c.name == rest.front()) return run_command(c, c.name == "formulas" ? args{} : args{"--help"}, io, p);
        // a word that is no command: the general help with status 0 would hide the typo
        if (rest.front() != "--help" && rest.front() != "-h") unknown_command(rest.front());
    }
    if (name.empty()) {  // a learner who just types qkv (or qkv --lang en): where they left off, then the commands
        greet(io, language_of(common.lang));
        print_main_help(io);
        return 0;
    }
    if (name == "--help" || name == "-h" || name == "help") {
        print_main_help(io);
        return 0;
    }
    if (name == "--version" || name == "-V") {
        io.print(fmt::format("qkv {}\n", QKV_VERSION));
        return 0;
    }
    const args before = passed_on(leading, rest);
    rest.insert(rest.begin(), before.begin(), before.end());  // the command reads them as its own
    for (const command& c : commands())
        if (c.name == name) return check_environment(), run_command(c, rest, io, p);
    unknown_command(name);
}

// "qkv lesson: …" for a known command; an unknown one is quoted (escaped) in the message.
std::string command_of(const args& argv) {
    std::string cmd = "qkv";
    const std::size_t at = leading_common_options(argv);
    for (const command& c : commands())
        if (at < argv.size() && c.name == argv[at]) cmd += fmt::format(" {}", c.name);
    return cmd;
}

}  // namespace

int run(const args& argv, const console& io, const program& p) {
    try {
        try {
            return dispatch(argv, io, p);
        } catch (const broken_pipe&) {
            return 141;  // what a shell reports for SIGPIPE, without a word on stderr
        } catch (const usage_error& e) {
            io.tell(fmt::format("{}: {}\n", command_of(argv), e.what()));
        } catch (const input_error& e) {
            io.tell(fmt::format("qkv: {}\n", e.what()));
        } catch (const std::system_error& e) {
            if (e.code().value() == EPIPE) return 141;  // fmt::print met a closed pipe
            io.tell(fmt::format("qkv: {}\n", input_error(e.what()).what()));  // escaped and clipped as ours are
        } catch (const std::bad_alloc&) {
            // memory can still run out where no budget looks (a reader, a renderer): say which
            // command it was, in the user's own words, escaped and clipped as every message is
            io.tell(fmt::format("qkv: {}\n", input_error(fmt::format("out of memory running `qkv {}`", fmt::join(argv, " "))).what()));
        } catch (const std::exception& e) {
            io.tell(fmt::format("qkv: {}\n", input_error(e.what()).what()));
        }
    } catch (...) {  // formatting the message itself ran out of memory
        io.tell("qkv: out of memory\n");
    }
    return 2;
}

int run(const args& argv, const console& io) { return run(argv, io, standard_program()); }

int run(const args& argv, std::ostream& out, std::ostream& err) { return run(argv, console{out, err}); }

namespace {

// Boost reads "-1" into an unsigned option as 2^64 - 1 (--seed -1 ran on 18446744073709551615, and
// --d-model -1 was said to be "not 18446744073709551615"): a sign before an unsigned is refused.
void refuse_negative_unsigned(const po::parsed_options& parsed, const po::variables_map& vm) {
    for (const po::option& o : parsed.options) {
        if (o.value.empty() || !vm.count(o.string_key)) continue;
        const std::type_info& t = vm[o.string_key].value().type();
        const bool is_unsigned = t == typeid(unsigned) || t == typeid(unsigned long) || t == typeid(unsigned long long);
        const std::string_view v = trim(o.value.front());
        if (is_unsigned && v.starts_with('-'))
            throw usage_error(fmt::format("--{} must be a whole number from 0 up, not '{}'", o.string_key, o.value.front()));
    }
}

// `--save ""`, `--lang ""`, `-o ""` named nothing and were taken as "not given" (the default
// language, no file, standard output): an option typed with an empty value is refused. Positional
// arguments are left to their commands (an empty answer has its own words), and so is --tokens.
void refuse_empty_values(const po::parsed_options& parsed) {
    for (const po::option& o : parsed.options) {
        if (o.position_key != -1 || o.string_key == "tokens" || o.value.empty()) continue;
        if (trim(o.value.front()).empty())
            throw usage_error(fmt::format("--{} needs a value; an empty one names nothing", o.string_key));
    }
}

// The help's option list without the positional arguments: `qkv lesson 3` takes its lesson as a
// word, and "--lesson arg" in the list suggested an option nobody types. A description with
// positionals is flat (a caption "Options" and its options), so it is rebuilt without them.
std::string help_text(const po::options_description& desc, const po::positional_options_description& pos) {
    std::ostringstream help;
    if (pos.max_total_count() == 0) {
        help << desc;  // a description of groups only (train's) starts with the blank line before its first
        std::string text = help.str();
        return text.starts_with('\n') ? text.substr(1) : text;
    }
    std::vector<std::string> hidden;
    for (unsigned i = 0; i < pos.max_total_count() && i < 8; ++i) hidden.push_back(pos.name_for_position(i));
    po::options_description shown("Options");
    for (const auto& o : desc.options())
        if (std::find(hidden.begin(), hidden.end(), o->long_name()) == hidden.end()) shown.add(o);
    help << shown;
    return help.str();
}

}  // namespace

bool parse(const console& io, std::string_view cmd, const args& a, const po::options_description& desc,
           const po::positional_options_description& pos, po::variables_map& vm) {
    try {
        const po::parsed_options parsed = po::command_line_parser(a).options(desc).positional(pos).run();
        po::store(parsed, vm);
        po::notify(vm);
        refuse_negative_unsigned(parsed, vm);
        if (!vm.count("help")) refuse_empty_values(parsed);
    } catch (const po::error& e) {
        throw usage_error(fmt::format("{}; see qkv {} --help", e.what(), cmd));
    }
    if (vm.count("help")) {
        std::ostringstream help;
        help << help_text(desc, pos);
        for (const command& c : commands())
            if (c.name == cmd) io.print(fmt::format("Usage: qkv {} {}\n{}\n\n{}", c.name, c.usage, c.summary, help.str()));
        return false;
    }
    return true;
}

bool parse(const console& io, std::string_view cmd, const args& a, const po::options_description& desc, const char* positional,
           int count) {
    po::positional_options_description pos;
    if (positional) pos.add(positional, count);
    po::variables_map vm;
    return parse(io, cmd, a, desc, pos, vm);
}

void add_help_option(po::options_description& desc) { desc.add_options()("help,h", "show this help"); }

void add_lang_option(po::options_description& desc, std::string& lang) {
    desc.add_options()("lang", po::value(&lang), "zh or en (default: QKV_LANG, then LC_ALL / LC_MESSAGES / LANG)");
}

void add_color_option(po::options_description& desc, std::string& color, const char* help) {
    desc.add_options()("color", po::value(&color)->default_value("auto"), help);
}

std::string format_words(const format_list& writes) {
    std::string out;
    for (std::size_t i = 0; i < writes.size(); ++i)
        out += fmt::format("{}{}", i == 0 ? "" : i + 1 == writes.size() ? " or " : ", ", format_name(writes[i]));
    return out;
}

void add_format_option(po::options_description& desc, std::string& format, const format_list& writes, std::string_view note) {
    const std::string help = note.empty() ? format_words(writes) : fmt::format("{} {}", format_words(writes), note);
    desc.add_options()("format", po::value(&format)->default_value("text"), help.c_str());
}

format format_of(std::string_view typed, const format_list& writes) {
    const std::optional<format> form = parse_format(typed);
    if (!form || std::find(writes.begin(), writes.end(), *form) == writes.end())
        throw usage_error(fmt::format("--format must be {}, not '{}'", format_words(writes), typed));
    return *form;
}

lang language_of(std::string_view typed) {
    if (typed.empty()) return default_lang();
    if (typed == "zh" || typed == "en") return *parse_lang(typed);
    throw usage_error(fmt::format("--lang must be zh or en, not '{}'", typed));
}

void add_output_options(po::options_description& desc, output_choice& c) {
    add_lang_option(desc, c.lang);
    add_color_option(desc, c.color);
    add_format_option(desc, c.format, lesson_formats);
    desc.add_options()
        ("precision", po::value(&c.precision)->default_value(4), "decimals shown (0 to 9)")
        ("full", po::bool_switch(&c.full), "show every row, column, head and step; never elide or summarise");
}

namespace {

// What the terminal says it can show: 24-bit colour only when COLORTERM announces it, 16 colours
// on the Linux console (and the old vt terminals), the xterm-256color palette everywhere else.
color_depth color_depth_from_env() {
    const char* colorterm = std::getenv("COLORTERM");
    std::string_view ct = colorterm ? colorterm : "";
    if (ct == "truecolor" || ct == "24bit") return color_depth::truecolor;
    const char* term_env = std::getenv("TERM");
    std::string_view term = term_env ? term_env : "";
    if (term == "linux" || term.starts_with("vt") || term == "ansi") return color_depth::basic16;
    return color_depth::palette256;
}

// --color as typed, and what the terminal and the environment say: whether to colour.
bool color_wanted(std::string_view typed, const console& io) {
    if (typed == "always") return true;
    if (typed == "never") return false;
    if (typed != "auto") throw usage_error(fmt::format("--color must be auto, always or never, not '{}'", typed));
    // CLICOLOR_FORCE (anything but "" or "0") asks for colour even on a pipe, and wins over
    // NO_COLOR as in other tools that read both; --color always or never wins over both.
    const char* no_color = std::getenv("NO_COLOR");
    const char* force = std::getenv("CLICOLOR_FORCE");
    const char* term = std::getenv("TERM");
    // Open MPI gives each rank a pseudo-terminal even when mpirun's own output goes to a file
    // (`mpirun -np 2 qkv lesson 11 > f` got escape codes), so a rank's terminal says nothing
    // about where the words end up: under mpirun, auto means no colour.
    const bool under_mpirun = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr;
    return (force && *force && std::string_view(force) != "0") ||
           (terminal::is_tty(io.out_fd) && !under_mpirun && !(no_color && *no_color) && !(term && std::string_view(term) == "dumb"));
}

}  // namespace

void add_common_options(po::options_description& desc, common_choice& c) {
    add_help_option(desc);
    add_lang_option(desc, c.lang);
    add_color_option(desc, c.color, color_help_short);
}

void check_common_options(const common_choice& c, const console& io) {
    language_of(c.lang);
    color_wanted(c.color, io);
}

output resolve_output(const output_choice& c, const console& io, const format_list& writes) {
    render_options o;
    o.language = language_of(c.lang);
    o.color = color_wanted(c.color, io);
    o.depth = color_depth_from_env();
    const format form = format_of(c.format, writes);
    if (c.precision < 0 || c.precision > 9) throw usage_error(fmt::format("--precision must be 0 to 9, not {}", c.precision));
    o.precision = c.precision;
    o.full = c.full;
    o.width = terminal::width(io.out_fd);  // no terminal: COLUMNS, else 100
    return {o, form};
}

}  // namespace qkv::cli
