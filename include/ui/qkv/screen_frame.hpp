// The frame every full-screen mode draws (--step, --present, train --live): a head pinned at the
// top (where we are, the title, the formula), a body that scrolls under it, and the keys and the
// state on the bottom line; the key list as a panel; and the whole screen written at once (or, on a
// dumb terminal, printed).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/i18n.hpp"
#include "qkv/navigation.hpp"

namespace qkv {

// What the frame shows besides the stage: where the body is scrolled to, whether the text is
// on, and the status line at the bottom.
struct frame_state {
    std::size_t scroll = 0;       // body lines skipped at the top
    bool text = true;             // the presenter: show the stage's explanation under the values
    bool help = false;            // show the keys instead of the body
    std::string status;           // right half of the bottom line ("auto 5s", "paused", ...)
    std::size_t body_lines = 0;   // out: how many body lines there are (for scrolling)
    std::size_t body_height = 0;  // out: how many of them the screen shows (a page)
};

struct frame_parts {
    std::vector<std::string> head, body;
    std::string keys, short_keys;  // the bottom line's left half; the short one when space is tight
    bool centre_body = false;      // a short body a little above the middle (the presenter)
    bool color = false;            // the keys faint
};

// Exactly `rows` lines, none wider than `cols` columns: the head (cut so that the body keeps a few
// rows), the body from st.scroll (clamped), then the bottom line with "↓ N" when more is below.
// Below 20 × 8 it is laid out for 20 × 8 and cut: the first rows − 1 lines and the bottom line.
std::vector<std::string> lay_out_frame(const frame_parts& p, std::size_t cols, std::size_t rows, frame_state& st);

// up, down, page_up, page_down, top, bottom move st.scroll (by the last layout's sizes); false for
// any other action.
bool scroll_body(frame_state& st, action a);
bool at_bottom(const frame_state& st);

// The keys of key_list in two columns, as body lines (centred in `cols` when asked).
std::vector<std::string> help_panel(lang l, key_set keys, std::size_t cols, bool centre);

// Lines that fit `cols`: a plain line too wide is wrapped at words, a styled one (a table) clipped.
std::vector<std::string> fit_lines(const std::vector<std::string>& lines, std::size_t cols);

// The screen in one write, so it never shows half drawn: home and clear, then the lines; without
// escapes (TERM=dumb) only the lines, each ended. False when the output is gone.
bool draw_frame(int fd, const std::vector<std::string>& lines, bool escapes);

// The screen drawn over the last one, as a live screen redraws it several times a second: home,
// then each line, erased to its end when shorter than `cols` (a full one left alone, as erasing
// from the last column would take its last character), with no clear that could flicker between.
// False when the output is gone.
bool redraw_frame(int fd, const std::vector<std::string>& lines, std::size_t cols);

}  // namespace qkv
