// The keys of --step and --present and where they move: one table from keys and typed lines to
// commands (next, back, go K, redraw, help, quit, …), the stage number typed after g, and a cursor
// through the stages of one or more lessons. The stepper and the presenter share all of it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/i18n.hpp"
#include "qkv/terminal.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// page_or_next: space and Enter, a page down and at the bottom the next stage.
enum class action { none, next, back, go, redraw, help, quit, interrupt, pause, text, up, down, page_up, page_down,
                    top, bottom, page_or_next, unknown };

struct command {
    action a = action::none;
    long stage = 0;  // for go: the stage number typed (from 1); -1 while it is still to be typed
};

// Who reads the keys. Both know the arrows, page keys, j and k, and read on a page with space and
// Enter (page_or_next); the presenter's p pauses --auto and its t turns the text off.
enum class key_set { stepper, presenter };

// A line typed into a pipe: empty or n, b, g K, r, h or ?, q; and p, t, j, k for the presenter
// (the stepper answers those as unknown keys).
command parse_line(std::string_view line);

// One key on a terminal in raw mode; g comes as go with stage -1 (read the number with
// stage_entry). An escape sequence (arrows, page keys, Home, End, any other) is read on from fd to
// its end, waiting at most 50 ms a byte, and is one command; a lone Esc redraws.
command decode_key(char ch, key_set keys, int fd);

// Every key of `keys` with what it does, for the help screen (scrolling: with the scroll keys).
struct key_help {
    std::string keys, what;
};
std::vector<key_help> key_list(lang l, key_set keys, bool scrolling = true);

// The stage number typed after g on a terminal, a key at a time up to Enter: digits (six at the
// most), Backspace erases one, Esc or Ctrl-C (and q in the presenter) cancel.
class stage_entry {
public:
    enum class step { added, erased, ignored, done, cancelled };

    explicit stage_entry(key_set keys) : keys_(keys) {}
    step feed(char ch);
    const std::string& digits() const { return digits_; }
    command result() const;  // after done: go K, or unknown when no number was typed

private:
    key_set keys_;
    std::string digits_;
};

// After g on a terminal: the digits up to Enter into c (go K; redraw when cancelled). show(digits)
// draws them, and is called again after a resize; false from show ends it as the end of input.
terminal::wait_result read_stage_number(int fd, key_set keys, command& c,
                                        const std::function<bool(const std::string&)>& show);

// Where the stepper or the presenter stands: one stage of one of the traces, which are gone
// through in order as if they were one long lesson.
class stage_cursor {
public:
    // At overall stage `start` (from 0, counted over every trace); the first when out of range.
    stage_cursor(const std::vector<trace>& traces, std::size_t start);

    bool empty() const { return all_.empty(); }
    std::size_t lesson() const { return all_[i_].lesson; }  // index into the traces
    std::size_t stage() const { return all_[i_].stage; }    // index into that trace's stages
    std::size_t stages_here() const { return counts_[lesson()]; }
    bool at_end() const { return i_ + 1 >= all_.size(); }

    bool next();       // false on the last stage
    bool back();       // false on the first
    bool go(long k);   // stage k (from 1) of this lesson; false, not moving, when it has none

private:
    struct position {
        std::size_t lesson = 0, stage = 0;
    };
    std::vector<position> all_;
    std::vector<std::size_t> counts_;
    std::size_t i_ = 0;
};

// What next, back and g K do in both full-screen modes: the cursor moves (then the mode resets its
// scroll), a second next at the end leaves, a stage that is not there is a note for the status line.
enum class stage_move { stayed, moved, leave };
struct stage_moves {
    stage_cursor& at;
    bool end_shown = false;  // the end was announced; one more next leaves
    stage_move apply(const command& c, std::string& note, lang l);
    // The status line at the end of the last stage.
    std::string end_status(lang l) const;
};

}  // namespace qkv
