// What qkv prints fits the terminal's width. Entries near 3e38, a 300-character
// token, emoji, an exercise's long question and bench's explanation all stay within COLUMNS=80, and
// a table's rows stay in line. Widths are measured here on their own (code points, two columns for
// the CJK and emoji blocks the inputs use), not with qkv's display_width.
#define BOOST_TEST_MODULE width
#include <boost/test/unit_test.hpp>

#include <regex>
#include <string>
#include <vector>

#include "support/cli_suite.hpp"
#include "support/columns.hpp"
#include "support/text.hpp"

using qkv::test::lines_of;

namespace {

using qkv::test::columns;

// The widest line and its text, for the failure message.
std::pair<std::size_t, std::string> widest(const std::string& text) {
    std::pair<std::size_t, std::string> w{0, ""};
    for (const std::string& line : lines_of(text))
        if (columns(line) > w.first) w = {columns(line), line.substr(0, 120)};
    return w;
}

const std::vector<std::pair<std::string, std::string>> at_80{{"COLUMNS", "80"}};

// The apple scenario with X drawn at scale 1e38 (entries up to about 3e38, all finite) and its
// first token `first`.
std::string huge_scenario(const std::string& first) {
    return "name = \"huge\"\ntokens = [\"" + first + "\", \"很\", \"甜\"]\nheads = 2\n[matrices]\n"
           "X = { randn = [3, 4], seed = 1, scale = 1e38 }\n"
           "W_Q = { randn = [4, 4], seed = 2 }\nW_K = { randn = [4, 4], seed = 3 }\nW_V = { randn = [4, 4], seed = 4 }\n"
           "W_O = { randn = [4, 4], seed = 5 }\n";
}

}  // namespace

// Before: 189-column rows for 1e38 entries ("188439608321510903058104882775604592640.0000"), 628
// for a 300-character token. Every lesson that runs on the scenario must fit 80 columns.
BOOST_AUTO_TEST_CASE(huge_entries_and_a_300_character_token_fit_80_columns) {
    qkv::test::scratch_dir dir{"width-huge"};
    write_file(dir / "big.toml", huge_scenario("苹果"));
    write_file(dir / "long.toml", huge_scenario(std::string(300, 'x')));
    for (const char* file : {"big.toml", "long.toml"})
        for (const char* lesson : {"1", "2", "3", "5", "6", "8"}) {
            auto r = run_qkv({"lesson", lesson, "--data", (dir / file).string()}, "", at_80);
            BOOST_TEST_CONTEXT(file << " lesson " << lesson) {
                BOOST_TEST_REQUIRE(r.status == 0, r.err);
                auto [w, line] = widest(r.out);
                BOOST_TEST(w <= 80u, w << " columns: " << line);
            }
        }
    // the numbers are still there, in scientific form: X[1, 1] is some d.dddde+37 or e+38
    auto r = run_qkv({"lesson", "1", "--data", (dir / "big.toml").string()}, "", at_80);
    BOOST_TEST(std::regex_search(r.out, std::regex(R"(\d\.\d{4}e\+3[78])")), r.out.substr(0, 2000));
}

// Before: 🚀 ⭐ ⚡ 🀄 counted one column each, so their rows stood one column left of the header's.
// In each table every row is as wide as the one under the header (all right-aligned cells).
BOOST_AUTO_TEST_CASE(emoji_tokens_keep_a_table_in_line) {
    auto r = run_qkv({"lesson", "3", "--tokens", "🚀 ⭐ ⚡ 🀄", "--stage", "1"}, "", at_80);
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    const std::vector<std::string> lines = lines_of(r.out);
    std::size_t tables = 0;
    for (std::size_t i = 0; i + 5 < lines.size(); ++i) {
        if (lines[i].rfind("Q  [4, 4]", 0) != 0 && lines[i].rfind("K  [4, 4]", 0) != 0) continue;
        ++tables;  // then the column header and the four rows, 🚀 ⭐ ⚡ 🀄
        const std::size_t w = columns(lines[i + 1]);
        for (std::size_t k = 2; k <= 5; ++k) BOOST_TEST(columns(lines[i + k]) == w, lines[i + 1] << "\n" << lines[i + k]);
    }
    BOOST_TEST(tables >= 2u, r.out);
}

