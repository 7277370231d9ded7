// Hostile files and outputs: the kinds of input the bad-input suite does not try — a key nested
// past any stack, counts in the progress file beyond what an exercise has, files planted where qkv
// writes, a closed or full standard output. Text that would drive the terminal and numbers out of
// range are in test_hostile_text.cpp. Every case runs in a scratch folder of its own.
#define BOOST_TEST_MODULE hostile_files
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <functional>
#include <string>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/run_arranged.hpp"

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

namespace {

// The bytes of a .npy file as NumPy's format 1.0 lays them out: magic, version, header length
// (little-endian), the header, the floats. Returns the header text, or "" when the layout is wrong.
std::string npy_header(const std::string& bytes, std::size_t floats) {
    if (bytes.size() < 10 || bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) != 0) return "";
    const std::size_t len = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    if ((10 + len) % 64 != 0 || bytes.size() != 10 + len + 4 * floats) return "";
    return bytes.substr(10, len);
}

}  // namespace

// Item 6: `qkv bench --dump-dir` wrote with fopen: through a planted link onto its target, over a
// read-only file (as root), into a named pipe (blocking for ever), and it made every missing folder
// of the path. It now writes through the one writer scenario -o and the progress file use. The
// victim of the link is a file of the scratch folder.
BOOST_AUTO_TEST_CASE(bench_dumps_replace_only_regular_files_and_make_one_folder) {
    qkv::test::scratch_dir dir{"hostile-dump"};
    const fs::path dump = dir / "dump";
    fs::create_directories(dump);
    auto bench = [&](const fs::path& where) {
        return run_qkv({"bench", "--n", "8", "--d-model", "16", "--heads", "2", "--repeats", "1", "--impl", "blas", "--dump-dir", where.string()});
    };
    write_file(dir / "victim", "keep\n");
    fs::create_symlink(dir / "victim", dump / "X_n8.npy");
    auto r = bench(dump);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "X_n8.npy: a symbolic link"), r.err);
    BOOST_TEST(read_file(dir / "victim") == "keep\n");
    BOOST_TEST(fs::is_symlink(dump / "X_n8.npy"));
    fs::remove(dump / "X_n8.npy");

    write_file(dump / "X_n8.npy", "old\n");
    fs::permissions(dump / "X_n8.npy", fs::perms::owner_read);
    r = bench(dump);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(has(r.err, "X_n8.npy: read-only"), r.err);
    BOOST_TEST(read_file(dump / "X_n8.npy") == "old\n");
    fs::remove(dump / "X_n8.npy");

    BOOST_REQUIRE(::mkfifo((dump / "X_n8.npy").c_str(), 0600) == 0);
    const auto start = std::chrono::steady_clock::now();
    r = bench(dump);  // would block for ever opening the pipe for writing
    BOOST_TEST(r.status == 2);
    BOOST_TEST(has(r.err, "not a regular file"), r.err);
    BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(60)));
    BOOST_TEST(fs::is_fifo(dump / "X_n8.npy"));
    fs::remove(dump / "X_n8.npy");

    // a missing folder two levels down is not made (nor is its parent); one level is
    r = bench(dir / "none" / "x");
    BOOST_TEST(r.status == 2);
    BOOST_TEST(has(r.err, "none/x: --dump-dir: cannot make this folder"), r.err);
    BOOST_TEST(!fs::exists(dir / "none"));
    r = bench(dir / "fresh");
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    // X is [8, 16] (n × d_model), W_Q [16, 16], Z [8, 16]; nothing else is left in the folder
    BOOST_TEST(has(npy_header(read_file(dir / "fresh" / "X_n8.npy"), 8 * 16), "'shape': (8, 16)"));
    BOOST_TEST(has(npy_header(read_file(dir / "fresh" / "W_Q.npy"), 16 * 16), "'shape': (16, 16)"));
    BOOST_TEST(has(npy_header(read_file(dir / "fresh" / "Z_blas_n8.npy"), 8 * 16), "'descr': '<f4'"));
    BOOST_TEST(std::distance(fs::directory_iterator(dir / "fresh"), fs::directory_iterator{}) == 6);
}

