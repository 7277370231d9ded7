// Bad input at every door of the program, one table: options, lesson files, formulas, scenarios,
// CSV files, answers, answer sheets and the progress file. Each case must end with status 2 (1 when
// a check fails), at most three lines on stderr naming the file, line and problem, no file left
// behind in the scratch folder, and the progress file byte for byte as it was.
#define BOOST_TEST_MODULE bad_input
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/progress.hpp"
#include "support/text.hpp"

using qkv::test::count_lines;
using qkv::test::progress_file;

namespace {

std::string binary_bytes(std::size_t n) {
    std::mt19937 gen(7);
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(gen() & 0xFF);
    s[0] = '\0';  // at least one NUL, where every reader looks first
    return s;
}

// Lesson 1 with its first formula ("d_model = cols(X)", line 8, content from column 12) replaced.
std::string lesson_1_with(const std::string& formula) {
    std::string text = read_file("lessons/01-simplified.toml");
    const std::string first = "formula = \"d_model = cols(X)\"";
    auto at = text.find(first);
    BOOST_REQUIRE(at != std::string::npos);
    return text.replace(at, first.size(), "formula = \"" + formula + "\"");
}

std::string lesson_1_numbered(int n, const std::string& text) {
    std::string out = text;
    auto at = out.find("number = 1\n");
    BOOST_REQUIRE(at != std::string::npos);
    return out.replace(at, 11, fmt::format("number = {}\n", n));
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

const std::string big_lines = "# padding padding padding padding padding padding padding padding\n";

// Where 11-big.toml goes wrong: after lesson 1's lines and 200 000 comments, line 1 column 1.
std::string big_lesson_error() {
    return fmt::format("11-big.toml:{}:1", count_lines(read_file("lessons/01-simplified.toml")) + 200001);
}

// The scratch folder: every file the cases read, generated here rather than committed.
struct scratch {
    qkv::test::scratch_dir folder{"bad-input"};
    const fs::path dir = folder.path;

    scratch() {
        const fs::path L = dir / "L";
        std::string one = read_file("lessons/01-simplified.toml");
        write_file(L / "01-empty.toml", "");
        write_file(L / "02-binary.toml", binary_bytes(4096));
        write_file(L / "03-syntax.toml", lesson_1_numbered(3, one) + "\n[[stage]\nid = \"x\"\n");
        write_file(L / "04-unknown-key.toml", "colour = 1\n" + lesson_1_numbered(4, one));
        write_file(L / "05-formula.toml", lesson_1_numbered(5, lesson_1_with("d_model = cols(X")));
        write_file(L / "06-shape.toml", lesson_1_numbered(6, lesson_1_with("d_model = X @ X")));
        write_file(L / "07-huge.toml", lesson_1_numbered(7, lesson_1_with("d_model = randn(100000, 100000, 1)")));
        write_file(L / "08-broadcast.toml",
                   lesson_1_numbered(8, lesson_1_with("d_model = zeros(99999, 1) + zeros(1, 99999)")));
        write_file(L / "09-deep.toml", "x = " + nested(100000) + "\n" + lesson_1_numbered(9, one));
        write_file(L / "10-utf8.toml", "title = { zh = \"\xff\xfe\", en = \"x\" }\n");
        std::string big = lesson_1_numbered(11, one);  // 200 000 comment lines, then a bad one
        for (int i = 0; i < 200000; ++i) big += big_lines;
        write_file(L / "11-big.toml", big + "= 1\n");
        std::string scenario = one;
        scenario.replace(scenario.find("number = 1\n"), 11, "number = 12\nscenario = \"nope.toml\"\n");
        write_file(L / "12-scenario.toml", scenario);
        write_file(L / "13-number.toml", lesson_1_numbered(-3, one));
        // text that quotes the run: an unknown name, a quote that does not parse, a row the
        // sentence may not have
        auto quoting = [](const std::string& zh) {
            return "number = 50\ntitle = { zh = \"引用\", en = \"Quotes\" }\n[[stage]]\nid = \"s\"\n"
                   "title = { zh = \"一\", en = \"One\" }\nformula = \"A = X @ X^T\"\n"
                   "text = { zh = \"" + zh + "\", en = \"{A[1, 1]} of {n}\" }\n";
        };
        write_file(dir / "quote-name.toml", quoting("值 {nope[1, 1]}"));
        write_file(dir / "quote-syntax.toml", quoting("值 {A[1, }"));
        write_file(dir / "quote-row.toml", quoting("值 {A[3, 3]}"));
        write_file(L / "14-product.toml", lesson_1_numbered(14, lesson_1_with("d_model = zeros(99999, 1) @ zeros(1, 99999)")));
        write_file(L / "15-positions.toml", lesson_1_numbered(15, lesson_1_with("d_model = sinusoidal_positions(100000, 100000)")));
        write_file(L / "17-stack.toml", lesson_1_numbered(17, lesson_1_with("d_model = split_heads(zeros(16384, 8), 8) + zeros(1, 16384)")));
        write_file(L / "16-long-name.toml", lesson_1_numbered(16, lesson_1_with("d_model = cols(" + std::string(1 << 20, 'x') + ")")));
        write_file(dir / "L2" / "03-a.toml", lesson_1_numbered(3, one));
        write_file(dir / "L2" / "03-b.toml", lesson_1_numbered(3, one));

        const std::string head = "name = \"bad\"\ntokens = [\"a\", \"b\"]\n[matrices]\n";
        write_file(dir / "s-empty.toml", "");
        write_file(dir / "s-binary.toml", binary_bytes(4096));
        write_file(dir / "s-nan.toml", head + "X = [[1.0, nan], [3.0, 4.0]]\n");
        write_file(dir / "s-inf.toml", head + "X = [[1.0, 2.0], [-inf, 4.0]]\n");
        write_file(dir / "s-randn.toml", head + "X = { randn = [100000, 100000], seed = 1 }\n");
        write_file(dir / "s-ragged.toml", head + "X = [[1.0, 2.0],\n     [3.0]]\n");
        write_file(dir / "s-deep.toml", head + "X = " + nested(100000) + "\n");
        write_file(dir / "s-utf8.toml", "tokens = [\"a\", \"\xc0\xaf\"]\n[matrices]\nX = [[1.0], [2.0]]\n");
        // A stand-in for /dev/zero, never the machine's own: a device with its numbers (root), or
        // a named pipe, which is no regular file either and would block a plain read for ever.
        if (::mknod((dir / "zero-twin").c_str(), S_IFCHR | 0666, makedev(1, 5)) != 0)
            ::mkfifo((dir / "zero-twin").c_str(), 0600);
        write_file(dir / "s-device.toml", head + "X = \"zero-twin\"\n");
        write_file(dir / "s-folder.toml", head + "X = \".\"\n");
        write_file(dir / "s-bigcsv.toml", head + "X = \"big.csv\"\n");
        write_file(dir / "s-bincsv.toml", head + "X = \"binary.csv\"\n");
        write_file(dir / "s-hugecsv.toml", head + "X = \"huge-number.csv\"\n");
        write_file(dir / "s-heads.toml", "tokens = [\"a\", \"b\"]\nheads = 3\n[matrices]\nX = [[1, 2, 3, 4], [1, 0, 0, 1]]\n");
        write_file(dir / "s-wq.toml", head + "X = [[1.0, 2.0], [3.0, 4.0]]\nW_Q = [[1.0, 2.0, 3.0]]\n");
        std::string csv;
        for (int i = 0; i < 500000; ++i) csv += "0.25, -1.5, 3e-2, 4\n";  // 10 MB, every line fine
        write_file(dir / "big.csv", csv);
        write_file(dir / "binary.csv", binary_bytes(65536));
        write_file(dir / "huge-number.csv", "1, 2\n3, 1e39\n");
        write_file(dir / "empty.csv", "");

        write_file(dir / "sheet-empty.toml", "");
        write_file(dir / "sheet-syntax.toml", "\"3.1\" = \"(100, 100)\"\n\"6.2\" = \n");
        write_file(dir / "sheet-binary.toml", binary_bytes(2048));
        write_file(dir / "sheet-unknown.toml", "\"99.9\" = \"1\"\n");
        write_file(dir / "sheet-deep.toml", "\"3.1\" = " + nested(100000) + "\n");
        write_file(dir / "sheet-table.toml", "\"3.1\" = { a = 1 }\n");
        write_file(dir / "sheet-unreadable.toml", "\"3.1\" = \"abc\"\n");
        write_file(dir / "state-is-a-file", "not a folder\n");
        fs::create_directories(dir / "fifo-state" / "qkv");
        ::mkfifo((dir / "fifo-state" / "qkv" / "progress.json").c_str(), 0600);
    }
    // Every file under the folder with its size: what a case must leave as it found it.
    std::map<std::string, std::uintmax_t> listing() const {
        std::map<std::string, std::uintmax_t> out;
        for (auto& e : fs::recursive_directory_iterator(dir))
            out[e.path().string()] = e.is_regular_file() ? e.file_size() : 0;
        return out;
    }
};

struct bad_case {
    std::string what;
    std::vector<std::string> args;    // "@" at the start is the scratch folder
    int status;                       // 2: usage or input error; 1: a check that did not pass
    std::vector<std::string> pieces;  // each must be on stderr ("@" as in args)
    std::vector<std::pair<std::string, std::string>> env = {};
    std::string input = {};
};

// A lesson of the scratch lessons folder (QKV_LESSONS=@/L), run by number.
bad_case scratch_lesson(std::string what, std::string number, std::vector<std::string> pieces) {
    return {std::move(what), {"lesson", std::move(number)}, 2, std::move(pieces), {{"QKV_LESSONS", "@/L"}}};
}

// Lesson 1 on the scenario `file` (--data).
bad_case on_scenario(std::string what, std::string file, std::vector<std::string> pieces) {
    return {std::move(what), {"lesson", "1", "--data", std::move(file)}, 2, std::move(pieces)};
}

const std::vector<bad_case>& cases() {
    static const std::vector<bad_case> table = {
        // options
        {"precision out of range", {"lesson", "3", "--precision", "12"}, 2, {"--precision", "12"}},
        {"precision not a number", {"lesson", "3", "--precision", "nan"}, 2, {"--precision", "nan"}},
        {"unknown format", {"lesson", "3", "--format", "pdf"}, 2, {"--format", "pdf"}},
        {"unknown language", {"lesson", "3", "--lang", "fr"}, 2, {"--lang", "fr"}},
        {"unknown colour mode", {"lesson", "3", "--color", "sometimes"}, 2, {"--color", "sometimes"}},
        {"no such lesson", {"lesson", "99"}, 2, {"99"}},
        {"stage out of range", {"lesson", "3", "--stage", "99"}, 2, {"--stage 99"}},
        {"negative stage", {"lesson", "3", "--stage", "-1"}, 2, {"stage"}},
        {"unknown option", {"lesson", "3", "--bogus"}, 2, {"--bogus"}},
        {"unknown command", {"frobnicate"}, 2, {"unknown command 'frobnicate'"}},
        {"step and present together", {"lesson", "3", "--step", "--present"}, 2, {"--step", "--present"}},
        {"auto without a positive time", {"lesson", "3", "--present", "--auto", "0"}, 2, {"--auto"}},
        {"d-model beyond memory", {"lesson", "3", "--tokens", "a b", "--d-model", "100000"}, 2, {"--d-model", "100000"}},
        {"invalid UTF-8 in a token", {"lesson", "3", "--tokens", "\xff\xfe b"}, 2, {"token 1", "UTF-8"}},
        {"bench size zero", {"bench", "--n", "0"}, 2, {"--n"}},
        {"escape codes in an unknown command", {"\x1b[2J\x07" "boom"}, 2, {"unknown command '\\x1b[2J\\x07boom'"}},
        {"a 100 kB option value (the kernel takes at most 128 kB an argument)", {"lesson", "3", "--lang", std::string(100000, 'z')}, 2, {"--lang", "(100002 bytes)"}},
        // lesson files
        scratch_lesson("empty lesson file", "1", {"01-empty.toml"}),
        scratch_lesson("binary lesson file", "2", {"02-binary.toml:1:"}),
        scratch_lesson("TOML syntax error", "3", {"03-syntax.toml:"}),
        scratch_lesson("unknown key", "4", {"04-unknown-key.toml:1:", "colour"}),
        scratch_lesson("formula syntax error", "5", {"05-formula.toml:8:", "')'"}),
        scratch_lesson("shape mismatch", "6", {"06-shape.toml:8:12", "[3, 4]"}),
        scratch_lesson("randn beyond memory in a formula", "7", {"07-huge.toml:8:12", "2^28"}),
        scratch_lesson("broadcast beyond memory", "8", {"08-broadcast.toml:8:12", "2^28"}),
        scratch_lesson("product beyond memory", "14", {"14-product.toml:8:12", "2^28"}),
        // each head's [16384, 16384] is within 2^28 cells, the eight together are 8 GiB
        scratch_lesson("a stack of heads beyond memory", "17", {"17-stack.toml:8:12", "[8, 16384, 16384]", "2^28"}),
        scratch_lesson("a megabyte identifier", "16", {"16-long-name.toml:8:", "bytes)"}),
        scratch_lesson("built-in beyond memory", "15", {"15-positions.toml:8:12", "2^28"}),
        scratch_lesson("arrays nested 100000 deep", "9", {"09-deep.toml:1:", "nested"}),
        scratch_lesson("invalid UTF-8 in a lesson", "10", {"10-utf8.toml:1:", "utf-8"}),
        scratch_lesson("a 14 MB lesson with an error at the end", "11", {big_lesson_error()}),
        scratch_lesson("the lesson's scenario is missing", "12", {"nope.toml"}),
        {"two lessons with one number", {"lesson", "3"}, 2, {"03-", "also used by"}, {{"QKV_LESSONS", "@/L2"}}},
        {"lessons folder missing", {"lesson", "3"}, 2, {"@/none", "QKV_LESSONS"}, {{"QKV_LESSONS", "@/none"}}},
        {"run a missing file", {"run", "@/nope.toml"}, 2, {"@/nope.toml", "not found"}},
        {"run a folder", {"run", "@/L"}, 2, {"@/L"}},
        {"run a negative lesson number", {"run", "@/L/13-number.toml"}, 2, {"13-number.toml:2:", "number"}},
        {"validate finds a problem", {"validate", "@/L/05-formula.toml"}, 1, {"05-formula.toml:8:"}},
        {"a sentence too short for the lesson", {"lesson", "3", "--tokens", "hello"}, 2, {"lesson 3 needs at least 2 tokens; this sentence has 1"}},
        {"a quote of an unknown name", {"run", "@/quote-name.toml", "--lang", "zh"}, 2, {"quote-name.toml:7:", "quote {nope[1, 1]}", "unknown name 'nope'"}},
        {"a quote that does not parse", {"run", "@/quote-syntax.toml"}, 2, {"quote-syntax.toml:7:", "text (zh)"}},
        {"a quote of a row the sentence lacks", {"run", "@/quote-row.toml", "--lang", "zh", "--tokens", "a b"}, 2, {"quote-row.toml:7:", "quote {A[3, 3]}", "out of range"}},
        {"validate runs quotes on a shorter sentence", {"validate", "@/quote-row.toml"}, 1, {"quote-row.toml:7:", "on a sentence of 1 token"}},
        // scenarios and CSV files
        on_scenario("scenario missing", "@/nope.toml", {"@/nope.toml", "not found"}),
        on_scenario("empty scenario", "@/s-empty.toml", {"s-empty.toml", "tokens"}),
        on_scenario("binary scenario", "@/s-binary.toml", {"s-binary.toml:1:"}),
        on_scenario("NaN in a scenario", "@/s-nan.toml", {"s-nan.toml:4:", "NaN"}),
        on_scenario("Inf in a scenario", "@/s-inf.toml", {"s-inf.toml:4:", "Inf"}),
        on_scenario("randn beyond memory in a scenario", "@/s-randn.toml", {"s-randn.toml:4:", "too large"}),
        on_scenario("ragged rows", "@/s-ragged.toml", {"s-ragged.toml:5:", "ragged"}),
        on_scenario("scenario nested 100000 deep", "@/s-deep.toml", {"s-deep.toml:4:", "nested"}),
        on_scenario("invalid UTF-8 in a scenario token", "@/s-utf8.toml", {"s-utf8.toml:1:", "utf-8"}),
        on_scenario("a device as a CSV file", "@/s-device.toml", {"zero-twin", "not a regular file"}),
        on_scenario("a folder as a CSV file", "@/s-folder.toml", {"not a regular file"}),
        on_scenario("a 10 MB CSV of the wrong height", "@/s-bigcsv.toml", {"s-bigcsv.toml:4:", "500000 rows"}),
        on_scenario("binary CSV", "@/s-bincsv.toml", {"binary.csv:1:", "not a number"}),
        on_scenario("CSV number too large for a float", "@/s-hugecsv.toml", {"huge-number.csv:2:", "too large"}),
        on_scenario("NaN in a CSV", "tests/data/bad/csv-nan.toml", {"nan.csv:2:", "NaN"}),
        on_scenario("ragged CSV", "tests/data/bad/csv-ragged.toml", {"ragged.csv:", "ragged"}),
        {"heads not dividing d_model", {"lesson", "8", "--data", "@/s-heads.toml"}, 2, {"s-heads.toml", "heads (3)"}},
        {"W_Q of the wrong shape", {"lesson", "2", "--data", "@/s-wq.toml"}, 2, {"s-wq.toml:5:", "W_Q"}},
        {"scenario -o with a bad token", {"scenario", "--tokens", "a \xc0\xaf", "-o", "@/out.toml"}, 2, {"UTF-8"}},
        {"scenario -o into a missing folder", {"scenario", "--tokens", "a b", "-o", "@/no/such/out.toml"}, 2, {"@/no/such/out.toml", "cannot write"}},
        // answers
        {"not a shape", {"check", "3.1", "abc"}, 2, {"'abc' is not a shape", "3.1"}},
        {"zero in a shape", {"check", "3.1", "(0, 100)"}, 2, {"'0'"}},
        {"shape beyond size_t", {"check", "3.1", "(99999999999999999999999, 1)"}, 2, {"99999999999999999999999"}},
        {"NaN as a number", {"check", "6.2", "nan"}, 2, {"'nan' is not a number"}},
        {"Inf as a number", {"check", "6.2", "inf"}, 2, {"'inf' is not a number"}},
        {"number beyond double", {"check", "6.2", "1e999"}, 2, {"'1e999'"}},
        {"division by zero", {"check", "6.2", "1/0"}, 2, {"divides by zero"}},
        {"a quotient beyond any number", {"check", "6.2", "1e308/1e-308"}, 2, {"too large"}},
        {"matrix not closed", {"check", "3.3", "[[1, 2], [3"}, 2, {"is not a matrix"}},
        {"matrix entry too large for a float", {"check", "3.3", "[[1e39, 2, 3], [1, 2, 3], [1, 2, 3]]"}, 2, {"'1e39'"}},
        {"invalid UTF-8 answer", {"check", "3.1", "\xff\xfe"}, 2, {"is not a shape"}},
        {"choice out of range", {"check", "8.2", "E"}, 2, {"'E' is not a choice"}},
        {"no such exercise", {"check", "9.9", "1"}, 2, {"no exercise '9.9'"}},
        {"no answer", {"check", "3.1"}, 2, {"give the answer"}},
        {"answer file missing", {"check", "3.3", "--file", "@/nope.csv"}, 2, {"@/nope.csv"}},
        {"answer file empty", {"check", "3.3", "--file", "@/empty.csv"}, 2, {"empty.csv", "no numbers"}},
        {"answer file binary", {"check", "3.3", "--file", "@/binary.csv"}, 2, {"binary.csv:1:"}},
        {"answer file a device", {"check", "6.2", "--file", "@/zero-twin"}, 2, {"@/zero-twin"}},
        {"answer file 10 MB of the wrong shape", {"check", "3.3", "--file", "@/big.csv"}, 2, {"[500000, 4]"}},
        // answer sheets
        {"sheet missing", {"grade", "@/nope.toml"}, 2, {"@/nope.toml", "not found"}},
        {"sheet empty", {"grade", "@/sheet-empty.toml"}, 2, {"sheet-empty.toml", "no answers"}},
        {"sheet syntax error", {"grade", "@/sheet-syntax.toml"}, 2, {"sheet-syntax.toml:2:"}},
        {"sheet binary", {"grade", "@/sheet-binary.toml"}, 2, {"sheet-binary.toml:1:"}},
        {"sheet names no exercise", {"grade", "@/sheet-unknown.toml"}, 2, {"sheet-unknown.toml:1:", "99.9"}},
        {"sheet nested 100000 deep", {"grade", "@/sheet-deep.toml"}, 2, {"sheet-deep.toml:1:", "nested"}},
        {"sheet answer a table", {"grade", "@/sheet-table.toml"}, 2, {"sheet-table.toml:1:", "must be a string"}},
        {"sheet answer unreadable", {"grade", "@/sheet-unreadable.toml"}, 1, {}},
        // the progress file
        {"progress folder is a file", {"check", "6.2", "0.49"}, 2, {"state-is-a-file"}, {{"XDG_STATE_HOME", "@/state-is-a-file"}}},
        {"progress file is a named pipe", {"progress"}, 2, {"progress.json", "not a regular file"}, {{"XDG_STATE_HOME", "@/fifo-state"}}},
        {"progress file is a named pipe, checking", {"check", "6.2", "0.49"}, 2, {"not a regular file"}, {{"XDG_STATE_HOME", "@/fifo-state"}}},
    };
    return table;
}

std::string placed(std::string s, const std::string& dir) {
    if (s.starts_with("@")) s.replace(0, 1, dir);
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_bad_input_is_one_clear_error_and_loses_nothing) {
    scratch s;
    const std::string dir = s.dir.string();
    // Some progress to lose: 6.2 answered right once ((0.93 + 0.16 + 0.38) / 3 = 0.49).
    BOOST_REQUIRE(run_qkv({"progress", "--reset"}).status == 0);
    BOOST_REQUIRE(run_qkv({"check", "6.2", "0.49"}).status == 0);
    const std::string progress_before = read_file(progress_file());
    BOOST_REQUIRE(!progress_before.empty());
    const auto files_before = s.listing();
    BOOST_TEST(cases().size() >= 40u);

    for (const bad_case& c : cases()) {
        std::vector<std::string> args;
        for (const auto& a : c.args) args.push_back(placed(a, dir));
        std::vector<std::pair<std::string, std::string>> env;
        for (const auto& [k, v] : c.env) env.emplace_back(k, placed(v, dir));
        auto r = run_qkv(args, c.input, env);
        BOOST_TEST_CONTEXT(c.what << " → status " << r.status << ", stderr: " << r.err) {
            BOOST_TEST(r.status == c.status);
            BOOST_TEST(count_lines(r.err) >= (c.status == 2 ? 1u : 0u));
            BOOST_TEST(count_lines(r.err) <= 3u);
            BOOST_TEST(r.err.size() <= 4096u, "a message quotes what it was given unclipped");
            if (c.status == 2) BOOST_TEST(r.out.empty());
            std::string said = c.status == 2 ? r.err : r.out + r.err;
            bool printable = std::none_of(r.err.begin(), r.err.end(), [](char ch) {
                return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7F;
            });
            BOOST_TEST(printable, "stderr holds control characters (they would drive the terminal)");
            for (const auto& p : c.pieces)
                BOOST_TEST(said.find(placed(p, dir)) != std::string::npos, "lacks: " << placed(p, dir));
            BOOST_TEST(read_file(progress_file()) == progress_before);
            BOOST_TEST((s.listing() == files_before), "a file was left in (or taken from) the scratch folder");
        }
    }
}

// A progress file that cannot be read is set aside, never fatal, and never lost: two bad ones in
// the same second both survive, byte for byte.
BOOST_AUTO_TEST_CASE(unreadable_progress_files_are_set_aside_not_lost) {
    scratch s;
    fs::path state = s.dir / "state";
    std::vector<std::pair<std::string, std::string>> env{{"XDG_STATE_HOME", state.string()}};
    fs::path file = state / "qkv" / "progress.json";
    const std::string first = "{\"3.1\": \"correct\"}", second = binary_bytes(300);
    write_file(file, first);
    auto r1 = run_qkv({"progress"}, "", env);
    write_file(file, second);
    auto r2 = run_qkv({"progress"}, "", env);
    BOOST_TEST(r1.status == 0);
    BOOST_TEST(r2.status == 0);
    BOOST_TEST(count_lines(r1.err) == 1u);
    BOOST_TEST(r1.err.find("set aside") != std::string::npos, r1.err);
    std::vector<std::string> kept;
    for (auto& e : fs::directory_iterator(state / "qkv")) kept.push_back(read_file(e.path()));
    BOOST_TEST(kept.size() == 2u);
    BOOST_TEST((std::find(kept.begin(), kept.end(), first) != kept.end()));
    BOOST_TEST((std::find(kept.begin(), kept.end(), second) != kept.end()));
}

// A number too small for a float is 0 in a CSV matrix, as it is when written inline in TOML.
BOOST_AUTO_TEST_CASE(a_number_too_small_for_a_float_reads_as_zero) {
    scratch s;
    write_file(s.dir / "tiny.csv", "1e-50, 1\n-1e-50, 2\n");
    write_file(s.dir / "tiny.toml", "name = \"tiny\"\ntokens = [\"a\", \"b\"]\n[matrices]\nX = \"tiny.csv\"\n");
    auto r = run_qkv({"lesson", "1", "--data", (s.dir / "tiny.toml").string(), "--format", "json"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    bool found = false;
    const auto trace = nlohmann::json::parse(r.out);  // kept alive: a range-for over a temporary's member dangles
    for (const auto& stage : trace["stages"])
        for (const auto& v : stage["values"])
            if (v["name"] == "X") {
                found = true;
                BOOST_TEST(v["data"][0][0].get<double>() == 0.0);
                BOOST_TEST(v["data"][1][1].get<double>() == 2.0);
            }
    BOOST_TEST(found);
}
