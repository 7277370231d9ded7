// The keys of --step and --present and where they move: one table from keys and typed lines to
// commands (next, back, go K, redraw, help, quit, …), the stage number typed after g, and a cursor
// through the stages of one or more lessons. The stepper and the presenter share all of it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/trace.hpp"

namespace qkv {

enum class action { none, next, back, go, redraw, help, quit, interrupt, pause, text, up, down, page_up, page_down, unknown };

struct command {
    action a = action::none;
    long stage = 0;  // for go: the stage number typed (from 1); -1 while it is still to be typed
};

// Who reads the keys. On a terminal the presenter knows more of them (arrows, page keys, l,
// Backspace, Ctrl-L, Ctrl-D, t, j, k; space pauses --auto), the stepper fewer (space is next).
enum class key_set { stepper, presenter };

// A line typed into a pipe: empty or n, b, g K, r, h or ?, q; and p, t, j, k for the presenter
// (the stepper answers those as unknown keys).
command parse_line(std::string_view line);

// One key on a terminal in raw mode; g comes as go with stage -1 (read the number with
// stage_entry). For the presenter an escape sequence (arrows, page keys) is read on from fd,
// waiting at most 50 ms a byte; a lone Esc redraws.
command decode_key(char ch, key_set keys, int fd);

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

}  // namespace qkv
