// Hostile input, round three (issue 27): the kinds of input the bad-input suite did not try yet —
// a key nested past any stack, counts in the progress file beyond what an exercise has, files
// planted where qkv writes, a closed standard output, text that would drive the terminal. Every
// case runs in a scratch folder of its own.
#define BOOST_TEST_MODULE hostile
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"

namespace {

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A dotted key of n parts: "a.a.…a".
std::string dotted(std::size_t n) {
    std::string key = "a";
    for (std::size_t i = 1; i < n; ++i) key += ".a";
    return key;
}

}  // namespace

// Item 1: toml++ recurses once per part of a dotted key; 100 000 parts overflowed the stack in
// every reader (a lesson, a scenario, an answer sheet, validate). Each refuses it in one line
// that names the file and line, as it does arrays nested past 256.
BOOST_AUTO_TEST_CASE(a_deep_dotted_key_is_refused_in_one_line_by_every_reader) {
    qkv::test::scratch_dir dir{"hostile-key"};
    const std::string deep = dotted(100000) + " = 1\n";
    write_file(dir / "d.toml", deep);
    write_file(dir / "s.toml", "name = \"s\"\ntokens = [\"a\", \"b\"]\n" + deep);
    write_file(dir / "L" / "01-deep.toml", "number = 1\n" + deep);
    const std::string d = (dir / "d.toml").string(), s = (dir / "s.toml").string();
    const std::vector<std::vector<std::string>> readers = {
        {"grade", d}, {"lesson", "1", "--data", s}, {"run", (dir / "L" / "01-deep.toml").string()}, {"validate", d}};
    for (const auto& args : readers) {
        auto r = run_qkv(args, "", {{"XDG_STATE_HOME", (dir / "state").string()}});
        BOOST_TEST_CONTEXT(args[0] << " → " << r.err << r.out) {
            BOOST_TEST((r.status == 2 || (args[0] == "validate" && r.status == 1)));
            BOOST_TEST(has(r.err + r.out, "nested more than 256 levels"));
            BOOST_TEST(has(r.err + r.out, ".toml:" + std::string(args[0] == "lesson" ? "3" : args[0] == "run" ? "2" : "1") + ":"));
        }
    }
    // The bound counts what surrounds the key: 200 parts under a 100-part header is 300 levels;
    // 100 under 100 is 200 and is read (an unknown key then, which says it is past the bound).
    write_file(dir / "h.toml", "[" + dotted(100) + "]\n" + dotted(200) + " = 1\n");
    write_file(dir / "ok.toml", "[" + dotted(100) + "]\n" + dotted(100) + " = 1\n");
    BOOST_TEST(has(run_qkv({"grade", (dir / "h.toml").string()}).err, "h.toml:2:"));
    BOOST_TEST(!has(run_qkv({"grade", (dir / "ok.toml").string()}).err, "nested more than"));
    // a dot inside a quoted key part or a string value is no level at all
    write_file(dir / "q.toml", "\"" + dotted(1000) + "\" = \"" + dotted(1000) + "\"\n");
    BOOST_TEST(!has(run_qkv({"grade", (dir / "q.toml").string()}).err, "nested more than"));
}

// Item 2: the progress file may record more hints than an exercise has now (a lesson changed, a
// hand edit); every count read from it is clamped to the exercise. 3.1 has 3 hints.
BOOST_AUTO_TEST_CASE(more_hints_recorded_than_the_exercise_has_are_clamped) {
    qkv::test::scratch_dir dir{"hostile-hints"};
    const std::vector<std::pair<std::string, std::string>> env{{"XDG_STATE_HOME", dir.path.string()}};
    for (long long recorded : {4LL, 2147483647LL}) {
        write_file(dir / "qkv" / "progress.json",
                   fmt::format(R"({{"version":1,"exercises":{{"3.1":{{"status":"wrong","attempts":1,"hints":{}}}}}}})", recorded));
        BOOST_TEST_CONTEXT("hints " << recorded) {
            auto h = run_qkv({"hint", "3.1"}, "", env);
            BOOST_TEST(h.status == 0, h.err);
            BOOST_TEST(has(h.out, "Hint 3/3"));
            BOOST_TEST(!has(h.out, "Hint 4/3"));
            BOOST_TEST(has(h.out, "last hint"));
            BOOST_TEST(has(run_qkv({"exercise", "3.1"}, "", env).out, "(3/3)"));
            auto p = nlohmann::json::parse(run_qkv({"progress", "--format", "json"}, "", env).out);
            for (auto& e : p["exercises"])
                if (e["id"] == "3.1") BOOST_TEST(e["hints"] == 3);
        }
    }
    // a count no int holds, or a negative one, is an unreadable file: set aside, never a crash
    for (const char* bad : {"1e300", "-1", "18446744073709551615", "\"4\""}) {
        write_file(dir / "qkv" / "progress.json",
                   fmt::format(R"({{"version":1,"exercises":{{"3.1":{{"status":"wrong","attempts":1,"hints":{}}}}}}})", bad));
        auto h = run_qkv({"hint", "3.1"}, "", env);
        BOOST_TEST_CONTEXT("hints " << bad << " → " << h.err) {
            BOOST_TEST(h.status == 0);
            BOOST_TEST(has(h.out, "Hint 1/3"));
            BOOST_TEST(has(h.err, "set aside"));
            BOOST_TEST(count_lines(h.err) == 1u);
        }
    }
}
