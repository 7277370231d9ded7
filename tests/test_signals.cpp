// Ctrl-C, SIGTERM and a closed pipe while qkv holds a terminal: a lesson being printed, stepping
// and presenting, run on a pseudo-terminal. The terminal mode read back afterwards must be the one
// before, the exit status the conventional one (130, 143, 141), and no partial file left behind.
#define BOOST_TEST_MODULE signals
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <utmp.h>

#include "support/run_qkv.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// qkv running with its standard input, output and error on a fresh pseudo-terminal (standard
// output on a pipe instead when asked), and the terminal's mode from before it started.
class on_pty {
public:
    // With job_control, qkv runs as a shell would run it: in a foreground process group of its own
    // under a session leader that waits for it, so that Ctrl-Z really stops it (the kernel does not
    // stop a process group that has no parent in its session).
    explicit on_pty(const std::vector<std::string>& args, bool stdout_to_pipe = false, bool job_control = false) {
        winsize size{24, 100, 0, 0};
        BOOST_REQUIRE(openpty(&master_, &slave_, nullptr, nullptr, &size) == 0);
        BOOST_REQUIRE(tcgetattr(slave_, &before_) == 0);
        int out[2] = {-1, -1}, report[2] = {-1, -1}, control[2] = {-1, -1};
        if (stdout_to_pipe) BOOST_REQUIRE(pipe(out) == 0);
        if (job_control) BOOST_REQUIRE(pipe(report) == 0 && pipe(control) == 0);
        const char* bin = std::getenv("QKV_BIN");
        std::string program = bin ? bin : "qkv";
        pid_ = fork();
        BOOST_REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            close(master_);
            if (login_tty(slave_) != 0) _exit(126);  // new session, the pty as controlling terminal
            if (stdout_to_pipe) dup2(out[1], 1), close(out[0]), close(out[1]);
            setenv("TERM", "xterm-256color", 1);
            if (job_control) {
                pid_t job = fork();  // the job runs qkv, this process waits for it like a shell
                if (job != 0) close(control[1]), be_a_shell_for(job, report[1], control[0]);
                setpgid(0, 0);
                std::signal(SIGTTOU, SIG_IGN);  // a background group may not take the terminal otherwise
                tcsetpgrp(0, getpid());
                std::signal(SIGTTOU, SIG_DFL);
                close(report[0]), close(report[1]), close(control[0]), close(control[1]);
            }
            exec_qkv(program, args);
        }
        if (stdout_to_pipe) close(out[1]), pipe_ = out[0];
        qkv_pid_ = pid_;
        if (job_control) {
            close(report[1]), close(control[0]);
            control_ = control[1];
            BOOST_REQUIRE(read(report[0], &qkv_pid_, sizeof qkv_pid_) == static_cast<ssize_t>(sizeof qkv_pid_));
            close(report[0]);
        }
        fcntl(master_, F_SETFL, fcntl(master_, F_GETFL) | O_NONBLOCK);
    }
    ~on_pty() {
        if (pid_ > 0 && !status_) kill(pid_, SIGKILL), waitpid(pid_, nullptr, 0);
        for (int fd : {master_, slave_, pipe_, control_})
            if (fd >= 0) close(fd);
    }

    // Read what the terminal shows until `pred` holds or the time is up.
    template <typename P>
    bool until(P pred, std::chrono::milliseconds limit = 10s) {
        auto end = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < end) {
            drain();
            if (pred()) return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    }
    // The program has put the terminal in raw mode: it is waiting for a key.
    bool raw() const {
        termios t{};
        return tcgetattr(slave_, &t) == 0 && !(t.c_lflag & ICANON);
    }
    void type(const std::string& keys) { BOOST_REQUIRE(write(master_, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size())); }
    void signal(int sig) { kill(qkv_pid_, sig); }
    // What a shell does when a job stops: its own terminal mode back (the mode before qkv ran).
    void shell_takes_the_terminal() { BOOST_REQUIRE(tcsetattr(slave_, TCSANOW, &before_) == 0); }
    // What the shell (with job_control) does to the stopped job: `bg` ('b': the terminal stays
    // the shell's, the job continues), `fg` ('f': the job's again, continued), `kill %1` ('k':
    // SIGTERM, then SIGCONT so that a stopped job can die of it, as bash and dash do).
    void shell_does(char what) { BOOST_REQUIRE(write(control_, &what, 1) == 1); }
    // Stopped, as /proc/PID/stat says ('T').
    bool stopped() const {
        std::ifstream stat("/proc/" + std::to_string(qkv_pid_) + "/stat");
        std::string line;
        std::getline(stat, line);
        auto close = line.rfind(')');
        return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'T';
    }
    void close_pipe() { close(pipe_), pipe_ = -1; }
    std::string read_pipe(std::size_t at_least) {
        std::string got;
        char buf[4096];
        while (got.size() < at_least) {
            ssize_t n = read(pipe_, buf, sizeof buf);
            if (n <= 0) break;
            got.append(buf, static_cast<std::size_t>(n));
        }
        return got;
    }

    // The exit status as a shell reports it (128 + signal for a death by signal).
    int wait_status() {
        auto end = std::chrono::steady_clock::now() + 20s;
        int st = 0;
        while (waitpid(pid_, &st, WNOHANG) == 0) {
            drain();
            if (std::chrono::steady_clock::now() > end) {
                kill(pid_, SIGKILL), waitpid(pid_, &st, 0);
                BOOST_FAIL("qkv did not end within 20 s");
            }
            std::this_thread::sleep_for(5ms);
        }
        drain();
        status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return *status_;
    }
    // The terminal's mode now is the mode before: every flag and the read settings.
    bool mode_restored() const {
        termios after{};
        if (tcgetattr(slave_, &after) != 0) return false;
        return after.c_lflag == before_.c_lflag && after.c_iflag == before_.c_iflag &&
               after.c_oflag == before_.c_oflag && after.c_cflag == before_.c_cflag &&
               after.c_cc[VMIN] == before_.c_cc[VMIN] && after.c_cc[VTIME] == before_.c_cc[VTIME];
    }
    const std::string& screen() const { return screen_; }

