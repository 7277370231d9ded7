// The screen long work redraws while it runs (`qkv train --live`), owned as --step and --present
// own theirs: the alternate screen and keys one at a time, given back on every way out (q, Ctrl-C,
// Ctrl-\, Ctrl-Z, an error, the end; terminal.hpp), the content laid out in their frame (a head
// pinned at the top, the body under it, the keys on the bottom line), q asking the work to stop.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "qkv/i18n.hpp"
#include "qkv/stop_request.hpp"
#include "qkv/terminal.hpp"

namespace qkv {

// What fills the screen: the head pinned at the top, and the body under it (cut to what fits); a
// body of more than one page (pages > 1) is paged by n or space and b.
struct live_content {
    std::vector<std::string> head, body;
    std::size_t pages = 1;
};

// The screen the content is laid out for, and the page the keys have turned to (from 0).
struct live_size {
    std::size_t cols = 80, rows = 24, page = 0;
};

class live_screen {
public:
    // Takes the screen on out_fd, with keys from in_fd, until it is destroyed. `color`: the keys faint.
    live_screen(lang l, bool color, int in_fd, int out_fd);
    // Once the stop is in place (made after the screen, so that Ctrl-C is the stop's): q asks it too.
    void stop_with(terminal::stop_request& stop) { stop_ = &stop; }
    // After each piece of work: reads the keys typed since the last call (q asks the stop; n, space
    // and b turn the page), and when a redraw is due (a quarter of a second after the last, a
    // resize, a page turned, the `last` call) draws the screen again with what `content` gives for
    // the size it has. Never while the terminal is the shell's (after Ctrl-Z); a screen that went
    // away is left alone and the work goes on unwatched.
    void update(bool last, const std::function<live_content(const live_size&)>& content);

private:
    lang language_;
    bool color_;
    int in_fd_, out_fd_;
    terminal::raw_mode screen_;
    terminal::stop_request* stop_ = nullptr;
    std::chrono::steady_clock::time_point last_{};
    std::size_t page_ = 0, pages_ = 1;  // the page shown, of the last content's
};

}  // namespace qkv
