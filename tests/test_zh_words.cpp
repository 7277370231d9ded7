// Under --lang zh (and QKV_LANG=zh) the interface speaks Chinese: every command's --help and the
// error lines of its common mistakes hold no English word. What may stay in Latin letters is what
// a learner types or reads in the math: commands, option names and their values, metavariables
// and environment variables (FILE, QKV_LANG), file names, the math's names (X, W_Q, d_model,
// softmax), and what the learner typed, quoted back. Each other run of letters is reported with
// the line it stands in. English stays byte for byte what it was (the golden and surface suites).
#define BOOST_TEST_MODULE zh_words
#include <boost/test/unit_test.hpp>

#include <set>
#include <sstream>

#include "support/cli_suite.hpp"

namespace {

using env_list = std::vector<std::pair<std::string, std::string>>;

// What is typed or named, never translated: the commands, the values options take, the math's
// names and a few proper names (Adam, OpenBLAS, Transformer, the keys PgUp and PgDn).
const std::set<std::string> allowed = {
    // commands, and words of the command line
    "qkv", "list", "lesson", "run", "validate", "scenario", "formulas", "exercises", "exercise", "check", "hint",
    "solution", "grade", "progress", "next", "bench", "train", "serve", "help", "mpirun", "all",
    // option values and the TOML keys a scenario or sheet is written in
    "zh", "en", "auto", "always", "never", "text", "markdown", "json", "html", "csv", "kv", "induction", "reverse",
    "copy", "reference", "blas", "fused", "true", "false", "on", "off", "yes", "no", "dumb", "tokens", "matrices",
    "randn", "seed", "scale", "name", "source_tokens", "heads", "causal", "student", "exercises", "lessons",
    "token_rows", "marks", "quote", "class",  // serve --class's default name
    // the math and its names
    "d_model", "d_k", "softmax", "exp", "seq", "vocab", "beta1", "beta2", "epsilon", "sgemm", "float", "NaN", "Inf",
    "GiB", "MiB", "steps", "g", "s", "n", "h", "q", "p", "b", "e", "r", "c",
    // proper names and keys
    "avx512", "avx2", "neon", "plain", "Adam", "OpenBLAS", "transformer", "Transformer", "PgUp", "PgDn", "Ctrl", "UTF",
};

bool latin(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool word_char(char c) { return latin(c) || (c >= '0' && c <= '9') || c == '_'; }

// The chunk of non-space bytes around [from, to): "--d-model", "lessons/*.toml", "'foo'".
std::string chunk_around(const std::string& line, std::size_t from, std::size_t to) {
    std::size_t a = from, b = to;
    while (a > 0 && line[a - 1] != ' ') --a;
    while (b < line.size() && line[b] != ' ') ++b;
    return line.substr(a, b - a);
}

// Inside '…' or "…" on its line: what the learner typed, quoted back.
bool quoted(const std::string& line, std::size_t at) {
    for (char mark : {'\'', '"'}) {
        std::size_t before = 0;
        for (std::size_t i = 0; i < at; ++i) before += line[i] == mark;
        if (before % 2 == 1 && line.find(mark, at) != std::string::npos) return true;
    }
    return false;
}

bool allowed_word(const std::string& line, std::size_t from, std::size_t to) {
    const std::string w = line.substr(from, to - from);
    if (allowed.count(w)) return true;
    // FILE, ID, QKV_LANG, X, W_Q, FMA: metavariables, environment variables, the math's capitals
    if (std::all_of(w.begin(), w.end(), [](char c) { return !(c >= 'a' && c <= 'z'); })) return true;
    if (from > 0 && (line[from - 1] == '-' || (line[from - 1] >= '0' && line[from - 1] <= '9'))) return true;  // --d-model, 1e-8
    const std::string around = chunk_around(line, from, to);
    if (around.find('.') != std::string::npos || around.find('/') != std::string::npos) return true;  // file names
    if (around.starts_with("-")) return true;  // an option and its value: --d-model, -o
    return quoted(line, from);
}

// Each Latin word of `text` that is not allowed, with its line.
std::vector<std::string> english_in(const std::string& text) {
    std::vector<std::string> found;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        for (std::size_t i = 0; i < line.size();) {
            if (!latin(line[i]) || (i > 0 && word_char(line[i - 1]))) {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < line.size() && word_char(line[j])) ++j;
            if (!allowed_word(line, i, j)) found.push_back(line.substr(i, j - i) + "  in: " + line);
            i = j;
        }
    }
    return found;
}

void no_english(const std::vector<std::string>& args, const std::string& text) {
    std::string shown;
    for (const std::string& a : args) shown += a + " ";
    BOOST_TEST_CONTEXT(shown) {
        BOOST_TEST(!text.empty());
        for (const std::string& w : english_in(text)) BOOST_TEST(false, "English: " + w);
    }
}

const std::vector<std::string> commands = {"list",     "lesson",   "run",   "validate", "scenario", "formulas",
                                           "exercises", "exercise", "check", "hint",     "solution", "grade",
                                           "progress", "next",     "bench", "train",    "serve"};

}  // namespace