private:
    int master_ = -1, slave_ = -1, pipe_ = -1, control_ = -1;
    pid_t pid_ = -1, qkv_pid_ = -1;

    [[noreturn]] static void exec_qkv(std::string program, std::vector<std::string> args) {
        std::vector<char*> argv{program.data()};
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    // The session leader's part: qkv's pid reported, shell_does's commands carried out, its exit
    // status passed on (a stop is not an end: waitpid without WUNTRACED).
    [[noreturn]] static void be_a_shell_for(pid_t job, int report, int control) {
        setpgid(job, job);
        (void)!write(report, &job, sizeof job);
        close(report);
        std::signal(SIGTTOU, SIG_IGN);  // the shell takes the terminal back from a background job
        int st = 0;
        for (;;) {
            const pid_t done = waitpid(job, &st, WNOHANG);
            if (done == job) break;
            if (done < 0 && errno != EINTR) _exit(125);
            pollfd c{control, POLLIN, 0};
            char what = 0;
            if (poll(&c, 1, 10) != 1 || read(control, &what, 1) != 1) continue;
            tcsetpgrp(0, what == 'f' ? job : getpgrp());
            if (what == 'k') kill(-job, SIGTERM);
            kill(-job, SIGCONT);
        }
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
    termios before_{};
    std::string screen_;
    std::optional<int> status_;

    void drain() {
        char buf[4096];
        ssize_t n;
        while ((n = read(master_, buf, sizeof buf)) > 0) screen_.append(buf, static_cast<std::size_t>(n));
    }
};

bool has(const std::string& s, const std::string& piece) { return s.find(piece) != std::string::npos; }

constexpr char enter_alternate[] = "\x1b[?1049h", leave_alternate[] = "\x1b[?1049l";

// SIGTERM once qkv waits for a key: it ends with status 143 (128 + 15) and the terminal's mode restored.
void sigterm_while_waiting(on_pty& p) {
    BOOST_REQUIRE(p.until([&] { return p.raw(); }));
    p.signal(SIGTERM);
    BOOST_TEST(p.wait_status() == 143);
    BOOST_TEST(p.mode_restored());
}

}  // namespace