// Before: exercise 8.4's question was one 163-column line. Wrapped, its words stay in order.
BOOST_AUTO_TEST_CASE(an_exercise_question_wraps_to_the_terminal) {
    qkv::test::scratch_dir dir{"width-exercise"};
    std::vector<std::pair<std::string, std::string>> env = at_80;
    env.push_back({"XDG_STATE_HOME", dir.path.string()});
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"exercise", "8.4"}, {"hint", "8.4"}, {"solution", "8.4"}, {"check", "8.4", "0"}}) {
        auto r = run_qkv(args, "", env);
        BOOST_TEST_CONTEXT(args[0]) {
            BOOST_TEST_REQUIRE((r.status == 0 || (args[0] == "check" && r.status == 1)), r.err);
            auto [w, line] = widest(r.out);
            BOOST_TEST(w <= 80u, w << " columns: " << line);
        }
    }
    auto r = run_qkv({"exercise", "8.4"}, "", env);
    std::string joined;  // the lines joined again with spaces
    for (const std::string& line : lines_of(r.out)) joined += line + " ";
    BOOST_TEST(joined.find("Below are each head's raw scores. In head 1, what is the score of “Thinking” for “Machines” "
                           "after scaling?") != std::string::npos,
               r.out);
}

// Before: bench's explanation was one 741-column line, its header 91 and its chart's axis 84.
BOOST_AUTO_TEST_CASE(bench_wraps_its_explanation_to_the_terminal) {
    auto r = run_qkv({"bench", "--n", "64,128", "--impl", "fused"}, "", at_80);
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    auto [w, line] = widest(r.out);
    BOOST_TEST(w <= 80u, w << " columns: " << line);
    BOOST_TEST(r.out.find("online softmax") != std::string::npos);
    auto narrow = run_qkv({"bench", "--n", "64,128", "--impl", "fused"}, "", {{"COLUMNS", "60"}});
    auto [w60, line60] = widest(narrow.out);
    BOOST_TEST(w60 <= 74u, w60 << " columns: " << line60);  // the table itself is 74 columns and stays whole
    // bench --backward (its explanation was one 407-column line)
    auto backward = run_qkv({"bench", "--backward", "--n", "64,128"}, "", at_80);
    BOOST_TEST_REQUIRE(backward.status == 0, backward.err);
    auto [wb, lineb] = widest(backward.out);
    BOOST_TEST(wb <= 80u, wb << " columns: " << lineb);
}

// The siblings found: qkv list (a 114-column title line), exercises (headings of 99, question
// lines of 83), progress and next (a 92-column "where you are" line), formulas (343), and an
// exercise's "Answer:" line (82) all fit 80 columns now.
BOOST_AUTO_TEST_CASE(listings_and_the_formula_table_fit_80_columns) {
    qkv::test::scratch_dir dir{"width-listings"};
    std::vector<std::pair<std::string, std::string>> env = at_80;
    env.push_back({"XDG_STATE_HOME", dir.path.string()});
    BOOST_REQUIRE(run_qkv({"check", "3.2", "1"}, "", env).status == 1);  // "wrong", and a learner who returns
    for (const std::vector<std::string>& args : {std::vector<std::string>{"list"}, {"exercises"}, {"progress"}, {"next"},
                                                 {"formulas"}, {"exercise", "0.1"}, {}}) {
        auto r = run_qkv(args, "", env);
        BOOST_TEST_CONTEXT((args.empty() ? "qkv" : args[0])) {
            BOOST_TEST_REQUIRE(r.status == 0, r.err);
            auto [w, line] = widest(r.out);
            BOOST_TEST(w <= 80u, w << " columns: " << line);
        }
    }
    // what is cut says so: the list's long titles end in "…"
    BOOST_TEST(run_qkv({"list"}, "", env).out.find("…  (") != std::string::npos);
}