// Item 6 for the progress file: the same writer, so a link planted at progress.json is refused
// (the victim kept) and the hint it would have recorded is not shown as recorded.
BOOST_AUTO_TEST_CASE(the_progress_file_is_never_written_through_a_link) {
    qkv::test::scratch_dir dir{"hostile-progress-link"};
    fs::create_directories(dir / "qkv");
    write_file(dir / "victim", "{\"version\":1,\"exercises\":{}}\n");
    fs::create_symlink(dir / "victim", dir / "qkv" / "progress.json");
    auto r = run_qkv({"hint", "3.1"}, "", {{"XDG_STATE_HOME", dir.path.string()}});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "progress.json: cannot save progress: a symbolic link"), r.err);
    BOOST_TEST(read_file(dir / "victim") == "{\"version\":1,\"exercises\":{}}\n");
    BOOST_TEST(fs::is_symlink(dir / "qkv" / "progress.json"));
}

namespace {

// qkv run with its standard output as `arrange` leaves it in the child (closed, a file past a size
// limit); standard error is read back. Returns the exit status (or 128 + signal) and stderr.
std::pair<int, std::string> run_with_stdout(const std::vector<std::string>& args, const std::string& state,
                                            const std::function<void()>& arrange) {
    return qkv::test::run_arranged(args, [&] {
        ::setenv("XDG_STATE_HOME", state.c_str(), 1);
        arrange();
    });
}

}  // namespace

// Item 7: qkv parked /dev/null on a closed standard output, so `qkv hint 3.1 >&-` exited 0 and
// recorded a hint nobody saw, and `qkv lesson 1 >&-` marked the lesson read. A closed output, or
// one that fails (a file past RLIMIT_FSIZE: EFBIG, no device needed), is status 2 in one line, and
// nothing is recorded.
BOOST_AUTO_TEST_CASE(a_closed_or_failing_standard_output_is_an_error_and_records_nothing) {
    qkv::test::scratch_dir dir{"hostile-stdout"};
    const std::string state = (dir / "state").string();
    const fs::path sink = dir / "sink";
    const std::vector<std::pair<std::string, std::function<void()>>> outputs = {
        {"closed", [] { ::close(1); }},
        {"failing", [&] {
             const int fd = ::open(sink.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
             ::dup2(fd, 1), ::close(fd);
             ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing
             rlimit lim{16, 16};
             ::setrlimit(RLIMIT_FSIZE, &lim);
         }}};
    for (const auto& [how, arrange] : outputs)
        for (const std::vector<std::string>& args : {std::vector<std::string>{"hint", "3.1"}, {"solution", "3.1"},
                                                     {"lesson", "1"}, {"check", "3.1", "(100, 100)"}})
            BOOST_TEST_CONTEXT(how << " stdout, qkv " << args[0]) {
                auto [status, said] = run_with_stdout(args, state, arrange);
                BOOST_TEST(status == 2);
                BOOST_TEST(count_lines(said) == 1u, said);
                BOOST_TEST(has(said, "standard output"), said);
                BOOST_TEST(!fs::exists(dir / "state" / "qkv" / "progress.json"), "something nobody saw was recorded");
            }
    // and seen, it is recorded
    BOOST_TEST(run_qkv({"hint", "3.1"}, "", {{"XDG_STATE_HOME", state}}).status == 0);
    BOOST_TEST(has(read_file(dir / "state" / "qkv" / "progress.json"), "\"hints\": 1"));
}

// A non-blocking standard output that fills (EAGAIN) is waited on, not fatal: a reader that comes
// late still gets every byte.
BOOST_AUTO_TEST_CASE(a_full_non_blocking_standard_output_is_waited_on) {
    qkv::test::scratch_dir dir{"hostile-eagain"};
    auto [status, got] = qkv::test::run_reading(
        1, {"lesson", "8", "--format", "json"},  // about 480 kB: many times a pipe's 64 KiB
        [] { ::fcntl(1, F_SETFL, ::fcntl(1, F_GETFL) | O_NONBLOCK); },
        [] { ::usleep(500000); });  // let it fill the pipe and meet EAGAIN
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
    BOOST_TEST(got.size() > 65536u);
    BOOST_TEST(nlohmann::json::parse(got)["lesson"] == 8);  // whole: it parses
}