BOOST_AUTO_TEST_CASE(ctrl_c_while_stepping_restores_the_terminal_and_exits_130) {
    on_pty p({"lesson", "3", "--step"});
    BOOST_REQUIRE_MESSAGE(p.until([&] { return p.raw(); }), "the stepper never waited for a key: " << p.screen());
    p.type("n");  // one stage on, so the interrupt comes mid-lesson
    p.type("\x03");  // Ctrl-C, through the terminal's line discipline
    BOOST_TEST(p.wait_status() == 130);
    BOOST_TEST(p.mode_restored());
}

BOOST_AUTO_TEST_CASE(sigterm_while_stepping_restores_the_terminal_and_exits_143) {
    on_pty p({"lesson", "5", "--step", "--stage", "2"});
    sigterm_while_waiting(p);
}

BOOST_AUTO_TEST_CASE(ctrl_c_while_presenting_gives_back_the_screen_and_the_mode) {
    on_pty p({"lesson", "8", "--present"});
    BOOST_REQUIRE_MESSAGE(p.until([&] { return p.raw(); }), "the presenter never waited for a key: " << p.screen());
    p.type("\x03");
    BOOST_TEST(p.wait_status() == 130);
    BOOST_TEST(p.mode_restored());
    const std::string& s = p.screen();
    BOOST_TEST(has(s, enter_alternate));
    BOOST_TEST(s.rfind(leave_alternate) != std::string::npos);
    BOOST_TEST(s.rfind(leave_alternate) > s.rfind(enter_alternate), "the alternate screen was not left last");
}

BOOST_AUTO_TEST_CASE(sigterm_while_presenting_gives_back_the_screen_and_the_mode) {
    on_pty p({"lesson", "4", "--present", "--auto", "30"});
    sigterm_while_waiting(p);
    BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
}

BOOST_AUTO_TEST_CASE(ctrl_c_and_sigterm_while_a_lesson_prints) {
    // Nobody reads the terminal, so qkv blocks writing `lesson all` once the pty's buffer is full:
    // the signal comes mid-output, deterministically.
    for (int sig : {SIGINT, SIGTERM}) {
        on_pty p({"lesson", "all", "--color", "always"});
        std::this_thread::sleep_for(300ms);
        if (sig == SIGINT) p.type("\x03");
        else p.signal(SIGTERM);
        BOOST_TEST(p.wait_status() == 128 + sig);
        BOOST_TEST(p.mode_restored());
    }
}

BOOST_AUTO_TEST_CASE(a_closed_pipe_while_stepping_ends_quietly_with_the_terminal_restored) {
    on_pty p({"lesson", "3", "--step", "--color", "never"}, true);  // keys from the pty, stages to a pipe
    std::string first = p.read_pipe(10);
    BOOST_TEST(!first.empty());
    BOOST_REQUIRE(p.until([&] { return p.raw(); }));
    p.close_pipe();
    p.type("n");  // the next stage meets the closed pipe
    BOOST_TEST(p.wait_status() == 141);
    BOOST_TEST(p.mode_restored());
    BOOST_TEST(!has(p.screen(), "qkv:"), "said on the terminal: " << p.screen());
}

BOOST_AUTO_TEST_CASE(a_closed_pipe_while_a_lesson_prints_ends_quietly) {
    on_pty p({"lesson", "all"}, true);
    p.read_pipe(100);
    p.close_pipe();
    BOOST_TEST(p.wait_status() == 141);
    BOOST_TEST(p.mode_restored());
    BOOST_TEST(!has(p.screen(), "qkv:"), p.screen());
}

