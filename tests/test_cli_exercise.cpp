// The exercise commands as a learner and a teacher meet them: right answers in every spelling,
// wrong ones explained and the mistake named, unreadable ones refused with progress untouched,
// hints one at a time, a graded sheet, and progress that survives a corrupt file.
#define BOOST_TEST_MODULE cli_exercise
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"

namespace {

std::string progress_file() {
    const char* state = std::getenv("XDG_STATE_HOME");
    BOOST_REQUIRE_MESSAGE(state && *state, "tests/meson.build sets XDG_STATE_HOME");
    return (fs::path(state) / "qkv" / "progress.json").string();
}

// A scratch folder for answer files and sheets, and a clean progress for each test case.
struct fresh {
    fs::path dir;
    fresh() {
        dir = fs::temp_directory_path() / fmt::format("qkv_cli_exercise_{}", ::getpid());
        fs::create_directories(dir);
        BOOST_REQUIRE(run_qkv({"progress", "--reset"}).status == 0);
    }
    ~fresh() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string file(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name, std::ios::binary) << text;
        return (dir / name).string();
    }
};

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

nlohmann::json statuses() {
    auto r = run_qkv({"exercises", "--format", "json"});
    BOOST_REQUIRE(r.status == 0);
    nlohmann::json out, all = nlohmann::json::parse(r.out);  // kept alive while we iterate
    for (auto& e : all["exercises"]) out[e["id"].get<std::string>()] = e["status"];
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(right_answers_in_every_spelling) {
    fresh f;
    for (const char* s : {"(100, 100)", "100x100", "100×100", "[100, 100]", "100 100", "100X100"}) {
        auto r = run_qkv({"check", "3.1", s});
        BOOST_TEST_CONTEXT(s) {
            BOOST_TEST(r.status == 0, r.err);
            BOOST_TEST(has(r.out, "Right!"));
            BOOST_TEST(has(r.out, "Worked solution:"));
            BOOST_TEST(has(r.out, "[100, 64]·[64, 100] → [100, 100]"));  // the worked solution itself
        }
    }
    BOOST_TEST(run_qkv({"check", "3.1", "100", "100"}).status == 0);  // unquoted words are joined
    // (0.93 + 0.16 + 0.38) / 3 = 0.49, in three spellings.
    for (const char* s : {"0.49", "49/100", "4.9e-1"}) BOOST_TEST(run_qkv({"check", "6.2", s}).status == 0, s);
    for (const char* s : {"b", "B"}) BOOST_TEST(run_qkv({"check", "8.2", s}).status == 0, s);
    // Row 很 of the causal weights: [e^0.249, e^0.0525] / (e^0.249 + e^0.0525), then 0.
    double e1 = std::exp(0.498 / 2), e2 = std::exp(0.105 / 2);
    std::string row = fmt::format("[{:.4f}, {:.4f}, 0]", e1 / (e1 + e2), e2 / (e1 + e2));  // [0.5490, 0.4510, 0]
    BOOST_TEST(run_qkv({"check", "7.1", row}).status == 0, row);
    // S = Q·Kᵀ worked by hand, e.g. s13 = 1.55×1.5 + 0.45×0.3 + 0×1.0 + 0.35×0.39 = 2.5965; as numpy.savetxt writes it.
    std::string csv = f.file("S.csv", "1.4825,0.1705,2.5965\n0.498,0.105,1.5669\n2.675,0.145,1.4748\n");
    auto r = run_qkv({"check", "3.3", "--file", csv});
    BOOST_TEST(r.status == 0, r.out + r.err);
    auto st = statuses();
    BOOST_TEST(st["3.1"] == "correct");
    BOOST_TEST(st["3.3"] == "correct");
    BOOST_TEST(st["3.2"] == "not tried");
}

BOOST_AUTO_TEST_CASE(wrong_answers_say_what_and_which_mistake) {
    fresh f;
    auto r = run_qkv({"check", "3.1", "(100, 64)"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "Dimension 1: 100 is right."));
    BOOST_TEST(has(r.out, "Dimension 2: 64 is not right."));
    r = run_qkv({"check", "3.1", "64x64"});  // Kᵀ·Q: [64, 100]·[100, 64]
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "put the transpose in the wrong place"));
    // Unscaled: e^2.5965 / (e^1.4825 + e^0.1705 + e^2.5965) = 13.415 / 19.004 ≈ 0.7059.
    r = run_qkv({"check", "4.2", "0.7059"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "too high"));
    BOOST_TEST(has(r.out, "forgot to divide by √d_k"));
    BOOST_TEST(has(r.out, "qkv hint 4.2"));
    // Row 1 of Z_cat, the heads side by side with no W_O: head 1 [0.514, 0.6659], head 2 [0.4934, 0.3787].
    r = run_qkv({"check", "8.5", "[0.514, 0.6659, 0.4934, 0.3787]"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "left out the final W_O"));
    BOOST_TEST(has(r.out, "3 of 4 cells are off"));  // column 4: 0.3787 vs 0.3695, inside ±0.01
    r = run_qkv({"check", "1.1", "-0.3"});  // a negative answer is an answer, not an option
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(has(r.out, "-0.3 is too low"));
    r = run_qkv({"check", "3.2", "0.145", "--lang", "zh"});  // s32 = q(甜)·k(很) = 1.5×(−0.01) + 0.32×0.5
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "还不对"));
    BOOST_TEST(has(r.out, "转置放错了地方"));
    r = run_qkv({"check", "8.2", "a"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "A is not right."));
    BOOST_TEST(!has(r.out, "B is"));  // the answer is not given away
    auto st = statuses();
    BOOST_TEST(st["3.1"] == "wrong");
    BOOST_TEST(st["4.2"] == "wrong");
}

