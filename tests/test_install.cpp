// Installation: `meson install` into a scratch DESTDIR puts the program, the lessons, the data,
// the man page and the bash completion in place; the installed qkv, run from another folder,
// reads its installed lessons (not the source tree), still does after the whole tree is moved,
// finds qkv-full for qkv serve, and QKV_LESSONS points it elsewhere. And what the two programs load.
#define BOOST_TEST_MODULE install
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/scratch.hpp"

namespace fs = std::filesystem;

namespace {

struct result {
    int status = -1;
    std::string out;
};

// Run argv[0] in folder `cwd` with one extra environment variable (or none), capturing stdout
// (and stderr with it, when `both`).
result run_in(const fs::path& cwd, std::vector<std::string> argv, const std::string& env = "", bool both = false) {
    int out[2];
    if (pipe(out) != 0) return {};
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        if (both) dup2(out[1], 2);
        close(out[0]), close(out[1]);
        if (chdir(cwd.c_str()) != 0) _exit(126);
        unsetenv("QKV_LESSONS"), unsetenv("QKV_DATA");
        if (auto eq = env.find('='); eq != std::string::npos) setenv(env.substr(0, eq).c_str(), env.substr(eq + 1).c_str(), 1);
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(out[1]);
    result r;
    char buf[65536];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<std::size_t>(n));
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::vector<int> numbers(const std::string& list_json) {
    std::vector<int> out;
    auto j = nlohmann::json::parse(list_json);
    for (auto& l : j["lessons"]) out.push_back(l["number"].get<int>());
    return out;
}

fs::path find_file(const fs::path& root, const std::string& tail) {
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.path().generic_string().ends_with(tail)) return e.path();
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_installed_qkv_finds_its_own_lessons_from_anywhere) {
    fs::path build = fs::path(std::getenv("QKV_BIN")).parent_path().parent_path();
    qkv::test::scratch_dir dest;
    auto inst = run_in(build, {"meson", "install", "--no-rebuild", "--quiet", "--destdir", dest.path.string()});
    BOOST_REQUIRE_EQUAL(inst.status, 0);

    fs::path qkv = find_file(dest.path, "/bin/qkv");
    BOOST_REQUIRE(!qkv.empty());
    fs::path share = qkv.parent_path().parent_path() / "share";
    BOOST_TEST(fs::exists(share / "qkv/lessons/01-simplified.toml"));
    BOOST_TEST(fs::exists(share / "qkv/lessons/README.md"));
    BOOST_TEST(fs::exists(share / "qkv/lessons/exercises/mistakes.toml"));
    BOOST_TEST(fs::exists(share / "qkv/data/apple.toml"));
    BOOST_TEST(fs::exists(share / "man/man1/qkv.1"));
    BOOST_TEST(fs::exists(share / "bash-completion/completions/qkv"));
    BOOST_TEST(fs::exists(share / "zsh/vendor-completions/_qkv"));
    BOOST_TEST(fs::exists(share / "fish/vendor_completions.d/qkv.fish"));

    // From the root folder, with no QKV_LESSONS: the installed lessons, all of them.
    auto source_list = run_in("/", {std::getenv("QKV_BIN"), "list", "--format", "json"});
    auto list = run_in("/", {qkv.string(), "list", "--format", "json"});
    BOOST_REQUIRE_EQUAL(list.status, 0);
    BOOST_TEST(numbers(list.out) == numbers(source_list.out));
    auto lesson = run_in("/", {qkv.string(), "lesson", "1", "--color", "never", "--lang", "en"});
    BOOST_TEST(lesson.status == 0);
    BOOST_TEST(lesson.out.find("1/") != std::string::npos);

    // Its own copy, not the source tree: a lesson removed from the installation is gone for it.
    fs::remove(share / "qkv/lessons/01-simplified.toml");
    auto fewer = numbers(run_in("/", {qkv.string(), "list", "--format", "json"}).out);
    BOOST_TEST((std::find(fewer.begin(), fewer.end(), 1) == fewer.end()));
    BOOST_TEST(fewer.size() + 1 == numbers(source_list.out).size());

    // The whole tree moved elsewhere (a relocated prefix) still finds its lessons.
    fs::path moved = dest.path / "moved";
    fs::path prefix = qkv.parent_path().parent_path();
    fs::rename(prefix, moved);
    auto after_move = run_in("/", {(moved / "bin/qkv").string(), "list", "--format", "json"});
    BOOST_TEST(after_move.status == 0);
    BOOST_TEST(numbers(after_move.out) == fewer);

    // qkv serve runs in qkv-full, installed in libexec/qkv and found from qkv's own folder, moved
    // or not; without it, qkv serve says where it looked, and the lessons go on.
    auto serve_help = run_in("/", {(moved / "bin/qkv").string(), "serve", "--help", "--lang", "en"});
    BOOST_TEST(serve_help.status == 0);
    BOOST_TEST(serve_help.out.starts_with("Usage: qkv serve"));
    const fs::path full = find_file(moved, "/libexec/qkv/qkv-full");
    BOOST_REQUIRE(!full.empty());
    fs::remove(full);
    auto no_full = run_in("/", {(moved / "bin/qkv").string(), "serve", "--lang", "en"}, "", true);
    BOOST_TEST(no_full.status == 2);
    BOOST_TEST(no_full.out.find(full.lexically_normal().string()) != std::string::npos, no_full.out);
    BOOST_TEST(std::count(no_full.out.begin(), no_full.out.end(), '\n') == 1);
    BOOST_TEST(run_in("/", {(moved / "bin/qkv").string(), "lesson", "3", "--color", "never"}).status == 0);  // (1 is removed above)

    // QKV_LESSONS points it at another folder.
    qkv::test::scratch_dir mine;
    fs::copy_file("lessons/03-scores.toml", mine.path / "42-mine.toml");
    auto other = run_in("/", {(moved / "bin/qkv").string(), "list", "--format", "json"}, "QKV_LESSONS=" + mine.path.string());
    BOOST_TEST(other.status == 0);
    BOOST_TEST((numbers(other.out) == std::vector<int>{3}));  // the number inside the file
}

// The program a learner starts loads neither the server's libraries nor Open MPI's (the dynamic
// loader's own list of what it maps, LD_TRACE_LOADED_OBJECTS, as ldd prints it); qkv-full, which
// qkv hands those commands to, loads them.
BOOST_AUTO_TEST_CASE(the_program_a_learner_starts_loads_neither_the_server_nor_mpi) {
    const fs::path qkv = std::getenv("QKV_BIN"), full = qkv.parent_path() / "qkv-full";
    auto loaded = [](const fs::path& program) {
        return run_in("/", {program.string()}, "LD_TRACE_LOADED_OBJECTS=1").out;
    };
    const std::string core = loaded(qkv), whole = loaded(full);
    BOOST_TEST_REQUIRE(core.find("libopenblas") != std::string::npos, core);  // the list is there
    for (const char* lib : {"libcpp-httplib", "libssl", "libsqlite3", "libqrencode", "libmpi"})
        BOOST_TEST(core.find(lib) == std::string::npos, lib << " in qkv's:\n" << core);
    for (const char* lib : {"libcpp-httplib", "libsqlite3", "libqrencode"})
        BOOST_TEST(whole.find(lib) != std::string::npos, lib << " not in qkv-full's:\n" << whole);
}
