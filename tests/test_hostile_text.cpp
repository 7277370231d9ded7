// Hostile text: text that would drive the terminal or a reader (controls in tokens, names and
// paths, a name that is not UTF-8, Markdown in a token), and numbers and arguments out of their
// range. Every case runs in a scratch folder of its own.
#define BOOST_TEST_MODULE hostile_text
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"

namespace {

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

namespace {

// A raw control byte (C0 but line end, DEL) or a C1 or bidi control in UTF-8: what would drive a
// terminal, and what TOML forbids in a comment.
bool has_raw_control(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7F) return true;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return true;
        if (s.compare(i, 3, "\u202e") == 0) return true;
    }
    return false;
}

}  // namespace

// Item 8: the header comment of `qkv scenario` kept the sentence raw, so tokens with ESC and BEL
// made a file that --data refused (TOML forbids controls in comments) and, without -o, drove the
// terminal. Now the comment is a shell command ($'…') that makes the same file again, the strings
// escape every control, and what is written reads back.
BOOST_AUTO_TEST_CASE(a_scenario_with_control_characters_in_its_tokens_reads_back) {
    qkv::test::scratch_dir dir{"hostile-scenario"};
    const std::string sentence = "a\x1b]0;X\x07" "b c\\d e'f \xe2\x80\xaeg h\xc2\x90i";  // U+0090 (DCS), a C1 control
    const fs::path file = dir / "s.toml";
    auto w = run_qkv({"scenario", "--tokens", sentence, "-o", file.string()});
    BOOST_TEST_REQUIRE(w.status == 0, w.err);
    const std::string text = read_file(file);
    BOOST_TEST(!has_raw_control(text));
    BOOST_TEST(has(text, "# qkv scenario --tokens $'a\\x1b]0;X\\x07b c\\\\d e\\'f \\u202eg h\\u0090i'"), text.substr(0, 200));
    BOOST_TEST(has(text, R"(tokens = ["a\u001B]0;X\u0007b", "c\\d", "e'f", "\u202Eg", "h\u0090i"])"));
    auto r = run_qkv({"lesson", "1", "--data", file.string(), "--format", "json"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    auto tokens = nlohmann::json::parse(r.out)["stages"][0]["values"][0]["row_labels"];  // X's rows: the tokens
    BOOST_TEST(tokens.size() == 5u);
    if (tokens.size() == 5u) BOOST_TEST(tokens[0].get<std::string>() == "a\x1b]0;X\x07" "b");  // the token itself, as typed
    auto v = run_qkv({"validate", file.string()});
    BOOST_TEST(!has(v.out, "TOML"), v.out);
    // on standard output: nothing raw reaches the terminal
    auto shown = run_qkv({"scenario", "--tokens", sentence});
    BOOST_TEST(shown.status == 0);
    BOOST_TEST(!has_raw_control(shown.out));
    BOOST_TEST(shown.out == text);
    // the comment, run by a shell, makes the same file
    if (fs::exists("/bin/bash")) {
        const std::string comment = text.substr(2, text.find('\n') - 2);  // "qkv scenario …"
        write_file(dir / "again.sh", "\"$QKV_BIN\"" + comment.substr(3) + " > \"$1\"\n");
        BOOST_TEST(std::system(("/bin/bash '" + (dir / "again.sh").string() + "' '" + (dir / "again.toml").string() + "'").c_str()) == 0);
        BOOST_TEST(read_file(dir / "again.toml") == text);
    } else {
        BOOST_TEST_MESSAGE("no /bin/bash: the comment is not run again");
    }
}

// Item 9: a path qkv cannot even ask about (a part over 255 bytes, controls in it) gave the raw
// std::filesystem text, "filesystem error: status: File name too long [...]", with the bytes raw
// and unclipped, naming neither the file that gave the path nor its line. Every such path is now
// qkv's own one line: escaped, clipped, and at the place that named it.
BOOST_AUTO_TEST_CASE(a_path_too_long_or_with_controls_is_named_where_it_came_from) {
    qkv::test::scratch_dir dir{"hostile-path"};
    const std::string long_part(300, 'b'), evil = "a\\u001b[2J" + std::string(5000, 'a');
    write_file(dir / "s.toml", "name = \"s\"\ntokens = [\"a\", \"b\"]\n[matrices]\nX = \"" + long_part + ".csv\"\n");
    std::string one = read_file("lessons/01-simplified.toml");
    BOOST_REQUIRE(has(one, "number = 1\n"));
    auto with_scenario = [&](const std::string& name) {
        std::string text = one;
        return text.replace(text.find("number = 1\n"), 11, "number = 1\nscenario = \"" + name + ".toml\"\n");
    };
    write_file(dir / "01-long.toml", with_scenario(long_part));
    write_file(dir / "01-evil.toml", with_scenario(evil));
    struct path_case {
        std::vector<std::string> args;
        std::string where;  // the file and line that gave the path
    };
    const std::vector<path_case> cases = {
        {{"lesson", "1", "--data", (dir / "s.toml").string()}, "s.toml:4:5: matrix X"},
        {{"run", (dir / "01-long.toml").string()}, "01-long.toml:3:12: scenario"},
        {{"run", (dir / "01-evil.toml").string()}, "01-evil.toml:3:12: scenario"},
        {{"lesson", "1", "--data", (dir / long_part).string()}, "scenario file: a name too long"},
        {{"grade", (dir / long_part).string()}, "answer sheet: a name too long"},
        {{"check", "3.3", "--file", (dir / long_part).string()}, "answer file: a name too long"},
    };
    for (const auto& c : cases) {
        auto r = run_qkv(c.args);
        BOOST_TEST_CONTEXT(c.args[0] << " " << c.args[1] << " → " << r.err.substr(0, 300)) {
            BOOST_TEST(r.status == 2);
            BOOST_TEST(count_lines(r.err) == 1u);
            BOOST_TEST(r.err.size() < 800u);  // the 5 000-byte name is clipped
            BOOST_TEST(!has(r.err, "filesystem error"));
            BOOST_TEST(!has_raw_control(r.err));
            BOOST_TEST(has(r.err, c.where));
        }
    }
    auto v = run_qkv({"validate", (dir / "01-evil.toml").string()});
    BOOST_TEST(has(v.out, "01-evil.toml:3:12: scenario"), v.out.substr(0, 400));
    BOOST_TEST(!has_raw_control(v.out));
}

// Items 10 and 11: names are the user's as much as file contents are. A student's name with ESC
// and a sheet file named in Latin-1 (\xff) are escaped in every format of grade, CSV cells too, and
// JSON no longer throws type_error 316 on the name (one such file lost a whole class's grades); a
// lesson file named with ESC in qkv list; XDG_STATE_HOME with ESC in qkv progress; and validate
// names a control in the mistake book.
BOOST_AUTO_TEST_CASE(names_with_controls_or_not_utf8_are_shown_escaped_in_every_format) {
    qkv::test::scratch_dir dir{"hostile-names"};
    const fs::path sheets = dir / "sheets";
    write_file(sheets / "s\xff.toml", "\"3.1\" = \"(100, 100)\"\nstudent = \"ev\\u001b[2Jil, \\\"x\\\"\"\n");
    write_file(sheets / "b.toml", "\"3.1\" = \"(100, 100)\"\n");
    const std::vector<std::pair<std::string, std::string>> env{{"XDG_STATE_HOME", (dir / "state").string()}};
    for (const char* format : {"text", "json", "csv"}) {
        auto r = run_qkv({"grade", sheets.string(), "--format", format}, "", env);
        BOOST_TEST_CONTEXT("grade --format " << format << " → " << r.err) {
            BOOST_TEST(r.status == 1);  // graded: 1 because 3.2-3.4 are not answered
            BOOST_TEST(!has_raw_control(r.out));
            if (std::string(format) != "text")  // a class in text lists students, not files
                BOOST_TEST(has(r.out, std::string(format) == "json" ? "s\\\\xff.toml" : "s\\xff.toml"));
            BOOST_TEST(has(r.out, std::string(format) == "json" ? "ev\\\\x1b[2Jil" : "ev\\x1b[2Jil"));
        }
    }
    auto csv = run_qkv({"grade", sheets.string(), "--format", "csv"}, "", env).out;
    BOOST_TEST(has(csv, "\"ev\\x1b[2Jil, \"\"x\"\"\","), csv);  // quoted once escaped: the comma and quotes
    auto one = run_qkv({"grade", (sheets / "s\xff.toml").string(), "--format", "json"}, "", env);
    BOOST_TEST(one.status == 1, one.err);
    BOOST_TEST(nlohmann::json::parse(one.out)["correct"] == 1);

    const fs::path lessons = dir / "L";
    write_file(lessons / "01-a\x1b[31mb\xff.toml", read_file("lessons/01-simplified.toml"));
    for (const char* format : {"text", "markdown", "json"}) {  // list has no html page
        auto r = run_qkv({"list", "--format", format}, "", {{"QKV_LESSONS", lessons.string()}});
        BOOST_TEST_CONTEXT("list --format " << format << " → " << r.err) {
            BOOST_TEST(r.status == 0);
            BOOST_TEST(!has_raw_control(r.out));
            const bool json = std::string(format) == "json";  // where a backslash is itself escaped
            if (std::string(format) != "markdown") BOOST_TEST(has(r.out, json ? "a\\\\x1b[31mb\\\\xff" : "a\\x1b[31mb\\xff"));  // markdown shows no names
        }
    }
    const fs::path state = dir / "st\x1b]0;X\x07";
    for (const char* format : {"text", "json"}) {
        auto p = run_qkv({"progress", "--format", format}, "", {{"XDG_STATE_HOME", state.string()}});
        BOOST_TEST(p.status == 0, p.err);
        BOOST_TEST(!has_raw_control(p.out));
        BOOST_TEST(has(p.out, "x1b]0;X"));
    }
    write_file(dir / "ex" / "mistakes.toml", "[no_scale]\nzh = \"缩放\\u001b[2J\"\nen = \"scale\"\n");
    auto v = run_qkv({"validate", (dir / "ex" / "mistakes.toml").string()});
    BOOST_TEST(v.status == 1, v.out);
    BOOST_TEST(has(v.out, "mistakes.toml:2:"), v.out);
    BOOST_TEST(has(v.out, "(\\x1b)"));
}

// Markdown with its code spans taken out (a run of backticks to the next run as long; a backslash
// escapes one): what is left is what Markdown reads as marks.
std::string outside_code_spans(const std::string& md) {
    std::string out;
    for (std::size_t i = 0; i < md.size();) {
        if (md[i] == '\\' && i + 1 < md.size()) {
            out += md.substr(i, 2);
            i += 2;
            continue;
        }
        if (md[i] != '`') {
            out += md[i++];
            continue;
        }
        const std::size_t run = md.find_first_not_of('`', i) == std::string::npos ? md.size() - i : md.find_first_not_of('`', i) - i;
        const std::size_t close = md.find(std::string(run, '`'), i + run);
        i = close == std::string::npos ? md.size() : close + run;
    }
    return out;
}

// Item 12: a token "[click](javascript:alert(1))" was escaped in the tables but became a live link
// in the prose, where the lesson quotes it; and a token "```" closed the scenario's code block. What
// the run fills in is shown as text: escaped, or a token as a code span (issue 26), where no mark is live.
BOOST_AUTO_TEST_CASE(a_token_cannot_become_markdown) {
    auto r = run_qkv({"lesson", "1", "--tokens", "[click](javascript:alert(1)) ``` *em*", "--format", "markdown"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    // the preface's fence is longer than the token's three backticks, so it is not closed early
    BOOST_TEST_REQUIRE(r.out.rfind("````toml\n", 0) == 0u, r.out.substr(0, 40));
    const std::size_t code_end = r.out.find("\n````\n");
    BOOST_TEST_REQUIRE(code_end != std::string::npos);
    const std::string handout = r.out.substr(code_end + 6);  // inside the block the tokens are code
    const std::string marks = outside_code_spans(handout);
    BOOST_TEST(!has(marks, "[click](javascript"), "a live link");
    BOOST_TEST(!has(marks, " *em*"), "live emphasis");
    BOOST_TEST(has(handout, "from `[click](javascript:alert(1))` to `*em*`"));  // lesson 1's first text quotes both ends
    BOOST_TEST(has(handout, "| \\[click\\](javascript:alert(1)) |"));          // a table's row label, escaped
    BOOST_TEST(has(handout, "**X** `[3, 4]`"));  // the renderer's own marks stay
}

// Item 13: numbers and arguments. Each of these was taken, or said wrongly: a scale that makes inf
// entries, a negative unsigned option (read as 2^64 - 1), --lesson -1 (listed everything), an
// empty sentence (ran the default one unsaid), a sentence of ideographic spaces (became a token),
// and an empty row ("row 1 has 0 values but row 1 has 0").
BOOST_AUTO_TEST_CASE(numbers_and_arguments_out_of_their_range_are_refused_in_one_line) {
    qkv::test::scratch_dir dir{"hostile-numbers"};
    write_file(dir / "big.toml", "name = \"s\"\ntokens = [\"a\", \"b\"]\n[matrices]\nX = { randn = [2, 4], seed = 1, scale = 3e38 }\n");
    write_file(dir / "empty-row.toml", "name = \"s\"\ntokens = [\"a\", \"b\"]\n[matrices]\nX = [[]]\n");
    write_file(dir / "e30.toml", "name = \"s\"\ntokens = [\"a\", \"b\", \"c\"]\n[matrices]\nX = [[1e30, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]\n");
    const std::string ideographic = "\xe3\x80\x80\xe3\x80\x80";  // U+3000 twice
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"lesson", "1", "--data", (dir / "big.toml").string()}, "big.toml:4:41: matrix X: scale 3e+38 makes entries too large"},
        {{"validate", (dir / "big.toml").string()}, "too large for a float"},
        {{"lesson", "1", "--data", (dir / "empty-row.toml").string()}, "empty-row.toml:4:6: matrix X: row 1 is empty"},
        {{"lesson", "1", "--tokens", "a b", "--seed", "-1"}, "--seed must be a whole number from 0 up, not '-1'"},
        {{"lesson", "1", "--tokens", "a b", "--d-model", "-1"}, "--d-model must be a whole number from 0 up, not '-1'"},
        {{"scenario", "--tokens", "a b", "--seed", "-3"}, "--seed must be a whole number from 0 up, not '-3'"},
        {{"exercises", "--lesson", "-1"}, "--lesson must be a lesson's number"},
        {{"lesson", "1", "--tokens", ""}, "--tokens gives no token"},
        {{"lesson", "1", "--tokens", ideographic}, "--tokens gives no token"},
        {{"scenario", "--tokens", ideographic}, "give the sentence"},
        // lr0 = 8 / norm(H)² = 8 / inf: "got a scalar" said nothing of what was wrong
        {{"lesson", "17", "--data", (dir / "e30.toml").string()}, "lr must be a number above 0, got 0"},
    };
    for (const auto& [args, said] : cases) {
        auto r = run_qkv(args);
        BOOST_TEST_CONTEXT(args[0] << " " << args[1] << " " << args.back() << " → " << r.err << r.out) {
            BOOST_TEST(r.status == (args[0] == "validate" ? 1 : 2));
            BOOST_TEST(has(r.err + r.out, said));
            if (args[0] != "validate") BOOST_TEST(count_lines(r.err) == 1u);
        }
    }
    // U+3000 between words splits them, as a space does: two tokens, not one
    auto r = run_qkv({"lesson", "1", "--tokens", "a\xe3\x80\x80" "b", "--format", "json"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(nlohmann::json::parse(r.out)["stages"][0]["values"][0]["row_labels"].size() == 2u);
}

// Item 14: on a 2-token scenario, shipped exercises stopped with "index 3 is out of range" from
// inside their own files. An exercise declares the tokens it needs (min_tokens) and a shorter
// sentence is refused in one line; validate runs every exercise on that minimum, so one whose
// declaration is missing is named. 3.2's answer is S[2, 3]: it needs 3 tokens.
BOOST_AUTO_TEST_CASE(an_exercise_on_too_short_a_sentence_is_refused_in_one_line) {
    qkv::test::scratch_dir dir{"hostile-exercise"};
    const std::string two = (dir / "two.toml").string();
    BOOST_REQUIRE(run_qkv({"scenario", "--tokens", "a b", "-o", two}).status == 0);
    const std::vector<std::pair<std::string, std::string>> env{{"XDG_STATE_HOME", (dir / "state").string()}};
    for (const std::vector<std::string>& args : {std::vector<std::string>{"exercise", "3.2", "--data", two},
                                                 {"check", "3.2", "1", "--data", two}, {"hint", "3.2", "--data", two}}) {
        auto r = run_qkv(args, "", env);
        BOOST_TEST_CONTEXT(args[0] << " → " << r.err) {
            BOOST_TEST(r.status == 2);
            BOOST_TEST(count_lines(r.err) == 1u);
            BOOST_TEST(has(r.err, "03.toml:"));
            BOOST_TEST(has(r.err, "exercise 3.2 needs a sentence of at least 3 tokens; this one has 2"));
            BOOST_TEST(!has(r.err, "out of range"));
        }
    }
    BOOST_TEST(run_qkv({"exercise", "3.1", "--data", two}, "", env).status == 0);  // 3.1 needs only the lesson's 2
    // an exercise that reads token 3 without saying so: validate names it
    std::string three = read_file("lessons/exercises/03.toml");
    const std::string declared = "min_tokens = 3  # its answer reads row or column 3 of the sentence\n";
    BOOST_REQUIRE(has(three, declared));
    three.erase(three.find(declared), declared.size());
    write_file(dir / "03.toml", three);
    auto v = run_qkv({"validate", (dir / "03.toml").string()});
    BOOST_TEST(v.status == 1);
    BOOST_TEST(has(v.out, "exercise 3.2 on a sentence of 2 tokens"), v.out);
    BOOST_TEST(has(v.out, "min_tokens"));
}

// Item 10's other two siblings: ESC in --tokens on the command line, in every format a lesson
// writes, and in a teaching prose file under lessons/prose/ (bench kv's explanation) is shown
// escaped, never raw.
BOOST_AUTO_TEST_CASE(controls_in_tokens_and_prose_files_are_shown_escaped) {
    for (const char* format : {"text", "markdown", "html", "json"}) {
        auto r = run_qkv({"lesson", "1", "--tokens", "a\x1b[31mb c d", "--format", format});
        BOOST_TEST_CONTEXT("lesson --format " << format) {
            BOOST_TEST_REQUIRE(r.status == 0, r.err);
            BOOST_TEST(!has_raw_control(r.out));
            // written out: JSON as \u001b (a reader gets the token back whole), the others as \x1b
            BOOST_TEST(has(r.out, std::string(format) == "json" ? "a\\u001b[31mb" : "x1b[31mb"));
        }
    }
    qkv::test::scratch_dir dir{"hostile-prose"};
    fs::copy("lessons", dir / "L", fs::copy_options::recursive);
    std::string prose = read_file(dir / "L" / "prose" / "bench.toml");
    const std::string at = "en = \"Without the cache";
    BOOST_TEST_REQUIRE(has(prose, at));
    prose.replace(prose.find(at), at.size(), "en = \"With\\u001b[2Jout the cache");
    write_file(dir / "L" / "prose" / "bench.toml", prose);
    auto r = run_qkv({"bench", "kv", "--tokens", "16"}, "", {{"QKV_LESSONS", (dir / "L").string()}});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(!has_raw_control(r.out));
    BOOST_TEST(has(r.out, "With\\x1b[2Jout the cache"));
}
