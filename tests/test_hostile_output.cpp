// Issue 43, output that carries what it should not: a lesson's title in `qkv list --format markdown`,
// a token in a Markdown table, a file name in `qkv validate`, a formula in a grade's CSV, a 100 kB
// answer key in a grade's report, a training report wider than the screen, and a check recorded by
// every rank under mpirun.
#define BOOST_TEST_MODULE hostile_output
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "support/cli_suite.hpp"
#include "support/columns.hpp"

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
std::size_t widest_line(const std::string& text) {
    std::size_t w = 0;
    for (std::size_t at = 0, end; at < text.size(); at = end + 1)
        w = std::max(w, qkv::test::columns(text.substr(at, (end = std::min(text.find('\n', at), text.size())) - at)));
    return w;
}
std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// `s` inside a TOML basic string.
std::string toml_escaped(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

const std::string hostile_title = "<script>alert(1)</script> | x [a](javascript:alert(1))";

// A lessons folder of one lesson, whose title and stage text are `title` and `text`.
void one_lesson(const fs::path& dir, const std::string& title, const std::string& text = "a") {
    write_file(dir / "50-evil.toml", fmt::format("number = 50\ntitle = {{ zh = '{0}', en = '{0}' }}\n[[stage]]\nid = \"a\"\n"
                                                 "title = {{ zh = \"a\", en = \"a\" }}\nformula = \"Y = X\"\n"
                                                 "text = {{ zh = \"a\", en = '''\n{1}''' }}\n",
                                                 title, text));
}

// A raw control byte: ESC, BEL, or any other below 0x20 but the line end.
bool has_raw_control(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7F; });
}

}  // namespace

// `qkv list --format markdown` printed titles raw: <script>, a link to javascript: and a '|' that
// added a column. Escaped now as `run --format markdown` escapes the same title.
BOOST_AUTO_TEST_CASE(list_in_markdown_escapes_a_title) {
    qkv::test::scratch_dir dir{"output-list"};
    one_lesson(dir.path, hostile_title);
    auto r = run_qkv({"list", "--format", "markdown"}, "", {{"QKV_LESSONS", dir.path.string()}});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.out == "| # | name | title | stages |\n|---|---|---|---|\n"
                        "| 50 | evil | &lt;script&gt;alert(1)&lt;/script&gt; \\| x \\[a\\](javascript:alert(1)) | 1 |\n",
               r.out);
}

// A token in a Markdown table of a lesson's own prose: a Git host splits the row at every '|' before
// it reads a code span, so "<script>alert(1)</script>|a" as `…` ended the cell inside the span and
// the tag went through raw. The '|' is escaped in the span.
BOOST_AUTO_TEST_CASE(a_token_in_a_markdown_table_cannot_end_its_cell) {
    qkv::test::scratch_dir dir{"output-table"};
    one_lesson(dir.path, "t", "| first | token |\n| --- | --- |\n| one | {token(1)} |\n");
    auto r = run_qkv({"lesson", "50", "--tokens", "<script>alert(1)</script>|a b", "--format", "markdown"}, "",
                     {{"QKV_LESSONS", dir.path.string()}});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(has(r.out, "| one | `<script>alert(1)</script>\\|a` |\n"), r.out);
    BOOST_TEST(!has(r.out, "`<script>alert(1)</script>|a`"), r.out);
}

// `qkv validate` echoed a file name with ESC and BEL raw, on a good file and a missing one.
BOOST_AUTO_TEST_CASE(validate_shows_a_file_name_escaped) {
    qkv::test::scratch_dir dir{"output-validate"};
    one_lesson(dir.path, "t");
    const fs::path odd = dir / "x\x1b[31mred\x07.toml";
    fs::copy_file(dir / "50-evil.toml", odd);
    for (const fs::path& p : {odd, dir / "gone\x1b[2J.toml"}) {
        auto r = run_qkv({"validate", p.string()});
        BOOST_TEST(!has_raw_control(r.out + r.err), r.out + r.err);
        BOOST_TEST(has(r.out + r.err, "\\x1b"), r.out + r.err);
    }
}

