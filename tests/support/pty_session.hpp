// qkv on a pseudo-terminal for the tests of its screens: keys in through the master, the screen
// out, the terminal's mode read back on the slave after qkv has gone; and the frames it drew (each
// starts by going home and clearing), cut into their lines without styles.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

namespace qkv::test {

using namespace std::chrono_literals;

constexpr std::string_view enter_alt = "\x1b[?1049h", leave_alt = "\x1b[?1049l", show_cursor = "\x1b[?25h";
constexpr std::string_view frame_start = "\x1b[H\x1b[2J";

inline bool same_mode(const termios& a, const termios& b) {
    return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_cflag == b.c_cflag && a.c_lflag == b.c_lflag &&
           std::memcmp(a.c_cc, b.c_cc, sizeof a.c_cc) == 0;
}

// qkv on the slave side of a pty, as its controlling terminal; we hold the master (keys in,
// screen out) and keep the slave open to read its mode after qkv has gone.
struct session {
    int master = -1, slave = -1;
    pid_t pid = -1;
    std::string out;
    termios before{};

    // term: TERM for qkv, or nullptr to leave it unset; env: more variables, set after the
    // defaults (NO_COLOR "" lets colour through, as qkv reads an empty one as unset).
    session(const std::vector<std::string>& args, unsigned short cols = 80, unsigned short rows = 24,
            const char* term = "xterm-256color", const std::vector<std::pair<std::string, std::string>>& env = {}) {
        winsize ws{rows, cols, 0, 0};
        BOOST_REQUIRE(openpty(&master, &slave, nullptr, nullptr, &ws) == 0);
        BOOST_REQUIRE(tcgetattr(slave, &before) == 0);
        pid = fork();
        if (pid == 0) {
            setsid();
            ioctl(slave, TIOCSCTTY, 0);
            dup2(slave, 0), dup2(slave, 1), dup2(slave, 2);
            close(master), close(slave);
            setenv("NO_COLOR", "1", 1);
            setenv("QKV_LANG", "en", 1);
            if (term) setenv("TERM", term, 1);
            else unsetenv("TERM");
            for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
            const char* bin = std::getenv("QKV_BIN");
            std::vector<std::string> copy = args;
            std::vector<char*> argv{const_cast<char*>(bin)};
            for (auto& a : copy) argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(bin, argv.data());
            _exit(127);
        }
    }
    ~session() {
        if (pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
        close(master), close(slave);
    }

    void pump(int ms) {
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, ms) > 0 && (p.revents & POLLIN)) {
            char buf[65536];
            ssize_t n = read(master, buf, sizeof buf);
            if (n > 0) out.append(buf, static_cast<std::size_t>(n));
        }
    }
    // Read the screen until it shows `what` (counted from `from`), for at most `limit`.
    bool wait_for(std::string_view what, std::size_t from = 0, std::chrono::milliseconds limit = 5000ms) {
        auto end = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < end) {
            if (out.find(what, from) != std::string::npos) return true;
            pump(50);
        }
        return out.find(what, from) != std::string::npos;
    }
    void send(std::string_view keys) { BOOST_REQUIRE(write(master, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size())); }
    // The exit status (128 + signal when killed), reading the screen meanwhile; -1 on a hang.
    int finish(std::chrono::milliseconds limit = 5000ms) {
        auto end = std::chrono::steady_clock::now() + limit;
        int status = 0;
        while (std::chrono::steady_clock::now() < end) {
            pump(20);
            if (waitpid(pid, &status, WNOHANG) == pid) {
                for (int i = 0; i < 5; ++i) pump(10);
                pid = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
        }
        return -1;
    }
    bool in_raw_mode() const {
        termios now{};
        tcgetattr(slave, &now);
        return !(now.c_lflag & ICANON) && !(now.c_lflag & ECHO);
    }
    bool restored() const {
        termios after{};
        tcgetattr(slave, &after);
        return same_mode(before, after);
    }
};

inline std::string strip_escapes(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '\x1b') {
            std::size_t j = i + 1;
            if (j < s.size() && s[j] == '[') {
                ++j;
                while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7E)) ++j;
            }
            i = j + 1;
        } else if (s[i] == '\r') {
            ++i;
        } else {
            out += s[i++];
        }
    }
    return out;
}

// The frames drawn, each as its lines without styles.
inline std::vector<std::vector<std::string>> frames_of(const std::string& out) {
    std::vector<std::vector<std::string>> frames;
    for (std::size_t at = out.find(frame_start); at != std::string::npos;) {
        std::size_t next = out.find(frame_start, at + 1);
        std::string body = out.substr(at + frame_start.size(), (next == std::string::npos ? out.size() : next) - at - frame_start.size());
        if (auto leave = body.find(leave_alt); leave != std::string::npos) body.resize(leave);
        std::string text = strip_escapes(body);
        std::vector<std::string> lines;
        std::size_t start = 0;
        for (std::size_t nl = text.find('\n'); ; nl = text.find('\n', start)) {
            lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
            if (nl == std::string::npos) break;
            start = nl + 1;
        }
        frames.push_back(lines);
        at = next;
    }
    return frames;
}

// The pages --step and --present print on a pipe, where no escape clears a screen: each frame
// is `rows` lines (a line fewer than LINES, so that a terminal reading the pipe keeps it all in
// sight), one after the other.
inline std::vector<std::vector<std::string>> pages_of(const std::string& out, std::size_t rows) {
    std::vector<std::vector<std::string>> pages;
    std::size_t start = 0;
    while (start < out.size()) {
        std::vector<std::string> page;
        while (page.size() < rows && start < out.size()) {
            std::size_t nl = out.find('\n', start);
            if (nl == std::string::npos) nl = out.size();
            page.push_back(out.substr(start, nl - start));
            start = nl + 1;
        }
        pages.push_back(page);
    }
    return pages;
}

}  // namespace qkv::test
