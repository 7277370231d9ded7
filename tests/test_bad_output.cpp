// Where qkv writes, when writing goes wrong: `scenario -o` onto what it must not replace, a standard
// error nobody can read, and a JSON trace too large for the memory. Each ends with status 2 and
// leaves every file as it was.
#define BOOST_TEST_MODULE bad_output
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/run_arranged.hpp"
#include "support/text.hpp"

using qkv::test::count_lines;

// `qkv scenario -o FILE` replaces only a regular file it may write, keeping its mode; a device, a
// named pipe, a symbolic link (to standard output or to a file) or a read-only file stays exactly
// as it was. The device
// is our own (mknod in the scratch folder, numbers of /dev/null), never the machine's.
BOOST_AUTO_TEST_CASE(scenario_output_replaces_only_a_regular_file_it_may_write) {
    qkv::test::scratch_dir s{"bad-output"};
    auto write_to = [](const fs::path& p) { return run_qkv({"scenario", "--tokens", "a b", "-o", p.string()}); };
    auto mode_of = [](const fs::path& p) {
        struct stat st {};
        ::lstat(p.c_str(), &st);
        return st.st_mode;
    };

    const fs::path read_only = s.path / "read-only.toml";
    write_file(read_only, "keep\n");
    fs::permissions(read_only, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    auto r = write_to(read_only);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err.find("read-only") != std::string::npos, r.err);
    BOOST_TEST(read_file(read_only) == "keep\n");
    BOOST_TEST((mode_of(read_only) & 07777) == 0444u);

    const fs::path fifo = s.path / "fifo.toml";
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    r = write_to(fifo);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err.find("not a regular file") != std::string::npos, r.err);
    BOOST_TEST(fs::is_fifo(fifo));

    const fs::path to_stdout = s.path / "stdout.toml";
    fs::create_symlink("/proc/self/fd/1", to_stdout);
    r = write_to(to_stdout);
    BOOST_TEST(r.status == 2, r.err);
    BOOST_TEST(fs::is_symlink(to_stdout));
    BOOST_TEST(fs::read_symlink(to_stdout) == "/proc/self/fd/1");

    const fs::path device = s.path / "null-twin";
    if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {  // root only
        r = write_to(device);
        BOOST_TEST(r.status == 2);
        BOOST_TEST(r.err.find("not a regular file") != std::string::npos, r.err);
        BOOST_TEST(S_ISCHR(mode_of(device)));
    } else {
        BOOST_TEST_MESSAGE("not root: the device case is skipped");
    }

    const fs::path mine = s.path / "mine.toml";  // an ordinary file: replaced, its mode kept
    write_file(mine, "old\n");
    fs::permissions(mine, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    r = write_to(mine);
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(read_file(mine).find("tokens = [\"a\", \"b\"]") != std::string::npos);
    BOOST_TEST((mode_of(mine) & 07777) == 0640u);

    const fs::path link = s.path / "link.toml";  // a link, even to a file qkv may write: refused, both kept
    fs::create_symlink(mine, link);
    const std::string mine_before = read_file(mine);
    r = write_to(link);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err.find("symbolic link") != std::string::npos, r.err);
    BOOST_TEST(fs::is_symlink(link));
    BOOST_TEST(read_file(mine) == mine_before);

    r = run_qkv({"scenario", "--tokens", "a b", "-o", "-"});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.out.find("tokens = [\"a\", \"b\"]") != std::string::npos);
}