// The checker itself: it must see English where there is some, and pass what may stay.
BOOST_AUTO_TEST_CASE(the_check_finds_english_and_lets_the_math_pass) {
    BOOST_TEST(english_in("选项 '--bogus' 无效").empty());
    BOOST_TEST(english_in("用法：qkv lesson N|NAME|all [选项]").empty());
    BOOST_TEST(english_in("  --d-model 值  嵌入宽度，W_Q 的列数 d_model，见 README.md").empty());
    BOOST_TEST(english_in("unrecognised option '--bogus'").size() == 2);  // unrecognised, option
    BOOST_TEST(english_in("显示 show the window").size() == 3);
    BOOST_TEST(english_in("step 160 loss = 2.31").size() == 2);  // step, loss
}

BOOST_AUTO_TEST_CASE(every_help_is_chinese) {
    for (const std::string& c : commands) {
        for (const env_list& env : {env_list{}, env_list{{"QKV_LANG", "zh"}}}) {
            std::vector<std::string> args{c, "--help"};
            if (env.empty()) args.insert(args.end(), {"--lang", "zh"});
            const auto r = run_qkv(args, "", env);
            BOOST_TEST(r.status == 0);
            no_english(args, r.out);
        }
    }
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--lang", "zh", "--help"}, {"help", "lesson", "--lang", "zh"},
          {"bench", "--tensor-parallel", "--help", "--lang", "zh"}}) {
        const auto r = run_qkv(args);
        BOOST_TEST(r.status == 0);
        no_english(args, r.out);
    }
}

// The English help is what it was: Boost's layout, the same words.
BOOST_AUTO_TEST_CASE(english_help_keeps_its_words) {
    const auto r = run_qkv({"lesson", "--help", "--lang", "en"});
    BOOST_TEST(r.out.starts_with("Usage: qkv lesson N|NAME|all [options]\nrun a lesson (or all of them) stage by stage\n\nOptions:\n"));
    BOOST_TEST(r.out.find("  --precision arg (=4)  decimals shown (0 to 9)\n") != std::string::npos);
}

// A Chinese help is laid out by display width: no line over 80 columns, no character cut.
BOOST_AUTO_TEST_CASE(chinese_help_fits_80_columns) {
    for (const std::string& c : commands) {
        const auto r = run_qkv({c, "--help", "--lang", "zh"});
        std::istringstream lines(r.out);
        for (std::string line; std::getline(lines, line);) {
            std::size_t cols = 0;
            for (std::size_t i = 0; i < line.size();) {
                const unsigned char b = static_cast<unsigned char>(line[i]);
                const std::size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
                cols += len == 3 ? 2 : 1;  // the help's CJK characters and full-width marks are 3 bytes, 2 columns
                i += len;
            }
            BOOST_TEST(cols <= 80u, c << ": " << line);
        }
    }
}

