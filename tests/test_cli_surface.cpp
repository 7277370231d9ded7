// The command line's surface, as an audit found it: options that were taken and did nothing, empty
// values read as "not given", readers that blocked on a pipe or read a device, help that said less
// than the command does, and colour that leaked into a file under mpirun. Every refusal is one line
// on standard error with status 2 and nothing on standard output.
#define BOOST_TEST_MODULE cli_surface
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/pty_session.hpp"

namespace {

using namespace std::chrono_literals;
using env_list = std::vector<std::pair<std::string, std::string>>;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// Status 2, one line on standard error holding `needle`, nothing on standard output.
void refused(const std::vector<std::string>& args, const std::string& needle, const env_list& env = {}) {
    const auto r = run_qkv(args, "", env);
    std::string shown;
    for (const std::string& a : args) shown += a.empty() ? "'' " : a + " ";
    BOOST_TEST_CONTEXT(shown) {
        BOOST_TEST(r.status == 2);
        BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
        BOOST_TEST(has(r.err, needle), r.err);
        BOOST_TEST(r.out.empty(), r.out);
    }
}

// A model that trains in a blink (tests/test_cli_train.cpp's), for the cases that would otherwise run.
std::vector<std::string> tiny(std::vector<std::string> more) {
    std::vector<std::string> args{"train", "--vocab", "12", "--seq", "12", "--d-model", "8", "--batch", "4", "--steps", "2"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

}  // namespace

// A FIFO blocked for ever, a folder gave the C++ library's words without the file, and /dev/zero
// was read until memory ran out: each is refused before reading, naming the file.
BOOST_AUTO_TEST_CASE(train_load_refuses_what_cannot_be_a_model_file) {
    qkv::test::scratch_dir dir("surface-load");
    const fs::path folder = dir / "folder.qkvm";
    fs::create_directory(folder);
    refused(tiny({"--load", folder.string()}), "folder.qkvm: cannot read the model file: not a regular file");
    const fs::path big = dir / "big.qkvm";  // sparse: no disk used
    write_file(big, "");
    BOOST_TEST_REQUIRE(::truncate(big.c_str(), off_t{2} << 30) == 0);
    refused(tiny({"--load", big.string()}), "big.qkvm: cannot read the model file: 2147483648 bytes is more than any model holds");
    const fs::path fifo = dir / "fifo.qkvm";
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    refused(tiny({"--load", fifo.string()}), "fifo.qkvm: cannot read the model file: not a regular file");
}

// '' named nothing and was read as "not given": the default language, the lesson's own scenario,
// no model saved, standard output.
BOOST_AUTO_TEST_CASE(empty_values_are_refused) {
    refused({"lesson", "3", "--lang", ""}, "--lang needs a value");
    refused({"lesson", "3", "--data", ""}, "--data needs a value");
    refused(tiny({"--save", ""}), "--save needs a value");
    // the sizes keep a run before the fix short; the check comes before any measurement
    refused({"bench", "--dump-dir", "", "--n", "8", "--d-model", "16", "--heads", "2", "--repeats", "1", "--impl", "blas"},
            "--dump-dir needs a value");
    refused({"scenario", "--tokens", "a b", "-o", ""}, "--output needs a value");
}

BOOST_AUTO_TEST_CASE(train_refuses_settings_that_meant_something_else) {
    for (const char* s : {"0-0", "4-0", "1-1", "5-4"}) refused(tiny({"--segment", s}), "2 <= MIN <= MAX");
    refused(tiny({"--threads", "-1"}), "--threads must be 1 to 64, not -1");
    refused(tiny({"--checkpoint-every", "0"}), "--checkpoint-every must be 1 step or more");
    refused(tiny({"--record-batches"}), "--record-batches adds each step's tokens to the json");
    refused(tiny({}), "QKV_RANK_TIMEOUT must be the seconds a rank waits, a number above 0, not 'abc'", {{"QKV_RANK_TIMEOUT", "abc"}});
    refused(tiny({}), "QKV_RANK_TIMEOUT", {{"QKV_RANK_TIMEOUT", "0"}});
    BOOST_TEST(run_qkv(tiny({}), "", {{"QKV_RANK_TIMEOUT", "2.5"}}).status == 0);
}

BOOST_AUTO_TEST_CASE(help_for_a_command_that_does_not_exist_is_an_error) {
    refused({"help", "bogus"}, "unknown command 'bogus'");
    BOOST_TEST(run_qkv({"help"}).status == 0);
    refused({"run", "nonexist.toml"}, "nonexist.toml");
    const auto grade = run_qkv({"grade", "nonexist.toml"});
    BOOST_TEST(grade.status == 2, grade.err);
}

BOOST_AUTO_TEST_CASE(train_help_lists_its_options_and_takes_h) {
    const auto h = run_qkv({"train", "-h"});
    BOOST_TEST_REQUIRE(h.status == 0, h.err);
    BOOST_TEST(h.out == run_qkv({"train", "--help"}).out);
    for (const char* o : {"--vocab", "--segment", "--steps", "--threads", "--save", "--load", "--record-batches", "-h [ --help ]",
                          "CLICOLOR_FORCE"})
        BOOST_TEST(has(h.out, o), o);
}

// Help lists options; the words a command takes by position are in its usage line, not as options.
BOOST_AUTO_TEST_CASE(help_says_what_the_commands_take) {
    const std::string lesson = run_qkv({"lesson", "--help"}).out;
    BOOST_TEST(has(lesson, "Usage: qkv lesson N|NAME|all"), lesson);
    BOOST_TEST(!has(lesson, "--lesson"), lesson);
    BOOST_TEST(has(lesson, "CLICOLOR_FORCE set and not 0"), lesson);
    BOOST_TEST(has(lesson, "--data"), lesson);
    BOOST_TEST(!has(run_qkv({"run", "--help"}).out, "--file"));
    const std::string check = run_qkv({"check", "--help"}).out;
    BOOST_TEST(!has(check, "--id"), check);
    BOOST_TEST(!has(check, "--answer"), check);
    const std::string grade = run_qkv({"grade", "--help"}).out;
    BOOST_TEST(has(grade, "Usage: qkv grade SHEET.toml|DIR..."), grade);
    BOOST_TEST(!has(grade, "--sheet"), grade);
}

// The list takes --color as every command does (issue 40: `qkv list --color never` was refused),
// and has no colour to give: --color always paints nothing.
BOOST_AUTO_TEST_CASE(list_takes_only_what_it_honours) {
    refused({"list", "--format", "html"}, "--format must be text, markdown or json");
    refused({"list", "--precision", "3"}, "precision");
    refused({"list", "--color", "sometimes"}, "--color must be auto, always or never, not 'sometimes'");
    const auto plain = run_qkv({"list"}), never = run_qkv({"list", "--color", "never"}), always = run_qkv({"list", "--color", "always"});
    BOOST_TEST_REQUIRE(never.status == 0, never.err);
    BOOST_TEST(never.out == plain.out);
    BOOST_TEST(always.out == plain.out);
    const env_list narrow{{"COLUMNS", "40"}};
    const auto cut = run_qkv({"list"}, "", narrow), full = run_qkv({"list", "--full"}, "", narrow);
    BOOST_TEST_REQUIRE(full.status == 0, full.err);
    BOOST_TEST(has(cut.out, "…"));  // the case below means something only if 40 columns cut a title
    BOOST_TEST(!has(full.out, "…"), full.out);
    // markdown has the text's columns, the name too (README: number, name, title, stage count)
    const std::string md = run_qkv({"list", "--format", "markdown"}).out;
    BOOST_TEST(has(md, "| # | name | title | stages |"));
    BOOST_TEST(has(md, "| 4 | scaling | "), md);
    BOOST_TEST(nlohmann::json::parse(run_qkv({"list", "--format", "json"}).out)["lessons"].size() > 0);
}

BOOST_AUTO_TEST_CASE(options_a_command_ignored_are_refused_or_honoured) {
    refused({"bench", "kv", "--backward", "--tokens", "16"}, "--backward is not for bench kv");
    refused({"bench", "kv", "--n", "64", "--tokens", "16"}, "--n is not for bench kv");
    qkv::test::scratch_dir state("surface-state");
    const auto reset = run_qkv({"progress", "--reset", "--format", "json"}, "", {{"XDG_STATE_HOME", state.path.string()}});
    BOOST_TEST_REQUIRE(reset.status == 0, reset.err);
    BOOST_TEST(nlohmann::json::parse(reset.out)["reset"] == true, reset.out);
}

// bench kv said "1 thread(s)" where the forward bench says "1 thread".
BOOST_AUTO_TEST_CASE(bench_words_its_threads_alike) {
    const auto r = run_qkv({"bench", "kv", "--tokens", "16", "--d-model", "16", "--heads", "2", "--repeats", "1"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(has(r.out, "h = 2, 1 thread\n"), r.out);
    BOOST_TEST(!has(r.out + r.err, "thread(s)"), r.out);
}

// Open MPI gives each rank a pseudo-terminal even when mpirun's output goes to a file: under
// mpirun, --color auto is no colour. The heatmap of lesson 4's stage 2 is in colour on a terminal.
BOOST_AUTO_TEST_CASE(color_auto_is_off_under_mpirun) {
    const std::vector<std::string> args{"lesson", "4", "--stage", "2"};
    auto painted = [&](const env_list& env) {
        qkv::test::session s(args, 100, 40, "xterm-256color", env);
        BOOST_TEST_REQUIRE(s.finish(60000ms) == 0);
        return has(s.out, "\x1b[48;") || has(s.out, "\x1b[38;");
    };
    BOOST_TEST(painted({{"NO_COLOR", ""}}));
    // with OMPI_COMM_WORLD_SIZE qkv starts MPI as a singleton; under AddressSanitizer, full stacks,
    // so that Open MPI's own leaks are known by its libraries (.ci/lsan.supp), as test_ranks does
    env_list mpi{{"NO_COLOR", ""}, {"OMPI_COMM_WORLD_SIZE", "1"}};
    if (const char* asan = std::getenv("ASAN_OPTIONS")) mpi.emplace_back("ASAN_OPTIONS", std::string(asan) + ":fast_unwind_on_malloc=0");
    BOOST_TEST(!painted(mpi));
}

namespace {

// The commands `qkv --help` lists, read from its "Commands:" block.
std::vector<std::string> listed_commands() {
    const std::string help = run_qkv({"--help"}).out;
    std::vector<std::string> out;
    std::size_t at = help.find("Commands:\n");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    for (at = help.find('\n', at) + 1; at < help.size() && help.compare(at, 2, "  ") == 0; at = help.find('\n', at) + 1) {
        const std::size_t from = help.find_first_not_of(' ', at);
        out.push_back(help.substr(from, help.find(' ', from) - from));
    }
    return out;
}

}  // namespace

// Issue 40: `qkv list --color never` and `qkv --lang en` were refused. Every command takes --help,
// --lang and --color (an alias that adds `--lang en --color never` to every command must work), and
// checks their values even where it has no colour to give or no words of its own.
BOOST_AUTO_TEST_CASE(every_command_takes_the_options_every_command_takes) {
    const std::vector<std::string> names = listed_commands();
    BOOST_TEST(names.size() >= 16u);
    for (const std::string& cmd : names) {
        BOOST_TEST_CONTEXT(cmd) {
            const auto help = run_qkv({cmd, "--help"});
            BOOST_TEST(help.status == 0, help.err);
            for (const char* o : {"--lang", "--color", "--help"}) BOOST_TEST(has(help.out, o), o);
            const auto with = run_qkv({cmd, "--lang", "en", "--color", "never", "--help"});
            BOOST_TEST(with.status == 0, with.err);
            BOOST_TEST(with.out == help.out);
            BOOST_TEST(run_qkv({cmd, "-h", "--lang=zh", "--color=always"}).status == 0);
        }
    }
    // where the command has no use for them, a wrong value is still a wrong value
    refused({"formulas", "--color", "sometimes"}, "--color must be auto, always or never, not 'sometimes'");
    refused({"formulas", "--lang", "fr"}, "--lang must be zh or en, not 'fr'");
    refused({"validate", "lessons/03-scores.toml", "--lang", "fr"}, "--lang must be zh or en, not 'fr'");
    refused({"scenario", "--tokens", "a b", "--color", "x"}, "--color must be auto, always or never, not 'x'");
    refused({"bench", "--color", "x", "--n", "8", "--d-model", "16", "--heads", "2", "--repeats", "1", "--impl", "blas"},
            "--color must be auto, always or never, not 'x'");
    // and where it has none, the output is what it is without them
    const auto formulas = run_qkv({"formulas"}), never = run_qkv({"formulas", "--color", "never", "--lang", "en"});
    BOOST_TEST(never.status == 0, never.err);
    BOOST_TEST(never.out == formulas.out);
    const auto scenario = run_qkv({"scenario", "--tokens", "a b"}), typed = run_qkv({"scenario", "--tokens", "a b", "--lang", "zh"});
    BOOST_TEST(typed.status == 0, typed.err);
    BOOST_TEST(typed.out == scenario.out);
}

// `qkv --lang en` is `qkv` in English: the greeting (where you stand) and the commands. Options
// every command takes may stand before the command, and one typed again after it wins.
BOOST_AUTO_TEST_CASE(the_common_options_may_come_before_the_command) {
    qkv::test::scratch_dir state("surface-leading");
    const env_list fresh{{"XDG_STATE_HOME", state.path.string()}};
    auto in = [&](const char* lang) {
        env_list e = fresh;
        e.emplace_back("QKV_LANG", lang);
        return e;
    };
    const auto bare_en = run_qkv({}, "", in("en")), bare_zh = run_qkv({}, "", in("zh"));
    BOOST_TEST_REQUIRE(bare_en.status == 0, bare_en.err);
    BOOST_TEST_REQUIRE(bare_zh.out != bare_en.out);  // the greeting is in the learner's language
    for (const char* lang : {"en", "zh"}) {
        BOOST_TEST_CONTEXT(lang) {
            const auto want = lang == std::string("en") ? bare_en : bare_zh;
            const auto typed = run_qkv({"--lang", lang}, "", in(lang == std::string("en") ? "zh" : "en"));
            BOOST_TEST(typed.status == 0, typed.err);
            BOOST_TEST(typed.err.empty());
            BOOST_TEST(typed.out == want.out);
            BOOST_TEST(run_qkv({std::string("--lang=") + lang, "--color", "never"}, "", in("en")).out == want.out);
        }
    }
    const auto list_zh = run_qkv({"list", "--lang", "zh"}, "", fresh);
    BOOST_TEST(run_qkv({"--color", "never", "--lang", "zh", "list"}, "", fresh).out == list_zh.out);
    BOOST_TEST(run_qkv({"--lang", "en", "list", "--lang", "zh"}, "", fresh).out == list_zh.out);
    const auto help = run_qkv({"--help"});
    // the help is in the language typed before it, as QKV_LANG would give it (issue 40)
    BOOST_TEST(run_qkv({"--lang", "zh", "--help"}).out == run_qkv({"--help"}, "", {{"QKV_LANG", "zh"}}).out);
    BOOST_TEST(run_qkv({"--lang", "zh", "--help"}).out != help.out);
    BOOST_TEST(run_qkv({"--lang", "en", "help", "lesson"}).out == run_qkv({"lesson", "--help"}).out);
    refused({"--lang", "fr"}, "--lang must be zh or en, not 'fr'");
    refused({"--lang"}, "'--lang'");
    refused({"--lang", ""}, "--lang needs a value");
    refused({"--color", "x", "list"}, "--color must be auto, always or never, not 'x'");
    refused({"--lang", "en", "lesson", "3", "--bogus"}, "qkv lesson: unrecognised option '--bogus'");
}
