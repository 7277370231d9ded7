// The program as a user meets it: list, lesson in every format and language, stepping driven
// through standard input, golden text output, and bad input answered by one line and status 2.
#define BOOST_TEST_MODULE cli_lesson
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "qkv/display_width.hpp"
#include "support/cli_suite.hpp"
#include "support/golden.hpp"

namespace {

std::size_t count_lines(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

// Status 2, nothing on stdout, exactly one line on stderr that contains every expected piece.
void expect_input_error(const std::vector<std::string>& args, const std::vector<std::string>& pieces,
                        const std::vector<std::pair<std::string, std::string>>& env = {}) {
    auto r = run_qkv(args, "", env);
    BOOST_TEST_CONTEXT("qkv " << args.front() << " " << (args.size() > 1 ? args[1] : "") << " → " << r.err) {
        BOOST_TEST(r.status == 2);
        BOOST_TEST(r.out.empty());
        BOOST_TEST(count_lines(r.err) == 1u);
        for (const auto& p : pieces) BOOST_TEST(r.err.find(p) != std::string::npos, "stderr lacks: " << p);
    }
}

// A lesson's output follows from its arguments and environment alone (the golden texts hold it to
// that), so cases that run the very same command read one run of it: the golden text and the
// 80-lines check at 100 columns, and `qkv lesson all --format json`. Lessons 18 and 19 train a model
// on every run (10 and 18 s under the sanitizers).
using env_list = std::vector<std::pair<std::string, std::string>>;
using qkv::test::run_result;
const run_result& run_lesson(const std::vector<std::string>& args, const env_list& env = {}) {
    static std::map<std::pair<std::vector<std::string>, env_list>, run_result> runs;
    auto key = std::make_pair(args, env);
    auto it = runs.find(key);
    if (it == runs.end()) it = runs.emplace(key, run_qkv(args, "", env)).first;
    return it->second;
}

std::vector<int> lesson_numbers() {
    auto r = run_qkv({"list", "--format", "json"});
    BOOST_REQUIRE_EQUAL(r.status, 0);
    std::vector<int> out;
    auto j = nlohmann::json::parse(r.out);  // kept alive: a range-for over a temporary's member dangles
    for (auto& l : j["lessons"]) out.push_back(l["number"].get<int>());
    return out;
}

// The lessons that read no scenario (lesson 18 makes its own sequences): their JSON trace names
// none ("scenario": null), and test_cli_inprocess holds that --tokens changes nothing in them, so a
// run on another scenario would repeat the run on their own (lesson 18 trains a model each time:
// 20 s under the sanitizers). Asked of `qkv lesson all` once.
const std::set<int>& lessons_with_own_data() {
    static const std::set<int> own = [] {
        const auto& r = run_lesson({"lesson", "all", "--format", "json"});
        BOOST_REQUIRE_EQUAL(r.status, 0);
        std::set<int> out;
        for (const auto& t : nlohmann::json::parse(r.out))
            if (t["scenario"].is_null()) out.insert(t["lesson"].get<int>());
        return out;
    }();
    return own;
}

}  // namespace

BOOST_AUTO_TEST_CASE(list_shows_every_lesson_in_both_languages) {
    auto en = run_qkv({"list"});
    auto zh = run_qkv({"list", "--lang", "zh"});
    BOOST_TEST(en.status == 0);
    BOOST_TEST(zh.status == 0);
    BOOST_TEST(en.out.find("Scores") != std::string::npos);
    BOOST_TEST(zh.out != en.out);
    auto numbers = lesson_numbers();
    for (int n = 1; n <= 8; ++n) BOOST_TEST((std::find(numbers.begin(), numbers.end(), n) != numbers.end()), "lesson " << n);
    // the titles form one column, however long a lesson's name (cross-attention, tensor-parallel);
    // a title too long for the line (100 columns on a pipe) is cut with "…", so its start is sought
    const auto j = nlohmann::json::parse(run_qkv({"list", "--format", "json"}).out);
    std::set<std::size_t> title_columns;
    for (const auto& l : j["lessons"]) {
        const std::size_t at = en.out.find("  " + l["title"].get<std::string>().substr(0, 20));
        BOOST_TEST_REQUIRE(at != std::string::npos);
        title_columns.insert(at + 2 - (en.out.rfind('\n', at) == std::string::npos ? 0 : en.out.rfind('\n', at) + 1));
    }
    BOOST_TEST(title_columns.size() == 1u);
}

BOOST_AUTO_TEST_CASE(every_lesson_runs_in_every_format_language_colour_and_scenario) {
    // Text on the lessons' own scenarios, in both languages, is the golden test's and the 80-column
    // test's (and no_stage_is_a_wall's on five sentences): here text runs on the other scenario,
    // in colour for odd lessons, and Markdown and JSON on both. A lesson with data of its own
    // (lessons 18 and 19 train a model in each run) has no other scenario: Markdown and JSON.
    for (int n : lesson_numbers()) {
        for (std::string lang : {"zh", "en"}) {
            for (std::string format : {"text", "markdown", "json"}) {
                for (std::string data : {"", "data/thinking-machines.toml"}) {
                    if (!data.empty() && lessons_with_own_data().count(n)) continue;
                    if (format == "text" && data.empty()) continue;
                    std::vector<std::string> args{"lesson", std::to_string(n), "--lang", lang, "--format", format};
                    if (!data.empty()) args.insert(args.end(), {"--data", data});
                    if (format == "text") args.insert(args.end(), {"--color", n % 2 ? "always" : "never"});
                    auto r = run_qkv(args);
                    BOOST_TEST_CONTEXT("lesson " << n << " " << lang << " " << format << " " << data << ": " << r.err) {
                        BOOST_TEST(r.status == 0);
                        BOOST_TEST(r.err.empty());
                        BOOST_TEST(!r.out.empty());
                        if (format == "json") {
                            auto j = nlohmann::json::parse(r.out);
                            BOOST_TEST(j["lesson"].get<int>() == n);
                            BOOST_TEST(j["lang"].get<std::string>() == lang);
                            BOOST_TEST(!j["stages"].empty());
                        }
                        if (format == "text" && n % 2 == 0) BOOST_TEST(r.out.find('\x1b') == std::string::npos);
                    }
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(golden_text_of_every_lesson) {
    // tests/golden/lesson-NN.LANG.txt were read by eye before they were saved; regenerate them with
    // tests/golden/update.sh after a deliberate change and read the diff. Text and layout must match
    // exactly, numbers as numbers (support/golden.hpp: OpenBLAS's kernels round differently).
    // QKV_GOLDEN_SKIP names lessons not checked here, each said so in the test log: .ci/arm64 runs
    // this under qemu, where lesson 18 trains its model longer than run_qkv waits for a first line.
    std::set<int> skip;
    std::istringstream skip_list(std::getenv("QKV_GOLDEN_SKIP") ? std::getenv("QKV_GOLDEN_SKIP") : "");
    for (int n; skip_list >> n;) skip.insert(n);
    for (int n : lesson_numbers()) {
        if (skip.count(n)) {
            std::cout << "golden_text_of_every_lesson: lesson " << n << " not checked (QKV_GOLDEN_SKIP)" << std::endl;
            continue;
        }
        for (std::string lang : {"en", "zh"}) {
            const auto& r = run_lesson({"lesson", std::to_string(n), "--lang", lang, "--color", "never"}, {{"COLUMNS", "100"}});
            std::string path = "tests/golden/lesson-" + std::string(n < 10 ? "0" : "") + std::to_string(n) + "." + lang + ".txt";
            std::string golden = read_file(path);
            BOOST_TEST_CONTEXT(path) {
                BOOST_TEST(!golden.empty(), "missing golden file");
                const auto difference = qkv::test::golden_difference(r.out, golden);
                BOOST_TEST(!difference, path << ", " << difference.value_or(""));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(every_lesson_fits_80_columns) {
    // Prose is wrapped to the screen and tables elide columns: at COLUMNS=80 not one line of any
    // lesson, in either language, is wider than 80 display columns (CJK characters count two).
    for (int n : lesson_numbers()) {
        for (std::string lang : {"en", "zh"}) {
            auto r = run_qkv({"lesson", std::to_string(n), "--lang", lang, "--color", "never"}, "", {{"COLUMNS", "80"}});
            BOOST_TEST(r.status == 0);
            std::istringstream in(r.out);
            int number = 0;
            for (std::string line; std::getline(in, line);) {
                ++number;
                BOOST_TEST(qkv::display_width(line) <= 80u, "lesson " << n << " " << lang << " line " << number << ": " << line);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(no_stage_is_a_wall_of_numbers) {
    // Every stage of every lesson fits in 80 lines at 100 columns (many heads and recorded steps
    // are summarised), on its own scenario and on a 64-token sentence. A stage starts at its
    // "K/N  title" line; the lesson's closing lines after the last stage are not a stage.
    std::string sixty_four;
    for (int i = 1; i <= 64; ++i) sixty_four += (i > 1 ? " w" : "w") + std::to_string(i);
    for (int n : lesson_numbers()) {
        // a sentence of a few tokens too: a stack of h heads of n rows is not summarised, yet three
        // of them in one stage made lesson 8 95 lines tall on 8 tokens
        for (const std::vector<std::string>& extra :
             {std::vector<std::string>{}, {"--tokens", sixty_four}, {"--tokens", "the cat sat on the mat"},
              {"--tokens", "我 爱 北京 天安门"}, {"--tokens", "a b c d e f g h"}}) {
            if (!extra.empty() && lessons_with_own_data().count(n)) continue;
            for (std::string lang : {"en", "zh"}) {
                std::vector<std::string> args{"lesson", std::to_string(n), "--lang", lang, "--color", "never"};
                args.insert(args.end(), extra.begin(), extra.end());
                const auto& r = run_lesson(args, {{"COLUMNS", "100"}});
                if (r.status == 2) continue;  // a lesson that needs more tokens says so (tested elsewhere)
                std::istringstream in(r.out);
                std::string stage;
                std::size_t lines = 0;
                auto check = [&] {
                    if (!stage.empty()) BOOST_TEST(lines <= 80u, "lesson " << n << " " << lang << (extra.empty() ? "" : " (" + extra[1].substr(0, 20) + ")")
                                                                             << " stage " << stage << ": " << lines << " lines");
                };
                for (std::string line; std::getline(in, line);) {
                    auto slash = line.find('/');
                    bool starts = slash != std::string::npos && slash > 0 && slash < 3 && std::isdigit(static_cast<unsigned char>(line[0])) &&
                                  line.find("  ") != std::string::npos && line.find("  ") > slash;
                    if (starts) check(), stage = line.substr(0, line.find("  ")), lines = 0;
                    if (line.starts_with("Practise:") || line.starts_with("练一练") || line.starts_with("Next:") || line.starts_with("下一课"))
                        check(), stage.clear();
                    ++lines;
                }
                check();
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(colour_depth_is_what_the_terminal_announces) {
    auto with = [](std::vector<std::pair<std::string, std::string>> env) {
        return run_qkv({"lesson", "4", "--stage", "2", "--color", "always"}, "", env).out;
    };
    BOOST_TEST(with({{"COLORTERM", "truecolor"}, {"TERM", "xterm-256color"}}).find("\x1b[48;2;") != std::string::npos);
    std::string palette = with({{"COLORTERM", ""}, {"TERM", "xterm-256color"}});
    BOOST_TEST(palette.find("\x1b[48;5;") != std::string::npos);
    BOOST_TEST(palette.find("\x1b[48;2;") == std::string::npos);
    std::string console = with({{"COLORTERM", ""}, {"TERM", "linux"}});
    BOOST_TEST(console.find("\x1b[48;") == std::string::npos);
    BOOST_TEST(console.find("▒") != std::string::npos);
    auto dumb = run_qkv({"lesson", "4", "--stage", "2"}, "", {{"TERM", "dumb"}, {"NO_COLOR", ""}});
    BOOST_TEST(dumb.out.find('\x1b') == std::string::npos);
    // CLICOLOR_FORCE colours a pipe, over NO_COLOR; "0" forces nothing
    auto forced = run_qkv({"lesson", "4", "--stage", "2"}, "", {{"CLICOLOR_FORCE", "1"}, {"NO_COLOR", "1"}});
    BOOST_TEST(forced.out.find("\x1b[") != std::string::npos);
    auto zero = run_qkv({"lesson", "4", "--stage", "2"}, "", {{"CLICOLOR_FORCE", "0"}, {"NO_COLOR", ""}});
    BOOST_TEST(zero.out.find('\x1b') == std::string::npos);
    BOOST_TEST(run_qkv({"lesson", "4", "--stage", "2", "--color", "never"}, "", {{"CLICOLOR_FORCE", "1"}}).out.find('\x1b') ==
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(lesson_all_runs_every_lesson_in_order) {
    const auto& r = run_lesson({"lesson", "all", "--format", "json"});
    BOOST_TEST(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    BOOST_TEST(j.is_array());
    BOOST_TEST(j.size() == lesson_numbers().size());
    for (std::size_t i = 1; i < j.size(); ++i) BOOST_TEST(j[i]["lesson"].get<int>() > j[i - 1]["lesson"].get<int>());
}

BOOST_AUTO_TEST_CASE(stage_shows_one_stage_with_its_place) {
    auto r = run_qkv({"lesson", "3", "--stage", "2", "--format", "json"});
    BOOST_TEST(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    BOOST_TEST(j["stages"].size() == 1u);
    BOOST_TEST(j["stages"][0]["index"].get<int>() == 2);
    auto text = run_qkv({"lesson", "3", "--stage", "2"});
    BOOST_TEST(text.out.find("2/") != std::string::npos);
    expect_input_error({"lesson", "3", "--stage", "99"}, {"--stage 99", "stages 1–"});
}

BOOST_AUTO_TEST_CASE(stepping_through_standard_input) {
    // Stage headings look like "K/N  title"; the prompt line is "[K/N] keys".
    auto r = run_qkv({"lesson", "3", "--step"}, "n\nn\nb\ng 1\nq\nn\n");
    BOOST_TEST(r.status == 0);
    std::vector<std::size_t> at;
    for (std::size_t p = r.out.find("\n["); p != std::string::npos; p = r.out.find("\n[", p + 1)) {
        std::size_t digits = r.out.find_first_not_of("0123456789", p + 2);
        // a prompt, not a wrapped line of prose that starts with a shape such as "[3, 4]·[4, 3]"
        if (digits > p + 2 && digits < r.out.size() && r.out[digits] == '/') at.push_back(std::stoul(r.out.substr(p + 2)));
    }
    // shown: 1, then n → 2, n → 3, b → 2, g 1 → 1, q stops before the last n
    std::vector<std::size_t> expected{1, 2, 3, 2, 1};
    BOOST_TEST(at == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(stepping_ends_cleanly_at_end_of_input_and_past_the_end) {
    auto eof = run_qkv({"lesson", "1", "--step"}, "n\n");
    BOOST_TEST(eof.status == 0);
    BOOST_TEST(eof.err.empty());
    auto past = run_qkv({"lesson", "1", "--step", "--stage", "2"}, std::string(40, '\n'));
    BOOST_TEST(past.status == 0);
    BOOST_TEST(past.out.find("end of lesson") != std::string::npos);
    auto unknown = run_qkv({"lesson", "1", "--step"}, "x\ng 99\nq\n");
    BOOST_TEST(unknown.status == 0);
    BOOST_TEST(unknown.out.find("h for help") != std::string::npos);
    BOOST_TEST(unknown.out.find("no such stage") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(unknown_lessons_and_options) {
    expect_input_error({"lesson", "42"}, {"no lesson '42'", "qkv list", "did you mean"});
    expect_input_error({"lesson", "sofmax"}, {"did you mean 'softmax'"});
    expect_input_error({"lesson"}, {"which lesson"});
    expect_input_error({"lesson", "1", "--colour", "never"}, {"colour"});
    expect_input_error({"lesson", "1", "--format", "pdf"}, {"--format", "pdf"});
    expect_input_error({"lesson", "1", "--lang", "fr"}, {"--lang", "fr"});
    expect_input_error({"lesson", "1", "--precision", "-1"}, {"--precision"});
    expect_input_error({"lesosn", "1"}, {"unknown command", "did you mean 'lesson'"});
}

BOOST_AUTO_TEST_CASE(bad_scenarios_name_file_and_line) {
    const std::string dir = "tests/data/bad/";
    expect_input_error({"lesson", "1", "--data", dir + "missing.toml"}, {"missing.toml", "not found"});
    expect_input_error({"lesson", "1", "--data", dir + "malformed.toml"}, {"malformed.toml:3"});
    expect_input_error({"lesson", "1", "--data", dir + "ragged.toml"}, {"ragged.toml:6", "ragged"});
    expect_input_error({"lesson", "1", "--data", dir + "not-number.toml"}, {"not-number.toml:4", "expected a number"});
    expect_input_error({"lesson", "1", "--data", dir + "nan.toml"}, {"nan.toml:4", "NaN"});
    expect_input_error({"lesson", "1", "--data", dir + "inf.toml"}, {"inf.toml:4", "Inf"});
    expect_input_error({"lesson", "8", "--data", dir + "heads.toml"}, {"heads.toml", "heads (3) must divide d_model (4)"});
    expect_input_error({"lesson", "2", "--data", dir + "only-x.toml"}, {"only-x.toml", "W_Q"});
    expect_input_error({"lesson", "2", "--data", dir + "wrong-shape.toml"}, {"wrong-shape.toml:5", "[3, 3]", "[2, 2]"});
    expect_input_error({"lesson", "1", "--data", dir + "csv-ragged.toml"}, {"ragged.csv:2", "ragged"});
    expect_input_error({"lesson", "1", "--data", dir + "csv-text.toml"}, {"text.csv:3", "'abc' is not a number"});
    expect_input_error({"lesson", "1", "--data", dir + "csv-nan.toml"}, {"nan.csv:2", "NaN"});
}

BOOST_AUTO_TEST_CASE(a_csv_scenario_runs) {
    // X = [[1, 2], [3, 4]]: X·Xᵀ = [[1+4, 3+8], [3+8, 9+16]] = [[5, 11], [11, 25]].
    auto r = run_qkv({"lesson", "1", "--data", "tests/data/bad/csv-good.toml", "--format", "json"});
    BOOST_TEST(r.status == 0, r.err);
    auto j = nlohmann::json::parse(r.out);
    bool found = false;
    for (auto& st : j["stages"])
        for (auto& v : st["values"])
            if (v["name"] == "S" && !found) {
                found = true;
                BOOST_TEST(v["data"][0][0].get<double>() == 5.0);
                BOOST_TEST(v["data"][0][1].get<double>() == 11.0);
                BOOST_TEST(v["data"][1][1].get<double>() == 25.0);
            }
    BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(bad_lessons_name_file_line_stage_and_shapes) {
    std::vector<std::pair<std::string, std::string>> env{{"QKV_LESSONS", "tests/data/bad/lessons"}};
    expect_input_error({"lesson", "1"}, {"01-mismatch.toml:8", "stage 'bad-product'", "X @ X[1]", "[2, 2]", "[1, 2]"}, env);
    expect_input_error({"lesson", "2"}, {"02-syntax.toml:7:31", "')'"}, env);
}