BOOST_AUTO_TEST_CASE(unreadable_answers_exit_2_and_leave_progress_alone) {
    fresh f;
    BOOST_REQUIRE(run_qkv({"check", "3.2", "1"}).status == 1);  // progress now has something in it
    std::string before = read_file(progress_file());
    BOOST_REQUIRE(!before.empty());
    std::string wrong_shape = f.file("wrong.csv", "1,2\n3,4\n");
    std::string empty = f.file("empty.csv", "");
    const std::vector<std::vector<std::string>> cases = {
        {"check", "3.2", "abc"},
        {"check", "3.1", "abc"},
        {"check", "3.3", "abc"},
        {"check", "8.2", "E"},
        {"check", "3.3", "--file", wrong_shape},
        {"check", "3.3", "--file", empty},
        {"check", "3.2", "--file", empty},
        {"check", "3.3", "--file", (f.dir / "missing.csv").string()},
        {"check", "3.2", "1", "--file", empty},
        {"check", "3.9", "1"},
        {"check", "3.2"},
    };
    for (const auto& args : cases) {
        auto r = run_qkv(args);
        BOOST_TEST_CONTEXT(fmt::format("{}", fmt::join(args, " ")) << " → " << r.err) {
            BOOST_TEST(r.status == 2);
            BOOST_TEST(r.out.empty());
            BOOST_TEST(count_lines(r.err) == 1u);
        }
    }
    BOOST_TEST(has(run_qkv({"check", "3.3", "--file", wrong_shape}).err, "wants a [3, 3] matrix, and the answer is [2, 2]"));
    BOOST_TEST(has(run_qkv({"check", "3.2", "abc"}).err, "'abc' is not a number"));
    BOOST_TEST(has(run_qkv({"check", "3.9", "1"}).err, "did you mean"));
    BOOST_TEST(read_file(progress_file()) == before);
}

BOOST_AUTO_TEST_CASE(hints_come_one_at_a_time) {
    fresh f;
    auto h1 = run_qkv({"hint", "3.2"});
    auto h2 = run_qkv({"hint", "3.2"});
    auto h3 = run_qkv({"hint", "3.2"});
    BOOST_TEST(h1.status == 0);
    BOOST_TEST(has(h1.out, "Hint 1/2"));
    BOOST_TEST(has(h1.out, "s_ij = q(i)·k(j)"));
    BOOST_TEST(!has(h1.out, "Hint 2/2"));
    BOOST_TEST(has(h2.out, "Hint 1/2"));  // every hint so far, not only the newest
    BOOST_TEST(has(h2.out, "Hint 2/2"));
    BOOST_TEST(has(h2.out, "row 3 of K"));
    BOOST_TEST(has(h3.out, "Hint 2/2"));
    BOOST_TEST(has(h3.out, "last hint"));
    BOOST_TEST(has(h3.out, "qkv solution 3.2"));  // where a stuck student goes next
    BOOST_TEST(has(run_qkv({"hint", "3.2", "--lang", "zh"}).out, "提示 2/2"));
    auto p = nlohmann::json::parse(run_qkv({"progress", "--format", "json"}).out);
    for (auto& e : p["exercises"])
        if (e["id"] == "3.2") BOOST_TEST(e["hints"] == 2);
    BOOST_TEST(has(run_qkv({"exercise", "3.2"}).out, "(2/2)"));
}