namespace {

// Runs qkv with standard error as `arrange` leaves it (closed, or a file that refuses writes);
// returns the exit status, or 128 + the signal that ended it.
int status_with_stderr(const std::vector<std::string>& args, const std::function<void()>& arrange) {
    const char* bin = std::getenv("QKV_BIN");
    std::string program = bin ? bin : "qkv";
    pid_t pid = fork();
    if (pid == 0) {
        int pipe_out[2];  // standard output into a pipe nobody reads: no device touched
        if (::pipe(pipe_out) == 0) ::dup2(pipe_out[1], 1);
        arrange();
        std::vector<std::string> copy = args;
        std::vector<char*> argv{program.data()};
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

// When standard error cannot be written there is nobody to tell, but the exit status still says
// what happened: 2, never "terminate called" (134).
BOOST_AUTO_TEST_CASE(an_unwritable_standard_error_still_ends_with_status_2) {
    qkv::test::scratch_dir s{"bad-output"};
    const std::vector<std::vector<std::string>> errors = {
        {"lesson", "99"}, {"frobnicate"}, {"lesson", "1", "--data", "/nonexistent.toml"}, {"check", "6.2", "nan"}};
    for (const auto& args : errors) {
        BOOST_TEST_CONTEXT("qkv " << args[0]) {
            BOOST_TEST(status_with_stderr(args, [] { ::close(2); }) == 2);  // 2>&-
            BOOST_TEST(status_with_stderr(args, [] {  // a pipe nobody reads: EPIPE
                int p[2];
                if (::pipe(p) == 0) ::dup2(p[1], 2), ::close(p[0]);
            }) == 2);
            const fs::path full = s.path / "full-twin";  // our own /dev/full: ENOSPC on every write
            if (fs::exists(full) || ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0)
                BOOST_TEST(status_with_stderr(args, [&] {
                    int fd = ::open(full.c_str(), O_WRONLY);
                    ::dup2(fd, 2);
                }) == 2);
        }
    }
}

namespace {

// A 2048-token scenario of random numbers: its JSON trace is about 1.8 GiB.
std::string big_scenario() {
    std::string tokens;
    for (int i = 0; i < 2048; ++i) tokens += fmt::format("{}\"t{}\"", i ? ", " : "", i);
    return "name = \"big\"\ntokens = [" + tokens + "]\n[matrices]\nX = { randn = [2048, 4], seed = 7 }\n";
}

// The program under an address-space limit (setrlimit in the child, before exec): exit status and
// standard error; standard output is thrown away.
std::pair<int, std::string> run_with_memory_limit(const std::vector<std::string>& args, rlim_t bytes) {
    return qkv::test::run_arranged(args, [bytes] {
        rlimit lim{bytes, bytes};
        ::setrlimit(RLIMIT_AS, &lim);
        ::dup2(::open("/dev/null", O_WRONLY), 1);
    });
}

}  // namespace

BOOST_AUTO_TEST_CASE(json_too_large_for_the_memory_is_refused_in_one_line) {
    qkv::test::scratch_dir dir{"big-json"};
    write_file(dir / "big.toml", big_scenario());
    const std::string data = (dir / "big.toml").string();
    auto small = run_qkv({"lesson", "3", "--format", "json"});  // the lessons themselves still print JSON
    BOOST_TEST(small.status == 0);
    BOOST_TEST(nlohmann::json::parse(small.out)["lesson"].get<int>() == 3);
#if defined(QKV_PROGRAM_HAS_ASAN)
    // AddressSanitizer reserves terabytes of address space for its shadow: under a 1 GiB RLIMIT_AS
    // the sanitized qkv cannot even start, so the limit is tested by the plain build only.
    BOOST_TEST_MESSAGE("built with AddressSanitizer: the memory-limit part is left to the plain build");
    return;
#endif
    // 1 GiB: enough to run the lesson (text works), far too little for 1.8 GiB of JSON.
    auto [status, said] = run_with_memory_limit({"lesson", "1", "--data", data, "--format", "json"}, rlim_t(1) << 30);
    BOOST_TEST(status == 2);
    BOOST_TEST(count_lines(said) == 1u, said);
    BOOST_TEST(said.find("the JSON trace of this run would take about") != std::string::npos, said);
    BOOST_TEST(said.find("GiB") != std::string::npos);
    auto text = run_with_memory_limit({"lesson", "1", "--data", data, "--format", "text"}, rlim_t(1) << 30);
    BOOST_TEST(text.first == 0, text.second);
}