// `qkv scenario -o FILE` killed at any moment leaves FILE absent or whole, and no temporary.
BOOST_AUTO_TEST_CASE(a_scenario_killed_while_written_leaves_no_partial_file) {
    const qkv::test::scratch_dir scratch("signals"), sink_dir("signals-output");
    const fs::path dir = scratch.path;
    std::string tokens;
    for (int i = 0; i < 64; ++i) tokens += "t" + std::to_string(i) + " ";
    std::vector<std::string> args{"scenario", "--tokens", tokens, "--d-model", "512", "-o", (dir / "s.toml").string()};
    auto t0 = std::chrono::steady_clock::now();
    BOOST_REQUIRE(qkv::test::run_qkv(args).status == 0);
    auto whole_run = std::chrono::steady_clock::now() - t0;
    std::ifstream in(dir / "s.toml", std::ios::binary);
    std::ostringstream whole;
    whole << in.rdbuf();
    BOOST_REQUIRE(whole.str().size() > 1000000u);  // 4 weights of [512, 512]: megabytes to write
    // The file is written in the last tenth or so of a run: most kills land around there.
    std::vector<int> percent{0, 30, 60};
    for (int k = 80; k <= 110; ++k) percent.push_back(k);
    for (std::size_t k = 0; k < percent.size(); ++k) {
        fs::remove(dir / "s.toml");
        pid_t pid = fork();
        if (pid == 0) {
            int sink = open((sink_dir / "output").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);  // a file, no device
            dup2(sink, 1), dup2(sink, 2);
            std::vector<char*> argv{const_cast<char*>(std::getenv("QKV_BIN"))};
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        std::this_thread::sleep_for(whole_run * percent[k] / 100);
        kill(pid, k % 2 ? SIGINT : SIGTERM);
        int st = 0;
        waitpid(pid, &st, 0);
        std::vector<std::string> left;
        for (auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
        BOOST_TEST_CONTEXT("kill after " << percent[k] << "% of a run") {
            BOOST_TEST(left.size() <= 1u, "left: " << left.size() << " files, the first " << (left.empty() ? "" : left[0]));
            if (left.size() == 1u) {
                BOOST_TEST(left[0] == "s.toml");
                std::ifstream got_in(dir / "s.toml", std::ios::binary);
                std::ostringstream got;
                got << got_in.rdbuf();
                BOOST_TEST((got.str() == whole.str()), "s.toml is not the whole scenario");
            }
        }
    }
}

// Ctrl-\ is Ctrl-C with a core: the terminal comes back all the same, and the screen too.
BOOST_AUTO_TEST_CASE(ctrl_backslash_restores_the_terminal_and_the_screen) {
    {
        on_pty p({"lesson", "3", "--step"});
        BOOST_REQUIRE(p.until([&] { return p.raw(); }));
        p.type("\x1c");  // Ctrl-\\, SIGQUIT through the line discipline
        BOOST_TEST(p.wait_status() == 131);
        BOOST_TEST(p.mode_restored());
    }
    on_pty p({"lesson", "8", "--present"});
    BOOST_REQUIRE(p.until([&] { return p.raw(); }));
    p.type("\x1c");
    BOOST_TEST(p.wait_status() == 131);
    BOOST_TEST(p.mode_restored());
    BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
    BOOST_TEST(p.screen().rfind("\x1b[?25h") > p.screen().rfind("\x1b[?25l"), "the cursor stayed hidden");
}

// Ctrl-Z gives the shell a normal terminal (main screen, cursor, cooked mode) before stopping;
// fg takes raw mode and the screen again and redraws; q still ends cleanly. --step on a terminal
// takes the screen as --present does, so both are checked alike.
BOOST_AUTO_TEST_CASE(ctrl_z_gives_the_terminal_back_and_fg_takes_it_again) {
    for (const char* mode : {"--present", "--step"}) {
        BOOST_TEST_CONTEXT(mode) {
            on_pty p({"lesson", "5", mode}, false, true);
            BOOST_REQUIRE(p.until([&] { return p.raw(); }));
            p.type("\x1a");  // Ctrl-Z through the line discipline
            BOOST_REQUIRE(p.until([&] { return p.stopped(); }));
            BOOST_TEST(p.mode_restored());
            BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
            const std::size_t before = p.screen().size();
            p.signal(SIGCONT);  // what fg sends
            BOOST_TEST(p.until([&] { return p.raw(); }));
            BOOST_TEST(p.until([&] { return p.screen().rfind(enter_alternate) > p.screen().rfind(leave_alternate); }));
            BOOST_TEST(p.until([&] { return p.screen().size() > before + 200; }), "no redraw after fg");
            p.type("q");
            BOOST_TEST(p.wait_status() == 0);
            BOOST_TEST(p.mode_restored());
        }
    }
}

// Ctrl-Z, then `bg`: the job runs on in the background, and the terminal stays the shell's (its
// mode, the main screen, nothing drawn over the prompt) until `fg` gives it back, when qkv takes
// raw mode again and redraws. Before, every SIGCONT took the terminal, from the background too:
// the shell's screen switched to the alternate one and the job stopped again on SIGTTOU.
// The same after a SIGSTOP, which no handler sees: then `bg` is when qkv gives the terminal back.
BOOST_AUTO_TEST_CASE(ctrl_z_then_bg_leaves_the_terminal_to_the_shell_until_fg) {
    for (const char* mode : {"--present", "--step"})
        for (const bool by_sigstop : {false, true}) {
        BOOST_TEST_CONTEXT(mode << (by_sigstop ? ", SIGSTOP" : ", Ctrl-Z")) {
            on_pty p({"lesson", "5", mode}, false, true);
            // the first screen whole (its bottom line), so that the stop does not land inside it:
            // a SIGSTOP there would leave the rest to be written after bg (no handler sees it)
            BOOST_REQUIRE(p.until([&] { return p.raw() && has(p.screen(), "quit"); }));
            if (by_sigstop) p.signal(SIGSTOP);
            else p.type("\x1a");
            BOOST_REQUIRE(p.until([&] { return p.stopped(); }));
            if (by_sigstop) {  // what bg gives back: the mode and the screen
                p.shell_does('b');
                BOOST_REQUIRE(p.until([&] { return p.mode_restored() && p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate); }));
                p.signal(SIGSTOP);  // and stopped again, so the rest runs as after Ctrl-Z
                BOOST_REQUIRE(p.until([&] { return p.stopped(); }));
            }
            p.until([] { return false; }, 100ms);  // what it wrote before it stopped, read to the end
            const std::size_t given_back = p.screen().size();
            p.shell_does('b');
            BOOST_REQUIRE(p.until([&] { return !p.stopped(); }));
            std::this_thread::sleep_for(300ms);  // time to take the terminal, were it to
            p.until([] { return false; }, 50ms);  // read what it wrote
            BOOST_TEST(!p.stopped(), "stopped again in the background (it touched the terminal)");
            BOOST_TEST(p.mode_restored());
            BOOST_TEST(p.screen().size() == given_back, "written in the background: " << p.screen().substr(given_back));
            p.shell_does('f');
            BOOST_TEST(p.until([&] { return p.raw(); }), "fg did not take raw mode again");
            BOOST_TEST(p.until([&] { return p.screen().size() > given_back + 200; }), "no redraw after fg");
            p.type("q");
            BOOST_TEST(p.wait_status() == 0);
            BOOST_TEST(p.mode_restored());
            BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
        }
        }
}

// `kill %1` on a job stopped by Ctrl-Z: SIGTERM, then SIGCONT. qkv must die of it (143) with the
// terminal as the shell has it, not take raw mode and the screen back on the way (it did: the
// SIGCONT handler ran before or inside SIGTERM's, and the job stopped again on SIGTTOU, or died
// with the terminal raw). Five times each, since the two handlers' order is the kernel's.
BOOST_AUTO_TEST_CASE(kill_of_a_job_stopped_by_ctrl_z_ends_it_with_the_terminal_restored) {
    for (const char* mode : {"--present", "--step"})
        for (int round = 0; round < 5; ++round) {
            BOOST_TEST_CONTEXT(mode << ", round " << round) {
                on_pty p({"lesson", "5", mode}, false, true);
                BOOST_REQUIRE(p.until([&] { return p.raw(); }));
                p.type("\x1a");
                BOOST_REQUIRE(p.until([&] { return p.stopped(); }));
                p.shell_does('k');
                BOOST_TEST(p.wait_status() == 143);
                BOOST_TEST(p.mode_restored());
                BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
                BOOST_TEST(p.screen().rfind("\x1b[?25h") > p.screen().rfind("\x1b[?25l"), "the cursor stayed hidden");
            }
        }
}

// Issue 27, item 5: SIGSTOP (what `kill -STOP` or a debugger sends) is seen by no handler, so the
// terminal is not given back before the stop; the shell then puts its own cooked mode back. On
// SIGCONT qkv must take raw mode again and redraw, or keys echo and wait for Enter.
BOOST_AUTO_TEST_CASE(sigstop_then_sigcont_takes_raw_mode_again_and_redraws) {
    for (const char* mode : {"--present", "--step"}) {
        BOOST_TEST_CONTEXT(mode) {
            on_pty p({"lesson", "5", mode}, false, true);
            BOOST_REQUIRE(p.until([&] { return p.raw(); }));
            p.signal(SIGSTOP);
            BOOST_REQUIRE(p.until([&] { return p.stopped(); }));
            p.shell_takes_the_terminal();
            BOOST_REQUIRE(!p.raw());
            const std::size_t before = p.screen().size();
            p.signal(SIGCONT);
            BOOST_TEST(p.until([&] { return p.raw(); }), "raw mode not taken again after SIGCONT");
            BOOST_TEST(p.until([&] { return p.screen().size() > before + 200; }), "no redraw after SIGCONT");
            p.type("q");
            BOOST_TEST(p.wait_status() == 0);
            BOOST_TEST(p.mode_restored());
        }
    }
}

// `qkv train --live` interrupted mid-run: the terminal comes back as it was, the status is 130,
// and --save's file holds what was learned so far, whole (a later --load reads it).
BOOST_AUTO_TEST_CASE(ctrl_c_while_training_live_keeps_the_terminal_and_the_saved_model) {
    const qkv::test::scratch_dir scratch("signals-train");
    const fs::path model = scratch.path / "m.qkvmodel";
    on_pty p({"train", "--live", "--steps", "1000000", "--save", model.string()});
    BOOST_REQUIRE_MESSAGE(p.until([&] { return p.raw() && has(p.screen(), enter_alternate); }),
                          "--live never took the screen: " << p.screen());
    std::this_thread::sleep_for(300ms);  // some steps trained
    p.type("\x03");
    BOOST_TEST(p.wait_status() == 130);
    BOOST_TEST(p.mode_restored());
    BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
    BOOST_REQUIRE(fs::exists(model));
    auto reload = qkv::test::run_qkv({"train", "--load", model.string(), "--steps", "1", "--format", "json"});
    BOOST_TEST(reload.status == 0, reload.err);
}

// `qkv train --live` owns the terminal as --step and --present do (ui's live screen): Ctrl-\ ends
// it with the mode, the main screen and the cursor given back; Ctrl-Z gives the shell a normal
// terminal while the job is stopped, and fg takes it again and redraws; q still stops the run (130).
BOOST_AUTO_TEST_CASE(ctrl_backslash_and_ctrl_z_while_training_live) {
    {
        on_pty p({"train", "--live", "--steps", "1000000"});
        BOOST_REQUIRE(p.until([&] { return p.raw() && has(p.screen(), enter_alternate); }));
        p.type("\x1c");  // Ctrl-\, SIGQUIT through the line discipline
        BOOST_TEST(p.wait_status() == 131);
        BOOST_TEST(p.mode_restored());
        BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
        BOOST_TEST(p.screen().rfind("\x1b[?25h") > p.screen().rfind("\x1b[?25l"), "the cursor stayed hidden");
    }
    on_pty p({"train", "--live", "--steps", "1000000"}, false, true);
    BOOST_REQUIRE(p.until([&] { return p.raw() && has(p.screen(), "or Ctrl-C stops"); }));
    p.type("\x1a");  // Ctrl-Z through the line discipline
    BOOST_REQUIRE(p.until([&] { return p.stopped(); }));
    BOOST_TEST(p.mode_restored());
    BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
    const std::size_t before = p.screen().size();
    p.shell_does('f');
    BOOST_TEST(p.until([&] { return p.raw(); }), "fg did not take raw mode again");
    BOOST_TEST(p.until([&] { return p.screen().rfind(enter_alternate) > p.screen().rfind(leave_alternate); }));
    BOOST_TEST(p.until([&] { return p.screen().size() > before + 200; }), "no redraw after fg");
    p.type("q");
    BOOST_TEST(p.wait_status() == 130);
    BOOST_TEST(p.mode_restored());
    BOOST_TEST(p.screen().rfind(leave_alternate) > p.screen().rfind(enter_alternate));
}
