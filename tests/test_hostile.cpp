// Hostile input, round three (issue 27): the kinds of input the bad-input suite did not try yet —
// a key nested past any stack, counts in the progress file beyond what an exercise has, files
// planted where qkv writes, a closed standard output, text that would drive the terminal. Every
// case runs in a scratch folder of its own.
#define BOOST_TEST_MODULE hostile
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
    const char* bin = std::getenv("QKV_BIN");
    std::string program = bin ? bin : "qkv";
    int err[2];
    if (::pipe(err) != 0) return {-1, ""};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(err[1], 2), ::close(err[0]), ::close(err[1]);
        ::setenv("XDG_STATE_HOME", state.c_str(), 1);
        arrange();
        std::vector<std::string> copy = args;
        std::vector<char*> argv{program.data()};
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(err[1]);
    std::string said;
    char buf[4096];
    for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
    ::close(err[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), said};
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
    int out[2];
    BOOST_REQUIRE(::pipe(out) == 0);
    ::fcntl(out[1], F_SETFL, ::fcntl(out[1], F_GETFL) | O_NONBLOCK);
    qkv::test::scratch_dir dir{"hostile-eagain"};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1), ::close(out[0]), ::close(out[1]);
        const char* bin = std::getenv("QKV_BIN");
        ::execl(bin, bin, "lesson", "8", "--format", "json", nullptr);  // about 480 kB: many times a pipe's 64 KiB
        ::_exit(127);
    }
    ::close(out[1]);
    ::usleep(500000);  // let it fill the pipe and meet EAGAIN
    std::string got;
    char buf[65536];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
    BOOST_TEST(got.size() > 65536u);
    BOOST_TEST(nlohmann::json::parse(got)["lesson"] == 8);  // whole: it parses
}

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
    for (const char* format : {"text", "html", "markdown", "json"}) {
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

// Item 12: a token "[click](javascript:alert(1))" was escaped in the tables but became a live link
// in the prose, where the lesson quotes it; and a token "```" closed the scenario's code block. What
// the run fills in is shown as text.
BOOST_AUTO_TEST_CASE(a_token_cannot_become_markdown) {
    auto r = run_qkv({"lesson", "1", "--tokens", "[click](javascript:alert(1)) ``` *em*", "--format", "markdown"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    // the preface's fence is longer than the token's three backticks, so it is not closed early
    BOOST_TEST_REQUIRE(r.out.rfind("````toml\n", 0) == 0u, r.out.substr(0, 40));
    const std::size_t code_end = r.out.find("\n````\n");
    BOOST_TEST_REQUIRE(code_end != std::string::npos);
    const std::string handout = r.out.substr(code_end + 6);  // inside the block the tokens are code
    BOOST_TEST(!has(handout, "[click](javascript"), "a live link");
    BOOST_TEST(!has(handout, " *em*"), "live emphasis");
    BOOST_TEST(has(handout, "from \\[click\\](javascript:alert(1)) to \\*em\\*"));  // lesson 1's first text quotes both ends
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
