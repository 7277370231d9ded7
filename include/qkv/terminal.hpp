// The terminal: whether a stream is one, how wide it is, and single-key input in raw mode that is
// restored on every way out — normal return, exception, Ctrl-C, SIGTERM.
#pragma once

#include <cstddef>
#include <optional>

namespace qkv::terminal {

bool is_tty(int fd);

// Columns of the terminal on fd; else $COLUMNS; else `fallback`.
std::size_t width(int fd, std::size_t fallback = 100);

// While alive, fd is in non-canonical, no-echo mode (signals still work). The destructor puts
// the saved mode back; so do SIGINT and SIGTERM (then the process ends with 128 + signal).
class raw_mode {
public:
    explicit raw_mode(int fd);
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

}  // namespace qkv::terminal
