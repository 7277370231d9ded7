// Raw mode with a guarantee: the saved termios goes back on destruction and from the SIGINT /
// SIGTERM / SIGHUP / SIGQUIT handlers (tcsetattr and write are async-signal-safe), and so does the
// screen the presenter took over, so no way out leaves the terminal broken. Ctrl-Z gives both back
// before the process stops, and `fg` (SIGCONT, after Ctrl-Z or SIGSTOP) takes them again and asks
// for a redraw.
#include "qkv/terminal.hpp"
#include "qkv/write_all.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace qkv::terminal {
namespace {

// The one saved state (qkv never nests raw modes); read by the signal handlers.
struct termios saved_mode, raw_termios;
volatile std::sig_atomic_t saved_fd = -1;   // whose termios to restore, or -1
volatile std::sig_atomic_t screen_fd = -1;  // which terminal is on the alternate screen, or -1
volatile std::sig_atomic_t suspended = 0;   // given back for Ctrl-Z, not yet taken again
volatile std::sig_atomic_t resize_seen = 0;
// The self-pipe: SIGWINCH and SIGCONT write a byte, wait_byte polls it beside the keys, so a
// signal that arrives just before poll starts still wakes it.
int wake[2] = {-1, -1};

// Alternate screen on, cursor hidden; and back: cursor shown, colours reset, main screen.
constexpr char enter_screen[] = "\x1b[?1049h\x1b[?25l";
constexpr char leave_screen[] = "\x1b[?25h\x1b[0m\x1b[?1049l";

// Whether qkv's process group holds the terminal on fd (or fd is no terminal): a job in the
// background must not take it, or the shell's screen and mode are ours again while it prompts.
bool in_foreground(int fd) {
    const pid_t owner = tcgetpgrp(fd);
    return owner < 0 || owner == getpgrp();
}

// The terminal's mode as it was, with SIGTTOU held back: from the background (a `kill %1` on a
// stopped job, which continues it to die) tcsetattr would otherwise stop the process again.
void put_mode(int fd, const struct termios& mode) {
    sigset_t ttou, before;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &before);
    while (tcsetattr(fd, TCSAFLUSH, &mode) != 0 && errno == EINTR) {
    }
    sigprocmask(SIG_SETMASK, &before, nullptr);
}

// Async-signal-safe: only tcgetpgrp, tcsetattr, sigprocmask and write. Nothing to do while the
// terminal is given back for Ctrl-Z.
void restore_all() {
    if (suspended) return;
    if (screen_fd >= 0) write_all(screen_fd, std::string_view(leave_screen, sizeof leave_screen - 1));
    if (saved_fd >= 0) put_mode(saved_fd, saved_mode);
}

// Set once a handler ends the process: a SIGCONT that comes with the fatal signal (`kill %1`
// sends SIGTERM, then SIGCONT) must not take the terminal again after it was given back.
volatile std::sig_atomic_t ending = 0;

extern "C" void restore_and_reraise(int sig) {
    ending = 1;
    restore_all();
    std::signal(sig, SIG_DFL);
    sigset_t just;
    sigemptyset(&just);
    sigaddset(&just, sig);
    sigprocmask(SIG_UNBLOCK, &just, nullptr);
    std::raise(sig);
}

void wake_up() {
    if (wake[1] >= 0) (void)!::write(wake[1], "w", 1);
}

extern "C" void note_resize(int) {
    int saved_errno = errno;
    resize_seen = 1;
    wake_up();
    errno = saved_errno;
}

void handle(int sig, void (*fn)(int));

// After a stop: raw mode and the screen again, and a redraw, since the shell drew over it. Taken
// on every SIGCONT, not only after our own Ctrl-Z: a SIGSTOP is seen by no handler, and the shell
// puts its own terminal mode back while the job is stopped. Not in the background (`bg`): there
// the terminal stays the shell's until `fg` continues the job again.
void take_back() {
    if (ending) return;
    const int fd = saved_fd >= 0 ? saved_fd : screen_fd;
    if (fd >= 0 && !in_foreground(fd)) {
        restore_all();  // after a SIGSTOP nothing gave it back yet (after Ctrl-Z this does nothing)
        suspended = 1;
        return;
    }
    suspended = 0;
    if (screen_fd >= 0) write_all(screen_fd, std::string_view(enter_screen, sizeof enter_screen - 1));
    // TCSANOW, not TCSAFLUSH: a key typed since `fg` is meant for us, and is kept.
    if (saved_fd >= 0) tcsetattr(saved_fd, TCSANOW, &raw_termios);
    resize_seen = 1;
    wake_up();
}

extern "C" void resume(int) {
    int saved_errno = errno;
    take_back();
    errno = saved_errno;
}

