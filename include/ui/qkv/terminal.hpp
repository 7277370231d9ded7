// The terminal: whether a stream is one, how large it is, and single-key input in raw mode that is
// restored on every way out — normal return, exception, Ctrl-C, SIGTERM — together with the full
// screen of the presenter (alternate screen, hidden cursor), which is given back in the same places.
#pragma once

#include <cstddef>
#include <csignal>
#include <optional>

namespace qkv::terminal {

bool is_tty(int fd);

// Whether the terminal understands cursor and screen escapes: TERM is set and is not "dumb".
// Without them --step prints line by line and --present page by page, and no escape is sent.
bool escapes_ok();

// Columns of the terminal on fd; else $COLUMNS; else `fallback`.
std::size_t width(int fd, std::size_t fallback = 100);

// Rows of the terminal on fd; else $LINES; else `fallback`.
std::size_t height(int fd, std::size_t fallback = 24);

// What raw_mode does to the screen: leave it alone, or take it over (the presenter).
enum class screen { keep, full };

// While alive, fd is in non-canonical, no-echo mode (signals still work). The destructor puts
// the saved mode back; so do SIGINT, SIGTERM, SIGHUP and SIGQUIT (then the process ends with
// 128 + signal). Ctrl-Z (SIGTSTP) puts it back and stops; SIGCONT (after Ctrl-Z, or after a
// SIGSTOP no handler sees) takes raw mode (and the alternate screen) again and reports through
// resized() that the screen needs drawing again — in the foreground only: continued in the
// background (`bg`), the terminal stays the shell's until `fg` (given_back()).
// With screen::full and a terminal on out_fd, it also switches out_fd to the alternate screen and
// hides the cursor, and reports window-size changes through resized(); all of it is undone in the
// same places as the termios.
class raw_mode {
public:
    explicit raw_mode(int fd, screen s = screen::keep, int out_fd = 1);
    ~raw_mode();
    raw_mode(const raw_mode&) = delete;
    raw_mode& operator=(const raw_mode&) = delete;
    bool active() const { return active_; }

private:
    int fd_;
    bool active_ = false;
};

// One byte from fd, or nullopt at end of input (or on a read error).
std::optional<char> read_byte(int fd);

// Waiting for a key with a deadline: a byte came (in c), the time ran out, the input ended, or a
// signal (a window resize) interrupted the wait. timeout_ms < 0 waits without limit.
enum class wait_result { byte, timeout, end, interrupted };
wait_result wait_byte(int fd, int timeout_ms, char& c);

// True once after each SIGWINCH seen while a full-screen raw_mode is alive, and after each
// return from a stop (Ctrl-Z, then fg): the screen must be drawn again.
bool resized();

// While the terminal is given back (stopped by Ctrl-Z, or continued in the background): nothing
// may be drawn on it, the shell owns it.
bool given_back();

// While one lives, Ctrl-Z (SIGTSTP) waits: a screen checked with given_back() and then drawn is
// drawn whole before the job stops, never finished from the background after `bg`.
class hold_stop {
public:
    hold_stop();
    ~hold_stop();
    hold_stop(const hold_stop&) = delete;
    hold_stop& operator=(const hold_stop&) = delete;

private:
    sigset_t before_;
};

}  // namespace qkv::terminal