BOOST_AUTO_TEST_CASE(listing_and_showing_exercises) {
    fresh f;
    auto r = run_qkv({"exercises", "--format", "json"});
    BOOST_TEST(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    std::map<int, int> per_lesson;
    for (auto& e : j["exercises"]) {
        per_lesson[e["lesson"].get<int>()]++;
        for (const char* key : {"id", "lesson", "kind", "question", "status"}) BOOST_TEST(e.contains(key));
        BOOST_TEST(e["status"] == "not tried");
    }
    for (int l = 1; l <= 8; ++l) BOOST_TEST(per_lesson[l] >= 3, "lesson " << l);
    auto zh = nlohmann::json::parse(run_qkv({"exercises", "--format", "json", "--lang", "zh"}).out);
    BOOST_TEST(zh["exercises"][0]["question"] != j["exercises"][0]["question"]);
    auto three = run_qkv({"exercises", "--lesson", "3"});
    BOOST_TEST(three.status == 0);
    BOOST_TEST(has(three.out, "3.1"));
    BOOST_TEST(!has(three.out, "4.1"));
    BOOST_TEST(has(three.out, "0/4"));
    BOOST_TEST(run_qkv({"exercises", "--lesson", "99"}).status == 2);
    auto show = run_qkv({"exercise", "3.2"});
    BOOST_TEST(show.status == 0, show.err);
    BOOST_TEST(has(show.out, "Exercise 3.2"));
    BOOST_TEST(has(show.out, "Q  [3, 4]"));  // the matrices it refers to, as the lesson shows them
    BOOST_TEST(has(show.out, "K  [3, 4]"));
    BOOST_TEST(has(show.out, "qkv check 3.2"));
    auto choice = run_qkv({"exercise", "8.2", "--lang", "zh"});
    BOOST_TEST(has(choice.out, "练习 8.2"));
    BOOST_TEST(has(choice.out, "B. 让模型能并行地从不同的表示子空间里学习信息。"));
}

BOOST_AUTO_TEST_CASE(grading_a_sheet) {
    fresh f;
    BOOST_REQUIRE(run_qkv({"check", "1.1", "0.3"}).status == 0);
    std::string before = read_file(progress_file());
    f.file("S.csv", "1.4825 0.1705 2.5965\n0.498 0.105 1.5669\n2.675 0.145 1.4748\n");
    std::string sheet = f.file("sheet.toml", "\"3.1\" = \"100x100\"\n\"3.2\" = \"0.145\"\n\"3.3\" = \"S.csv\"\n");
    auto r = run_qkv({"grade", sheet});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(has(r.out, "Total: 2/4"));  // 3.4 was not answered
    BOOST_TEST(has(r.out, "no answer"));
    BOOST_TEST(has(r.out, "put the transpose in the wrong place"));
    auto j = nlohmann::json::parse(run_qkv({"grade", sheet, "--format", "json"}).out);
    BOOST_TEST(j["correct"] == 2);
    BOOST_TEST(j["total"] == 4);
    std::map<std::string, std::string> result;
    for (auto& e : j["exercises"]) result[e["id"]] = e["result"];
    BOOST_TEST(result["3.1"] == "correct");
    BOOST_TEST(result["3.2"] == "wrong");
    BOOST_TEST(result["3.3"] == "correct");
    BOOST_TEST(result["3.4"] == "missing");
    BOOST_TEST(j["exercises"][1]["mistakes"][0] == "k_not_transposed");
    std::string full = f.file("full.toml", "\"3.1\" = \"(100, 100)\"\n\"3.2\" = 1.567\n\"3.3\" = \"S.csv\"\n\"3.4\" = \"c\"\n");
    BOOST_TEST(run_qkv({"grade", full}).status == 0);
    std::string bad = f.file("bad.toml", "\"3.1\" = \"100x100\"\n\"3.77\" = \"1\"\n");
    auto e = run_qkv({"grade", bad});  // the unknown id is reported, the rest still graded
    BOOST_TEST(e.status == 1);
    BOOST_TEST(has(e.out, "bad.toml:2"), e.out);
    BOOST_TEST(has(e.out, "3.77"));
    BOOST_TEST(has(e.out, "Total: 1/4"), e.out);  // 3.1 right; 3.2-3.4 not answered
    std::string unreadable = f.file("abc.toml", "\"3.2\" = \"abc\"\n");
    auto u = run_qkv({"grade", unreadable});
    BOOST_TEST(u.status == 1);
    BOOST_TEST(has(u.out, "unreadable"));
    BOOST_TEST(read_file(progress_file()) == before);  // grading is not the teacher's own progress
}

BOOST_AUTO_TEST_CASE(progress_reset_and_corrupt_file) {
    fresh f;
    BOOST_REQUIRE(run_qkv({"check", "2.1", "0.92"}).status == 0);  // 0.2×0.1 + 1.0×0.9
    auto p = run_qkv({"progress"});
    BOOST_TEST(p.status == 0);
    BOOST_TEST(has(p.out, "Lesson 2"));
    BOOST_TEST(has(p.out, "1/3"));
    BOOST_TEST(run_qkv({"progress", "--reset"}).status == 0);
    BOOST_TEST(!fs::exists(progress_file()));
    BOOST_TEST(statuses()["2.1"] == "not tried");

    fs::create_directories(fs::path(progress_file()).parent_path());
    std::ofstream(progress_file()) << "{\"version\": 1, \"exercises\": {\"2.1\": ";  // cut off mid-write
    auto r = run_qkv({"exercises"});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(has(r.err, "warning"));
    BOOST_TEST(has(r.err, "set aside"));
    bool aside = false;
    for (auto& e : fs::directory_iterator(fs::path(progress_file()).parent_path()))
        if (e.path().filename().string().starts_with("progress.json.corrupt-")) aside = true, fs::remove(e.path());
    BOOST_TEST(aside);
    BOOST_TEST(run_qkv({"check", "2.1", "0.92"}).status == 0);  // and work goes on
}

BOOST_AUTO_TEST_CASE(every_command_has_help) {
    for (const char* cmd : {"exercises", "exercise", "check", "hint", "grade", "progress"}) {
        auto r = run_qkv({cmd, "--help"});
        BOOST_TEST_CONTEXT(cmd) {
            BOOST_TEST(r.status == 0);
            BOOST_TEST(has(r.out, std::string("Usage: qkv ") + cmd));
            BOOST_TEST(has(r.out, "--lang"));
        }
    }
    BOOST_TEST(run_qkv({"check", "3.1", "100x100", "--lang", "fr"}).status == 2);
    BOOST_TEST(run_qkv({"exercises", "--format", "markdown"}).status == 2);
}

// Run qkv with standard output into a pipe nobody reads (closed before qkv writes): its output
// cannot be written, as when a terminal goes away.
int run_into_a_closed_pipe(const std::vector<std::string>& args) {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(fds[1], 1);
        ::close(fds[0]), ::close(fds[1]);
        int null = ::open("/dev/null", O_WRONLY);  // its error message is not ours to read
        ::dup2(null, 2);
        std::vector<std::string> copy = args;
        std::vector<char*> argv{const_cast<char*>(std::getenv("QKV_BIN"))};
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(fds[0]), ::close(fds[1]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

int attempts_of(const std::string& id, const char* field = "attempts") {
    auto p = nlohmann::json::parse(run_qkv({"progress", "--format", "json"}).out);
    for (auto& e : p["exercises"])
        if (e["id"] == id) return e[field].get<int>();
    return -1;
}

BOOST_AUTO_TEST_CASE(the_solution_when_stuck_recorded_once_seen) {
    fresh f;
    auto r = run_qkv({"solution", "3.1"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(has(r.out, "Worked solution"));
    auto p = nlohmann::json::parse(read_file(progress_file()));
    BOOST_TEST(p["exercises"]["3.1"]["solution_seen"] == true);
    BOOST_TEST(has(run_qkv({"solution", "3.1", "--lang", "zh"}).out, "解题过程"));
}

BOOST_AUTO_TEST_CASE(output_that_could_not_be_written_is_not_recorded) {
    fresh f;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"check", "3.1", "(1, 1)"}, {"hint", "3.1"}, {"solution", "3.1"}})
        run_into_a_closed_pipe(args);
    bool recorded = fs::exists(progress_file()) && has(read_file(progress_file()), "\"3.1\"");
    BOOST_TEST(!recorded, "a verdict, hint or solution nobody saw was recorded");
    BOOST_TEST(run_qkv({"hint", "3.1"}).status == 0);  // and one that is seen is
    BOOST_TEST(attempts_of("3.1", "hints") == 1);
}

BOOST_AUTO_TEST_CASE(twenty_checks_at_once_lose_no_record) {
    fresh f;
    // 20 processes started together, each checking one answer (10 on 3.1, 10 on 8.2): every one
    // re-reads the file under the lock, so the counts come out exact.
    std::vector<pid_t> pids;
    for (int i = 0; i < 20; ++i) {
        pid_t pid = ::fork();
        if (pid == 0) {
            int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1), ::dup2(null, 2);
            std::string bin = std::getenv("QKV_BIN");
            std::vector<std::string> args = i % 2 ? std::vector<std::string>{bin, "check", "3.1", "(1, 1)"}
                                                  : std::vector<std::string>{bin, "check", "8.2", "A"};
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        pids.push_back(pid);
    }
    for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
    BOOST_TEST(attempts_of("3.1") == 10);
    BOOST_TEST(attempts_of("8.2") == 10);
}

// The numbers of the row labelled `label` in the matrix printed under "NAME  [" in `out`.
std::vector<double> printed_row(const std::string& out, const std::string& name, const std::string& label) {
    std::istringstream in(out.substr(out.find(name + "  [")));
    std::vector<double> row;
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(label + " ")) continue;
        std::istringstream cells(line.substr(label.size()));
        for (double x; cells >> x;) row.push_back(x);
        break;
    }
    return row;
}