BOOST_AUTO_TEST_CASE(error_lines_are_chinese) {
    qkv::test::scratch_dir dir("zh-words");
    write_file(dir / "bad.toml", "name = \"bad\"\ntokens = [\"a\", \"b\"]\n[matrices]\nX = [[1, 2], [3]]\n");
    write_file(dir / "nox.toml", "name = \"nox\"\ntokens = [\"a\"]\n[matrices]\nY = [[1]]\n");
    const std::string bad = (dir / "bad.toml").string(), nox = (dir / "nox.toml").string();
    const env_list env{{"QKV_LANG", "zh"}, {"XDG_STATE_HOME", (dir / "state").string()}};
    const std::vector<std::vector<std::string>> cases = {
        {"lessn"},
        {"lesson", "99"},
        {"lesson"},
        {"lesson", "3", "--bogus"},
        {"lesson", "3", "--stage", "99"},
        {"lesson", "3", "--stage", "x"},
        {"lesson", "3", "--step", "--format", "json"},
        {"lesson", "3", "--step", "--present"},
        {"lesson", "3", "--auto", "2"},
        {"lesson", "3", "--tokens", " "},
        {"lesson", "3", "--tokens", "a b", "--data", "x"},
        {"lesson", "3", "--seed", "2"},
        {"lesson", "3", "--precision", "12"},
        {"lesson", "3", "--color", "blue"},
        {"lesson", "3", "--lang", "zh", "--format", "pdf"},
        {"lesson", "3", "--data", bad},
        {"lesson", "3", "--data", nox},
        {"lesson", "3", "--data", (dir / "none.toml").string()},
        {"lesson", "3", "--d-model"},
        {"lesson", "all", "--stage", "2"},
        {"list", "--format", "html"},
        {"run"},
        {"validate"},
        {"scenario"},
        {"scenario", "--tokens", "a b", "--heads", "3"},
        {"train", "--steps", "abc"},
        {"train", "--segment", "9-3"},
        {"train", "--threads", "0"},
        {"train", "--task", "sort"},
        {"train", "--layer", "3"},
        {"train", "--record-batches"},
        {"train", "--checkpoint-every", "0"},
        {"train", "--seed", "-1"},
        {"bench", "sideways"},
        {"bench", "--repeats", "5000"},
        {"bench", "--impl", "fast"},
        {"bench", "--heads", "7"},
        {"bench", "kv", "--backward"},
        {"exercises", "--lesson", "-3"},
        {"check"},
        {"check", "3.2"},
        {"exercise", "99.9"},
        {"grade"},
    };
    for (const std::vector<std::string>& args : cases) {
        const auto r = run_qkv(args, "", env);
        BOOST_TEST_CONTEXT(args.front() << " " << (args.size() > 1 ? args[1] : "")) {
            BOOST_TEST(r.status == 2, r.err);
            BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
        }
        no_english(args, r.err);
    }
}

// Lesson 18 under zh (issue 40 §1): its checkpoints are headed 第 N 步 and its tables' columns are
// the learner's words, in text and Markdown; in English they stay "step 160" and "previous".
BOOST_AUTO_TEST_CASE(lesson_18_steps_and_columns_in_chinese) {
    const auto has_word = [](const std::string& text, const std::string& w) {
        for (std::size_t at = text.find(w); at != std::string::npos; at = text.find(w, at + 1)) {
            const bool before = at > 0 && (word_char(text[at - 1]) || text[at - 1] == '-'), after = at + w.size() < text.size() && word_char(text[at + w.size()]);
            if (!before && !after) return true;
        }
        return false;
    };
    for (const std::string form : {"text", "markdown"}) {
        const auto zh = run_qkv({"lesson", "18", "--lang", "zh", "--format", form});
        const auto en = run_qkv({"lesson", "18", "--lang", "en", "--format", form});
        BOOST_TEST_CONTEXT(form) {
            BOOST_TEST(zh.status == 0);
            BOOST_TEST(en.status == 0);
            // the checkpoints: every 160 steps of lesson 18's 1600
            BOOST_TEST(zh.out.find("第 160 步") != std::string::npos);
            BOOST_TEST(en.out.find("step 160") != std::string::npos);
            for (const char* w : {"step", "previous", "induction", "repeated"}) {
                BOOST_TEST(!has_word(zh.out, w), w);
                BOOST_TEST(has_word(en.out, w), w);
            }
            for (const char* w : {"前一个词", "归纳", "重复段"}) BOOST_TEST(zh.out.find(w) != std::string::npos, w);
        }
    }
}