// Student names such as =HYPERLINK(…) and +cmd… were written unchanged in `qkv grade --format csv`:
// a spreadsheet would run them. A cell starting with =, +, - or @ is quoted behind a '.
BOOST_AUTO_TEST_CASE(a_grade_in_csv_quotes_formula_cells) {
    qkv::test::scratch_dir dir{"output-csv"};
    const std::string names[] = {"=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "ann"};
    for (std::size_t i = 0; i < std::size(names); ++i)
        write_file(dir / fmt::format("s{}.toml", i), fmt::format("student = \"{}\"\n\"3.1\" = \"0.25\"\n", toml_escaped(names[i])));
    auto r = run_qkv({"grade", dir.path.string(), "--format", "csv"});
    BOOST_TEST((r.status == 0 || r.status == 1), r.err);
    BOOST_TEST(has(r.out, "\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","), r.out);
    BOOST_TEST(has(r.out, "\n\"'+cmd|' /C calc'!A0\","), r.out);
    BOOST_TEST(has(r.out, "\n\"'-2+3\","), r.out);
    BOOST_TEST(has(r.out, "\n\"'@SUM(A1)\","), r.out);
    BOOST_TEST(has(r.out, "\nann,"), r.out);
    for (const char* c : {"\n=", "\n+", "\n-", "\n@"}) BOOST_TEST(!has(r.out, c), r.out);
}

// A 100 kB answer key in a grade sheet printed a 100 kB line (status 1, nothing on standard error).
// Graded: the other answers count, and the key is named in one clipped line, in text and JSON.
BOOST_AUTO_TEST_CASE(a_100_kb_answer_key_is_named_in_one_clipped_line) {
    qkv::test::scratch_dir dir{"output-key"};
    write_file(dir / "s.toml", "\"3.1\" = \"0.25\"\n\"" + std::string(100'000, 'x') + "\" = \"1\"\n");
    write_file(dir / "t.toml", "\"3.1\" = \"0.5\"\n");
    for (const std::vector<std::string>& sheets : {std::vector<std::string>{"s.toml"}, std::vector<std::string>{"s.toml", "t.toml"}})
        for (const char* form : {"text", "json"}) {
            std::vector<std::string> args{"grade", "--format", form};
            for (const std::string& s : sheets) args.push_back((dir / s).string());
            auto r = run_qkv(args);
            BOOST_TEST(r.status == 1, r.err);
            std::size_t longest = 0;
            for (std::size_t at = 0, end; at < r.out.size(); at = end + 1)
                longest = std::max(longest, (end = std::min(r.out.find('\n', at), r.out.size())) - at);
            BOOST_TEST(longest < 400u, form);
            BOOST_TEST(has(r.out, "xxxx…(100002 bytes)"), r.out.substr(0, 3000));  // the key and its quotes
        }
}

// At 80 columns, qkv train drew every head as seq × seq cells: seq 200 gave lines of 206 columns.
// A panel wider than the screen draws each character for a block of weights, its largest.
BOOST_AUTO_TEST_CASE(the_training_report_fits_80_columns_at_any_seq) {
    auto r = run_qkv({"train", "--seq", "200", "--vocab", "300", "--d-model", "4", "--heads", "1", "--layers", "1", "--batch", "1",
                      "--steps", "2"},
                     "", {{"COLUMNS", "80"}});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(widest_line(r.out) <= 80u, r.out.substr(0, 4000));
    BOOST_TEST(has(r.out, "each cell the largest of 3 × 3 weights"), r.out.substr(0, 4000));
    BOOST_TEST(count_lines(r.out) < 400u);  // three checkpoints of 67 rows, not of 200
}

// Under mpirun every rank runs the command (`mpirun -np 2 qkv check` recorded two attempts): rank 0 records, and a process that is another rank
// says the verdict and leaves progress alone (test_ranks runs it under a real mpirun).
BOOST_AUTO_TEST_CASE(a_rank_other_than_0_records_nothing) {
    qkv::test::scratch_dir dir{"output-rank"};
    auto r = run_qkv({"check", "3.2", "0.25"}, "", {{"XDG_STATE_HOME", dir.path.string()}, {"OMPI_COMM_WORLD_RANK", "1"}});
    BOOST_TEST((r.status == 0 || r.status == 1), r.err);
    BOOST_TEST(!r.out.empty());
    BOOST_TEST(!fs::exists(dir / "qkv" / "progress.json"));
    auto first = run_qkv({"check", "3.2", "0.25"}, "", {{"XDG_STATE_HOME", dir.path.string()}, {"OMPI_COMM_WORLD_RANK", "0"}});
    BOOST_TEST(fs::exists(dir / "qkv" / "progress.json"));
}