BOOST_AUTO_TEST_CASE(a_student_has_their_own_numbers_and_is_graded_on_them) {
    fresh f;
    // carl's Q and K as `qkv exercise 3.2 --student carl` prints them; s23 = q(2)·k(3), by the test
    auto shown = run_qkv({"exercise", "3.2", "--student", "carl"});
    BOOST_REQUIRE(shown.status == 0);
    std::vector<double> q2 = printed_row(shown.out, "Q", "很"), k3 = printed_row(shown.out, "K", "甜");
    BOOST_REQUIRE(q2.size() == 4u);
    BOOST_REQUIRE(k3.size() == 4u);
    double s23 = 0;
    for (int i = 0; i < 4; ++i) s23 += q2[i] * k3[i];
    BOOST_TEST(std::fabs(s23 - 1.5669) > 0.05, "carl's numbers are not the lesson's own");
    // printed to 4 decimals: 4 products of numbers up to ~2 carry under 1e-3 of rounding
    std::string answer = fmt::format("{:.4f}", s23);
    BOOST_TEST(run_qkv({"check", "3.2", answer, "--student", "carl"}).status == 0);
    BOOST_TEST(run_qkv({"check", "3.2", answer}).status == 1);  // not right on the lesson's own numbers
    auto again = run_qkv({"exercise", "3.2", "--student", "carl"}).out;  // the same name, the same numbers
    BOOST_TEST(printed_row(again, "Q", "很") == q2, boost::test_tools::per_element());

    // a class: four sheets in a folder, one of them not TOML at all, one naming its student
    fs::create_directories(f.dir / "class");
    f.file("class/ann.toml", "\"3.1\" = \"(100, 100)\"\n\"3.2\" = \"1.567\"\n");
    f.file("class/bob.toml", "\"3.2\" = \"0.145\"\n");  // K·Qᵀ: the transpose in the wrong place
    f.file("class/carl.toml", "student = \"carl\"\n\"3.2\" = \"" + answer + "\"\n\"9.99\" = \"1\"\n");
    f.file("class/dan.toml", "\"3.2\" = \n");
    std::string folder = (f.dir / "class").string();
    auto r = run_qkv({"grade", folder});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "Class: 4 sheets"), r.out);
    BOOST_TEST(has(r.out, "carl.toml:3"), r.out);  // the unknown id, reported for carl's sheet
    BOOST_TEST(has(r.out, "dan.toml:1"), r.out);   // the unreadable sheet, reported, the others graded
    BOOST_TEST(has(r.out, "2/4 right (3 answered)"), r.out);  // 3.2: ann and carl of the class of 4; dan's is unreadable
    BOOST_TEST(has(r.out, "1 / 4: put the transpose in the wrong place"), r.out);
    auto j = nlohmann::json::parse(run_qkv({"grade", folder, "--format", "json"}).out);
    BOOST_TEST(j["sheets"].size() == 4u);
    for (auto& q : j["questions"])
        if (q["id"] == "3.2") {
            BOOST_TEST(q["right"] == 2);
            BOOST_TEST(q["students"] == 4);
            BOOST_TEST(q["answered"] == 3);
            BOOST_TEST(q["mistakes"][0]["id"] == "k_not_transposed");
        }
    auto csv = run_qkv({"grade", folder, "--format", "csv"});
    BOOST_TEST(has(csv.out, "student,sheet,correct,total,3.1,3.2,3.3,3.4\n"), csv.out);
    BOOST_TEST(has(csv.out, "ann,"), csv.out);
    BOOST_TEST(has(csv.out, ",2,4,1,1,,\n"), csv.out);  // ann: 3.1 and 3.2 right, 3.3 and 3.4 not answered

    // one assignment for the class: lessons 3 and 5 for everyone, so a sheet that leaves out
    // lesson 5 loses its questions (the counts from the exercise files, as qkv exercises lists them)
    auto count_ids = [&](const char* lesson) {
        std::string ids = run_qkv({"exercises", "--ids", "--lesson", lesson}).out;
        return static_cast<std::size_t>(std::count(ids.begin(), ids.end(), '\n'));
    };
    const std::size_t assigned = count_ids("3") + count_ids("5");
    f.file("assignment.toml", "lessons = [3]\nexercises = [" + [&] {
        std::string ids = run_qkv({"exercises", "--ids", "--lesson", "5"}).out, list;
        std::istringstream in(ids);
        for (std::string id; std::getline(in, id);) list += (list.empty() ? "\"" : ", \"") + id + "\"";
        return list;
    }() + "]\n");
    for (const std::vector<std::string>& how : {std::vector<std::string>{"--assignment", (f.dir / "assignment.toml").string()},
                                                std::vector<std::string>{"--lesson", "3", "--lesson", "5"}}) {
        std::vector<std::string> args{"grade", folder, "--format", "json"};
        args.insert(args.end(), how.begin(), how.end());
        auto graded = nlohmann::json::parse(run_qkv(args).out);
        for (auto& sheet : graded["sheets"]) BOOST_TEST(sheet["total"] == assigned, sheet["student"]);
        for (auto& q : graded["questions"]) BOOST_TEST(q["students"] == 4);
    }
    auto other = run_qkv({"grade", folder, "--lesson", "5"});  // ann's 3.1 and 3.2 are outside it
    BOOST_TEST(has(other.out, "3.1 is not in the assignment; not graded"), other.out);
    auto bad = run_qkv({"grade", folder, "--assignment", (f.dir / "class/ann.toml").string()});
    BOOST_TEST(bad.status == 2);
    BOOST_TEST(has(bad.err, "ann.toml:1:"), bad.err);
}

