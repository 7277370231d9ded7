// Raw mode with a guarantee: the saved termios goes back on destruction and from the SIGINT /
// SIGTERM handlers (tcsetattr is async-signal-safe), so no way out leaves the terminal broken.
#include "qkv/terminal.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>

#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace qkv::terminal {
namespace {

// The one saved mode (qkv never nests raw modes); read by the signal handler.
struct termios saved_mode;
volatile std::sig_atomic_t saved_fd = -1;

extern "C" void restore_and_reraise(int sig) {
    if (saved_fd >= 0) tcsetattr(saved_fd, TCSAFLUSH, &saved_mode);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

bool is_tty(int fd) { return isatty(fd) == 1; }

std::size_t width(int fd, std::size_t fallback) {
    struct winsize ws {};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    if (const char* c = std::getenv("COLUMNS")) {
        try {
            long v = std::stol(c);
            if (v > 0 && v < 10000) return static_cast<std::size_t>(v);
        } catch (...) {
        }
    }
    return fallback;
}

raw_mode::raw_mode(int fd) : fd_(fd) {
    if (!is_tty(fd) || tcgetattr(fd, &saved_mode) != 0) return;
    struct termios raw = saved_mode;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);  // keys one at a time, not echoed; ISIG stays
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    saved_fd = fd;
    std::signal(SIGINT, restore_and_reraise);
    std::signal(SIGTERM, restore_and_reraise);
    std::signal(SIGHUP, restore_and_reraise);
    active_ = tcsetattr(fd, TCSAFLUSH, &raw) == 0;
}

raw_mode::~raw_mode() {
    if (saved_fd < 0) return;
    tcsetattr(fd_, TCSAFLUSH, &saved_mode);
    saved_fd = -1;
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGHUP, SIG_DFL);
}

std::optional<char> read_byte(int fd) {
    char c = 0;
    for (;;) {
        ssize_t n = ::read(fd, &c, 1);
        if (n == 1) return c;
        if (n < 0 && errno == EINTR) continue;
        return std::nullopt;
    }
}

}  // namespace qkv::terminal
