// The rules of lesson, scenario, exercise and answer-sheet files, each held twice: what `qkv
// validate` reports (status 1, the problem at its file:line) is what running refuses later
// (status 2, one line on stderr at the same file:line), never "ok" first and a failure after.
#define BOOST_TEST_MODULE content_rules
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "support/cli_suite.hpp"
#include "support/text.hpp"

using qkv::test::count_lines;
using qkv::test::has;

namespace {

// The line (from 1) on which `piece` first stands in `text`.
std::size_t line_of(const std::string& text, const std::string& piece) {
    const auto at = text.find(piece);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "lacks: " << piece);
    return count_lines(text.substr(0, at)) + 1;
}

// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, "lacks: " << from);
    return text.replace(at, from.size(), to);
}

// A refusal: status 2, nothing on stdout, exactly one line on stderr, and that line.
void refused(const qkv::test::run_result& r, const std::string& line) {
    BOOST_TEST(r.status == 2, r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(r.err == line + "\n");
}

// What validate says of one bad file: status 1, the problem's line (without "qkv: ") and the tally.
void validate_finds(const std::string& file, const std::string& line) {
    auto r = run_qkv({"validate", file});
    BOOST_TEST(r.status == 1, r.out << r.err);
    BOOST_TEST(r.out == line + "\n1 problem in 1 of 1 file\n");
}

const std::string tokens3 = "name = \"t\"\ntokens = [\"a\", \"b\", \"c\"]\n";

}  // namespace

BOOST_AUTO_TEST_CASE(a_projection_that_is_not_d_model_square_is_refused_by_the_scenario) {
    qkv::test::scratch_dir d{"rules"};
    const std::string x = "[matrices]\nX = { randn = [3, 4], seed = 1 }\n";
    const std::string wo = (d / "wo.toml").string(), wv = (d / "wv.toml").string();
    write_file(wo, tokens3 + x + "W_O = { randn = [3, 4], seed = 1 }\n");
    write_file(wv, tokens3 + x + "W_V = { randn = [4, 6], seed = 1 }\n");
    const std::string wo_line = wo + ":5:7: W_O is [3, 4] but X is [3, 4]: W_O must be [d_model, d_model] = [4, 4]";
    validate_finds(wo, wo_line);
    refused(run_qkv({"lesson", "8", "--data", wo}), "qkv: " + wo_line);  // not the lesson file blamed
    const std::string wv_line = wv + ":5:7: W_V is [4, 6] but X is [3, 4]: W_V must be [d_model, d_model] = [4, 4]";
    validate_finds(wv, wv_line);
    refused(run_qkv({"lesson", "6", "--data", wv}), "qkv: " + wv_line);
}

BOOST_AUTO_TEST_CASE(scenario_keys_of_the_wrong_type_are_named_at_their_line) {
    qkv::test::scratch_dir d{"rules"};
    const std::string x = "[matrices]\nX = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]\n";
    struct bad {
        std::string file, text, line;
    };
    const std::vector<bad> cases = {
        {"heads.toml", "tokens = [\"a\", \"b\"]\nheads = 3\n" + x, ":2:9: heads (3) must divide d_model (4)"},
        {"tokens.toml", "tokens = \"abc\"\n" + x, ":1:10: tokens must be an array of strings (one per row of X), not a string"},
        {"matrices.toml", "tokens = [\"a\", \"b\"]\nmatrices = [1, 2]\n", ":2:12: matrices must be a table ([matrices], then X = …), not an array"},
        {"name.toml", "name = 5\ntokens = [\"a\", \"b\"]\n" + x, ":1:8: name must be a string, not an integer"},
    };
    for (const bad& c : cases) {
        const std::string file = (d / c.file).string();
        write_file(file, c.text);
        BOOST_TEST_CONTEXT(c.file) {
            validate_finds(file, file + c.line);
            refused(run_qkv({"lesson", "3", "--data", file}), "qkv: " + file + c.line);
        }
    }
}

BOOST_AUTO_TEST_CASE(two_lesson_files_may_not_share_a_number) {
    qkv::test::scratch_dir d{"rules"};
    const std::string lesson = replaced(read_file("lessons/01-simplified.toml"), "\nnumber = 1\n", "\nnumber = 90\n");
    write_file(d / "L" / "90-ok.toml", lesson);
    write_file(d / "L" / "91-dup.toml", lesson);
    const std::string first = (d / "L" / "90-ok.toml").string(), second = (d / "L" / "91-dup.toml").string();
    const std::string line = second + ":" + std::to_string(line_of(lesson, "\nnumber = 90\n") + 1) +
                             ":10: lesson number 90 is also used by " + first + " (two lesson files may not share one)";
    // validate names the second, given both or only it; the first is fine
    auto both = run_qkv({"validate", first, second});
    BOOST_TEST(both.status == 1);
    BOOST_TEST(has(both.out, first + ": ok ("), both.out);
    BOOST_TEST(has(both.out, line + "\n1 problem in 1 of 2 files\n"), both.out);
    validate_finds(second, line);
    // the lesson set is refused whole: no list with two lessons 90, no lesson 91 that says 90
    const std::vector<std::pair<std::string, std::string>> env{{"QKV_LESSONS", (d / "L").string()}};
    refused(run_qkv({"list"}, "", env), "qkv: " + line);
    refused(run_qkv({"lesson", "91"}, "", env), "qkv: " + line);
}