// Issue 40 §1, the rest: a formula's mistakes (its syntax, its shapes, its names, a built-in's
// arguments), toml++'s own syntax errors, a folder or a looping link given as a file, and
// validate's count of problems are worded in Chinese under zh; in English they are what they were.
BOOST_AUTO_TEST_CASE(formula_toml_and_file_errors_are_chinese) {
    qkv::test::scratch_dir dir("zh-errors");
    const auto lesson = [&](const std::string& name, const std::string& formula) {
        write_file(dir / name, "number = 50\ntitle = { zh = \"大\", en = \"Big\" }\n[[stage]]\nid = \"big\"\n"
                               "title = { zh = \"大\", en = \"Big\" }\nformula = \"\"\"\n" + formula +
                               "\n\"\"\"\ntext = { zh = \"大\", en = \"Big\" }\n");
        return (dir / name).string();
    };
    const std::string parse = lesson("parse.toml", "S = Q @@ K"), shape = lesson("shape.toml", "S = X @ X"),
                      name = lesson("name.toml", "S = W_QQ @ X"), args = lesson("args.toml", "S = softmax(X, X)"),
                      index = lesson("index.toml", "S = X[9]");
    write_file(dir / "toml.toml", "number = 50\ntitle = { zh = \"x\" en = \"x\" }\n");
    const std::string toml = (dir / "toml.toml").string(), loop = (dir / "loop.toml").string(), folder = (dir / "folder").string();
    fs::create_symlink("loop.toml", loop);  // stat says ELOOP: strerror's words, worded anew
    fs::create_directory(folder);

    // each case under zh, and what its English says (byte for byte as before)
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", parse}, "parse.toml:7:8: expected a number, a name or '(', found '@'"},
        {{"run", shape}, "formula `S = X @ X`: @ needs the columns of the left side to equal the rows of the right side: X is [3, 4], X is [3, 4]"},
        {{"run", name}, "unknown name 'W_QQ'; did you mean 'W_Q'?"},
        {{"run", args}, "softmax takes 1 argument, as in softmax(S); got 2"},
        {{"run", index}, "index 9 is out of range: X has 3 rows (counted from 1)"},
        {{"run", toml}, "toml.toml:2:20: Error while parsing inline table: expected comma or closing '}', saw 'e'"},
        {{"run", loop}, "loop.toml: lesson file: not readable: Too many levels of symbolic links"},
        {{"lesson", "3", "--data", folder}, "folder: scenario file: not a regular file (a folder, a named pipe or a device)"},
    };
    for (const auto& [args_of, english] : cases) {
        const auto zh = run_qkv(args_of, "", {{"QKV_LANG", "zh"}});
        const auto en = run_qkv(args_of, "", {{"QKV_LANG", "en"}});
        BOOST_TEST_CONTEXT(args_of.back()) {
            BOOST_TEST(zh.status == 2, zh.err);
            BOOST_TEST(std::count(zh.err.begin(), zh.err.end(), '\n') == 1, zh.err);
            BOOST_TEST(en.status == 2, en.err);
            BOOST_TEST(en.err.find(english) != std::string::npos, en.err);
        }
        no_english(args_of, zh.err);
    }
    // the line toml++ writes is worded from its parts: where it was reading, what it wanted, what it saw
    BOOST_TEST(run_qkv({"run", toml, "--lang", "zh"}).err.find("'}'") != std::string::npos);

    // validate: each problem and the count, in both plurals of English
    const std::vector<std::string> two{"validate", parse, toml}, one{"validate", parse};
    const auto zh = run_qkv(two, "", {{"QKV_LANG", "zh"}});
    BOOST_TEST(zh.status == 1);
    no_english(two, zh.out + zh.err);
    BOOST_TEST(run_qkv(two, "", {{"QKV_LANG", "en"}}).out.ends_with("\n2 problems in 2 of 2 files\n"));
    BOOST_TEST(run_qkv(one, "", {{"QKV_LANG", "en"}}).out.ends_with("\n1 problem in 1 of 1 file\n"));
    no_english(one, run_qkv(one, "", {{"QKV_LANG", "zh"}}).out);
}