BOOST_AUTO_TEST_CASE(next_says_where_you_are_and_shows_it) {
    fresh f;
    auto first = run_qkv({"next"});
    BOOST_TEST(first.status == 0);
    BOOST_TEST(has(first.out, "Start here: lesson 0"), first.out);
    BOOST_TEST(has(first.out, "Lesson 0 ·"));  // and it runs it
    BOOST_TEST(has(first.out, "Next: qkv lesson 1"));  // the end of a lesson points on
    // lesson 0 read: its first exercise comes next (the ids as the exercise files give them)
    std::string first_id = run_qkv({"exercises", "--ids", "--lesson", "0"}).out;
    first_id = first_id.substr(0, first_id.find('\n'));
    BOOST_REQUIRE(!first_id.empty());
    auto again = run_qkv({"next"});
    BOOST_TEST(has(again.out, "read 1 of"), again.out);
    BOOST_TEST(has(again.out, "Next: exercise " + first_id), again.out);
    BOOST_TEST(has(again.out, "Exercise " + first_id), again.out);  // shown
    BOOST_TEST(has(run_qkv({}).out, "Next: exercise " + first_id));  // a bare qkv says so too
    BOOST_TEST(has(run_qkv({"next", "--lang", "zh"}).out, "下一步：练习 " + first_id));
    // the exercises of lesson 0 marked right in the progress file, as a student's checks would
    nlohmann::json p = nlohmann::json::parse(read_file(progress_file()));
    std::istringstream ids(run_qkv({"exercises", "--ids", "--lesson", "0"}).out);
    for (std::string id; std::getline(ids, id);) p["exercises"][id] = {{"status", "correct"}, {"attempts", 1}, {"hints", 0}};
    std::ofstream(progress_file()) << p.dump();
    BOOST_TEST(has(run_qkv({"next"}).out, "Lesson 1 ·"));  // then lesson 1
}

