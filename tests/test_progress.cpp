// Progress on disk: round trips, what a status may become, a corrupt file set aside, and the
// atomic write surviving a writer killed at any moment.
#define BOOST_TEST_MODULE progress
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qkv/error.hpp"
#include "qkv/exercise.hpp"
#include "qkv/progress.hpp"
#include "support/scratch.hpp"

using namespace qkv;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test case, removed afterwards.
struct scratch {
    qkv::test::scratch_dir folder{"progress"};
    const fs::path dir = folder.path;
    std::string file() const { return (dir / "qkv" / "progress.json").string(); }
};

bool same(const progress& a, const progress& b) {
    if (a.by_id.size() != b.by_id.size()) return false;
    for (auto& [id, e] : a.by_id) {
        auto it = b.by_id.find(id);
        if (it == b.by_id.end() || it->second.state != e.state || it->second.attempts != e.attempts ||
            it->second.hints != e.hints)
            return false;
    }
    return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(round_trip_and_missing_file) {
    scratch s;
    std::string warning;
    BOOST_TEST(load_progress(s.file(), &warning).by_id.empty());  // no file yet: nothing done
    BOOST_TEST(warning.empty());
    progress p;
    p.record("3.1", false);
    p.record("3.1", true);
    p.by_id["3.2"].hints = 2;
    save_progress(p, s.file());  // creates the qkv/ folder too
    progress back = load_progress(s.file(), &warning);
    BOOST_TEST(warning.empty());
    BOOST_TEST(same(p, back));
    BOOST_TEST((back.state_of("3.1") == status::correct));
    BOOST_TEST(back.by_id.at("3.1").attempts == 2);
    BOOST_TEST(back.by_id.at("3.2").hints == 2);
    BOOST_TEST((back.state_of("9.9") == status::not_tried));
    // No temporary file is left behind.
    std::size_t files = 0;
    for (auto& e : fs::directory_iterator(fs::path(s.file()).parent_path())) files += e.is_regular_file();
    BOOST_TEST(files == 1u);
}

BOOST_AUTO_TEST_CASE(correct_stays_correct) {
    progress p;
    p.record("1.1", false);
    BOOST_TEST((p.state_of("1.1") == status::wrong));
    p.record("1.1", true);
    p.record("1.1", false);  // trying a wrong answer afterwards does not undo the success
    BOOST_TEST((p.state_of("1.1") == status::correct));
    BOOST_TEST(p.by_id.at("1.1").attempts == 3);
    BOOST_TEST(status_name(status::not_tried) == "not tried");
}

BOOST_AUTO_TEST_CASE(corrupt_file_is_set_aside) {
    scratch s;
    for (const char* junk : {"{\"version\": 1, \"exercises\": {\"3.1\": {\"status\": \"corr", "not json at all",
                             "{\"version\": 2, \"exercises\": {}}",
                             "{\"version\": 1, \"exercises\": {\"3.1\": {\"status\": \"great\", \"attempts\": 1, \"hints\": 0}}}",
                             "[1, 2, 3]", ""}) {
        fs::create_directories(fs::path(s.file()).parent_path());
        std::ofstream(s.file(), std::ios::binary) << junk;
        std::string warning;
        progress p;
        BOOST_CHECK_NO_THROW(p = load_progress(s.file(), &warning));
        BOOST_TEST(p.by_id.empty());
        BOOST_TEST(warning.find("set aside") != std::string::npos, warning);
        BOOST_TEST(!fs::exists(s.file()));
        std::size_t aside = 0;
        for (auto& e : fs::directory_iterator(fs::path(s.file()).parent_path())) {
            if (e.path().filename().string().starts_with("progress.json.corrupt-")) {
                ++aside;
                std::ifstream in(e.path());
                std::string kept((std::istreambuf_iterator<char>(in)), {});
                BOOST_TEST(kept == junk);  // the learner's file is kept, not destroyed
                fs::remove(e.path());
            }
        }
        BOOST_TEST(aside == 1u);
    }
}

BOOST_AUTO_TEST_CASE(path_follows_xdg_then_home) {
    const char* old_xdg = std::getenv("XDG_STATE_HOME");
    std::string saved = old_xdg ? old_xdg : "";
    setenv("XDG_STATE_HOME", "/tmp/xdg-state", 1);
    BOOST_TEST(progress_path() == "/tmp/xdg-state/qkv/progress.json");
    setenv("XDG_STATE_HOME", "", 1);  // empty counts as unset
    setenv("HOME", "/home/learner", 1);
    BOOST_TEST(progress_path() == "/home/learner/.local/state/qkv/progress.json");
    if (old_xdg) setenv("XDG_STATE_HOME", saved.c_str(), 1);
    else unsetenv("XDG_STATE_HOME");
}

BOOST_AUTO_TEST_CASE(reset_removes_the_file) {
    scratch s;
    progress p;
    p.record("2.1", true);
    save_progress(p, s.file());
    reset_progress(s.file());
    BOOST_TEST(!fs::exists(s.file()));
    BOOST_CHECK_NO_THROW(reset_progress(s.file()));  // nothing there: still fine
}

// A child rewrites the file in a loop, alternating two different progresses, and is killed with
// SIGKILL at some moment of a write. Whatever moment it was, the file must read back whole: the
// old progress or the new one, never a mixture, never a parse failure.
BOOST_AUTO_TEST_CASE(killed_mid_write_leaves_old_or_new) {
    scratch s;
    progress a, b;
    a.record("1.1", true);
    for (int i = 1; i <= 40; ++i) b.by_id["8." + std::to_string(i)] = {status::wrong, i, i % 3};  // a longer file
    save_progress(a, s.file());
    for (int round = 0; round < 12; ++round) {
        pid_t child = fork();
        BOOST_REQUIRE(child >= 0);
        if (child == 0) {
            try {
                for (long i = 0;; ++i) save_progress(i % 2 ? a : b, s.file());
            } catch (...) {
            }
            _exit(1);  // never return into the test framework from the child
        }
        std::this_thread::sleep_for(std::chrono::microseconds(3000 + 1700 * round));
        kill(child, SIGKILL);
        int st = 0;
        waitpid(child, &st, 0);
        BOOST_TEST(WIFSIGNALED(st));
        std::string warning;
        progress back = load_progress(s.file(), &warning);
        BOOST_TEST(warning.empty(), warning);
        BOOST_TEST((same(back, a) || same(back, b)));
    }
    // The killed writers' temporary files are swept by the next save.
    save_progress(a, s.file());
    std::size_t files = 0;
    for (auto& e : fs::directory_iterator(fs::path(s.file()).parent_path())) files += e.is_regular_file();
    BOOST_TEST(files == 1u);
}

// 2147483647 attempts is absurd but possible in a hand-edited file; one more must not wrap to a
// negative count, which would make the whole file unreadable and set aside.
BOOST_AUTO_TEST_CASE(an_attempt_counter_at_its_largest_stays_there) {
    scratch s;
    progress p;
    p.by_id["3.1"].attempts = INT_MAX;
    p.record("3.1", false);
    BOOST_TEST(p.by_id.at("3.1").attempts == INT_MAX);
    save_progress(p, s.file());
    std::string warning;
    BOOST_TEST(load_progress(s.file(), &warning).by_id.at("3.1").attempts == INT_MAX);
    BOOST_TEST(warning.empty());
}

// A named pipe where the file should be would block a plain open for ever (no writer comes).
BOOST_AUTO_TEST_CASE(a_progress_file_that_is_a_named_pipe_is_refused_at_once) {
    scratch s;
    fs::create_directories(fs::path(s.file()).parent_path());
    BOOST_REQUIRE(::mkfifo(s.file().c_str(), 0600) == 0);
    BOOST_CHECK_EXCEPTION(load_progress(s.file()), input_error, [](const input_error& e) {
        return std::string(e.what()).find("not a regular file") != std::string::npos;
    });
    BOOST_TEST(fs::is_fifo(s.file()));  // left where it was, not set aside
}

// With neither XDG_STATE_HOME nor HOME, the home folder comes from the password database, never
// from the current folder.
BOOST_AUTO_TEST_CASE(without_home_progress_goes_to_the_users_home_folder) {
    const std::string xdg = std::getenv("XDG_STATE_HOME") ? std::getenv("XDG_STATE_HOME") : "";
    const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
    ::unsetenv("XDG_STATE_HOME");
    ::unsetenv("HOME");
    const passwd* pw = ::getpwuid(::getuid());
    BOOST_REQUIRE(pw);
    const std::string want = std::string(pw->pw_dir) + "/.local/state/qkv/progress.json";
    BOOST_TEST(progress_path() == want);
    ::setenv("HOME", "relative/folder", 1);  // not a folder one can rely on: the database again
    BOOST_TEST(progress_path() == want);
    if (!xdg.empty()) ::setenv("XDG_STATE_HOME", xdg.c_str(), 1);
    if (!home.empty()) ::setenv("HOME", home.c_str(), 1);
    else ::unsetenv("HOME");
}

// Issue 27: a lesson update or a hand edit may leave more hints recorded than the exercise has
// now; what `of` gives is clamped to the exercise (3 hints here), the file's own count untouched.
BOOST_AUTO_TEST_CASE(counts_read_are_clamped_to_the_exercise) {
    exercise e;
    e.id = "3.1";
    e.hints.resize(3);
    progress p;
    p.by_id["3.1"] = {status::wrong, 1, 4, false};
    BOOST_TEST(p.of(e).hints == 3);
    BOOST_TEST(p.by_id.at("3.1").hints == 4);
    p.by_id["3.1"].hints = INT_MAX;
    BOOST_TEST(p.of(e).hints == 3);
    p.by_id["3.1"].hints = 2;
    BOOST_TEST(p.of(e).hints == 2);  // fewer than it has: as recorded
    e.id = "9.9";
    BOOST_TEST(p.of(e).hints == 0);  // never tried
    BOOST_TEST((p.of(e).state == status::not_tried));
}