BOOST_AUTO_TEST_CASE(exercise_files_are_refused_by_validate_as_they_would_be_at_run_time) {
    qkv::test::scratch_dir d{"rules"};
    const std::string three = read_file("lessons/exercises/03.toml");
    const std::string dup = replaced(three, "id = \"3.2\"", "id = \"3.1\"");
    const std::string shows = replaced(three, "shows = [\"Q\", \"K\"]", "shows = [\"Q\", \"ZZ\"]");
    const std::string inf = replaced(three, "tolerance = 0.01", "tolerance = inf");
    const std::size_t id_line = line_of(three, "id = \"3.2\""), shows_line = line_of(three, "shows = [\"Q\", \"K\"]"),
                      tolerance_line = line_of(three, "tolerance = 0.01");
    // Each in a folder of its own, beside the real mistake book: validated, then run.
    struct bad {
        std::string name, text, line;
    };
    const std::vector<bad> cases = {
        {"dup", dup, std::to_string(id_line) + ":6: exercise id '3.1' is used twice"},
        {"shows", shows, std::to_string(shows_line) + ":15: exercise 3.2 shows 'ZZ', which neither the lesson nor the setup computes"},
        {"inf", inf, std::to_string(tolerance_line) + ":13: exercise 3.2: tolerance must be a finite number ≥ 0"},
    };
    for (const bad& c : cases) {
        const fs::path dir = d / c.name, file = dir / "03.toml";
        write_file(file, c.text);
        write_file(dir / "mistakes.toml", read_file("lessons/exercises/mistakes.toml"));
        const std::string line = file.string() + ":" + c.line;
        BOOST_TEST_CONTEXT(c.name) {
            validate_finds(file.string(), line);
            refused(run_qkv({"exercise", "3.2"}, "", {{"QKV_EXERCISES", dir.string()}}), "qkv: " + line);
        }
    }
}

BOOST_AUTO_TEST_CASE(axes_and_token_rows_name_values_the_lesson_has) {
    qkv::test::scratch_dir d{"rules"};
    const std::string scores = read_file("lessons/03-scores.toml");
    const std::string axes = "axes = { Q = [\"tokens\", \"features\"], K = [\"tokens\", \"features\"] }";
    const std::size_t axes_line = line_of(scores, axes), number_line = line_of(scores, "\nnumber = 3\n") + 1;
    struct bad {
        std::string file, text, line;
    };
    const std::vector<bad> cases = {
        {"stack-words.toml", replaced(scores, axes, "axes = { Q = [\"heads\", \"foo\", \"bar\"] }"),
         std::to_string(axes_line) + ":14: lesson 3, stage 'recap': axes.Q: three words describe a stack, but Q is [3, 4], "
                                     "a matrix: give [\"rows\", \"columns\"]"},
        {"unknown-axes.toml", replaced(scores, axes, "axes = { ZZ = [\"foo\", \"bar\"] }"),
         std::to_string(axes_line) + ":15: lesson 3, stage 'recap': axes.ZZ: no formula up to here assigns 'ZZ' and the "
                                     "scenario has no such matrix"},
        {"token-rows.toml", replaced(scores, "\nnumber = 3\n", "\nnumber = 3\ntoken_rows = [\"ZZ\"]\n"),
         std::to_string(number_line + 1) + ":15: lesson 3: token_rows names 'ZZ', which neither the scenario nor any formula "
                                           "of the lesson gives"},
    };
    for (const bad& c : cases) {
        const std::string file = (d / c.file).string();
        write_file(file, c.text);
        BOOST_TEST_CONTEXT(c.file) {
            validate_finds(file, file + ":" + c.line);
            refused(run_qkv({"run", file}), "qkv: " + file + ":" + c.line);
        }
    }
}

BOOST_AUTO_TEST_CASE(an_answer_sheet_is_refused_in_a_teachers_words) {
    qkv::test::scratch_dir d{"rules"};
    const std::string twice = (d / "s.toml").string();
    write_file(twice, "\"3.1\" = \"1\"\n\"3.1\" = \"2\"\n");
    refused(run_qkv({"grade", twice}), "qkv: " + twice + ":2:1: answer \"3.1\" is given twice");
    // a lesson without exercises grades nothing: a usage error, as for `qkv exercises`
    const std::string sheet = (d / "ok.toml").string();
    write_file(sheet, "\"3.1\" = \"(100, 100)\"\n");
    refused(run_qkv({"grade", sheet, "--lesson", "99"}), "qkv grade: lesson 99 has no exercises; qkv exercises lists them all");
}