BOOST_AUTO_TEST_CASE(a_student_has_their_own_order_of_choices) {
    fresh f;
    // 7.3's choices as the exercise file orders them, and the right one's text (qkv solution)
    auto choices_of = [](const std::string& out) {
        std::map<char, std::string> by_letter;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);)
            if (line.size() > 4 && line[0] == ' ' && line[1] == ' ' && line[2] >= 'A' && line[2] <= 'D' && line[3] == '.')
                by_letter[line[2]] = line.substr(5);
        return by_letter;
    };
    const auto file = choices_of(run_qkv({"exercise", "7.3"}).out);
    BOOST_REQUIRE(file.size() == 4u);
    char file_letter = 0;  // the one letter check accepts without a student
    for (char c : {'A', 'B', 'C', 'D'})
        if (run_qkv({"check", "7.3", std::string(1, c)}).status == 0) file_letter = c;
    BOOST_REQUIRE(file_letter != 0);
    std::set<std::string> orders;
    for (std::string student : {"alice", "bob", "carol", "dave", "erin"}) {
        const auto mine = choices_of(run_qkv({"exercise", "7.3", "--student", student}).out);
        BOOST_REQUIRE(mine.size() == 4u);
        std::string order;
        char shown = 0;
        for (auto& [letter, text] : mine) {
            auto it = std::find_if(file.begin(), file.end(), [&](auto& p) { return p.second == text; });
            BOOST_REQUIRE(it != file.end());  // the same choices, in another order
            order += it->first;
            if (it->first == file_letter) shown = letter;
        }
        orders.insert(order);
        BOOST_TEST(mine == choices_of(run_qkv({"exercise", "7.3", "--student", student}).out));  // the same every time
        // graded against the order the student saw: the letter they see beside the right text
        BOOST_TEST(run_qkv({"check", "7.3", std::string(1, shown), "--student", student}).status == 0, student);
        if (shown != file_letter)
            BOOST_TEST(run_qkv({"check", "7.3", std::string(1, file_letter), "--student", student}).status == 1, student);
        // the solution gives the right choice under this student's letter, says whose letter it is,
        // and names none of its own (its prose once began "C." for everyone)
        std::string says = run_qkv({"solution", "7.3", "--student", student}).out;
        std::replace(says.begin(), says.end(), '\n', ' ');
        BOOST_TEST(says.find(std::string(1, shown) + ". " + file.at(file_letter).substr(0, 30)) != std::string::npos, says);
        BOOST_TEST(says.find("(" + std::string(1, shown) + " is the letter in " + student + "'s order of the choices") != std::string::npos, says);
        BOOST_TEST(says.find("in the exercise file's order, it is " + std::string(1, file_letter) + ")") != std::string::npos, says);
        for (char c : {'A', 'B', 'C', 'D'})
            BOOST_TEST(says.find(std::string("  ") + c + ". ") == std::string::npos, says);
    }
    BOOST_TEST(orders.size() >= 3u, "five students, " << orders.size() << " orders");  // 24 orders to draw from
}

BOOST_AUTO_TEST_CASE(plain_qkv_starts_where_its_help_does) {
    // a new learner's bare qkv greeted "Start here: lesson 0" above help ending "Start with: qkv
    // lesson 1": both name the first lesson qkv list shows
    fresh f;
    std::string list = run_qkv({"list"}).out;
    std::size_t digit = list.find_first_of("0123456789");
    BOOST_REQUIRE(digit != std::string::npos);
    const std::string first = list.substr(digit, list.find_first_not_of("0123456789", digit) - digit);
    auto bare = run_qkv({});
    BOOST_TEST(bare.status == 0);
    BOOST_TEST(has(bare.out, "Start here: lesson " + first + " ·"), bare.out);
    BOOST_TEST(has(bare.out, "Start with: qkv lesson " + first + " "), bare.out);
    BOOST_TEST(!has(bare.out, "qkv lesson 1\n"), bare.out);
}