// Ctrl-Z: the shell gets its terminal back as it was, then the process stops for real (the
// default action, raised with the signal unblocked). When it continues, SIGCONT's handler has
// taken the terminal again; in an orphaned process group the kernel does not stop us at all, and
// we take it back here.
extern "C" void suspend(int sig) {
    int saved_errno = errno;
    restore_all();
    suspended = 1;
    std::signal(sig, SIG_DFL);
    sigset_t just;
    sigemptyset(&just);
    sigaddset(&just, sig);
    sigprocmask(SIG_UNBLOCK, &just, nullptr);
    std::raise(sig);
    handle(sig, suspend);
    // Not stopped after all (an orphaned process group), so no SIGCONT will take the terminal back:
    // take it here. When we were stopped, SIGCONT is pending behind this handler (its mask holds
    // it), and its own handler takes the terminal once this one returns: taking it here as well
    // drew the screen twice, and the second raw mode, set after the first redraw, threw away a
    // key typed in between (seen as a `q` lost after `fg`, under the slower sanitizer build).
    sigset_t pending;
    sigpending(&pending);
    if (suspended && !sigismember(&pending, SIGCONT)) take_back();
    errno = saved_errno;
}

void handle(int sig, void (*fn)(int)) {
    struct sigaction sa {};
    sa.sa_handler = fn;
    // one handler at a time: a SIGCONT taking raw mode in the middle of SIGTERM's restore left
    // the terminal raw behind a dead process
    sigemptyset(&sa.sa_mask);
    for (int other : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT}) sigaddset(&sa.sa_mask, other);
    sa.sa_flags = 0;  // no SA_RESTART: a resize must wake a waiting poll
    sigaction(sig, &sa, nullptr);
}

std::size_t from_env(const char* var, std::size_t fallback) {
    if (const char* c = std::getenv(var)) {
        try {
            long v = std::stol(c);
            if (v > 0 && v < 10000) return static_cast<std::size_t>(v);
        } catch (...) {
        }
    }
    return fallback;
}

}  // namespace

bool is_tty(int fd) { return isatty(fd) == 1; }

bool escapes_ok() {
    const char* term = std::getenv("TERM");
    return term && *term && std::strcmp(term, "dumb") != 0;
}

std::size_t width(int fd, std::size_t fallback) {
    struct winsize ws {};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return from_env("COLUMNS", fallback);
}

std::size_t height(int fd, std::size_t fallback) {
    struct winsize ws {};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) return ws.ws_row;
    return from_env("LINES", fallback);
}

raw_mode::raw_mode(int fd, screen s, int out_fd) : fd_(fd) {
    bool keys = is_tty(fd) && tcgetattr(fd, &saved_mode) == 0;
    bool full = s == screen::full && is_tty(out_fd);
    if (!keys && !full) return;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) handle(sig, restore_and_reraise);
    resize_seen = 0;
    suspended = 0;
    if (wake[0] < 0 && ::pipe(wake) == 0) {
        for (int fd : wake) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    handle(SIGTSTP, suspend);
    handle(SIGCONT, resume);
    if (full) {
        handle(SIGWINCH, note_resize);
        screen_fd = out_fd;
        write_all(out_fd, std::string_view(enter_screen, sizeof enter_screen - 1));
    }
    if (keys) {
        struct termios raw = saved_mode;
        raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);  // keys one at a time, not echoed; ISIG stays
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        raw_termios = raw;
        saved_fd = fd;
        active_ = tcsetattr(fd, TCSAFLUSH, &raw) == 0;
    }
}

raw_mode::~raw_mode() {
    if (saved_fd < 0 && screen_fd < 0) return;
    restore_all();
    saved_fd = -1;
    screen_fd = -1;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH}) std::signal(sig, SIG_DFL);
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

wait_result wait_byte(int fd, int timeout_ms, char& c) {
    pollfd p[2] = {{fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
    int r = ::poll(p, wake[0] >= 0 ? 2 : 1, timeout_ms);
    if (r < 0) return errno == EINTR ? wait_result::interrupted : wait_result::end;
    if (r == 0) return wait_result::timeout;
    if (wake[0] >= 0 && (p[1].revents & POLLIN)) {
        char drain[64];
        while (::read(wake[0], drain, sizeof drain) > 0) {
        }
        return wait_result::interrupted;
    }
    ssize_t n = ::read(fd, &c, 1);
    if (n == 1) return wait_result::byte;
    if (n < 0 && errno == EINTR) return wait_result::interrupted;
    return wait_result::end;
}

bool resized() {
    if (!resize_seen) return false;
    resize_seen = 0;
    return true;
}

bool given_back() { return suspended != 0; }

hold_stop::hold_stop() {
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    sigprocmask(SIG_BLOCK, &tstp, &before_);
}

hold_stop::~hold_stop() { sigprocmask(SIG_SETMASK, &before_, nullptr); }

}  // namespace qkv::terminal
