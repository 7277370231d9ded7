// What a learner's progress records and where it leads: a reset and a corrupt file set aside, no
// record of output nobody saw, twenty checks at once losing none, and `qkv next` and a bare qkv.
#define BOOST_TEST_MODULE cli_progress
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/progress.hpp"
#include "support/text.hpp"

using namespace qkv::test;

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
