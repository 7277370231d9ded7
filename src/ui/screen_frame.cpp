// The frame of --step, --present and the live screen: pinned head, scrolled body, bottom line. Pure
// layout plus the one write that puts it on the screen; what goes in the head and body is each mode's.
#include "qkv/screen_frame.hpp"

#include <algorithm>
#include <cerrno>

#include <fmt/color.h>
#include <fmt/format.h>
#include <unistd.h>

#include "qkv/display_width.hpp"
#include "qkv/prose.hpp"
#include "qkv/wrap.hpp"
#include "qkv/styled_text.hpp"
#include "ui_words.hpp"
#include "qkv/write_all.hpp"

namespace qkv {
namespace {

// The keys on the left, the state on the right (with how far the body scrolls).
std::string bottom_line(const frame_parts& p, std::size_t cols, const frame_state& st, bool color) {
    std::string state = st.status;
    if (st.body_lines > st.body_height) {
        std::size_t below = st.body_lines - st.scroll - std::min(st.body_height, st.body_lines - st.scroll);
        state = fmt::format("{}{}", below ? fmt::format("↓ {} ", below) : "↑ ", state);
    }
    std::string keys = p.keys;
    if (visible_width(keys) + visible_width(state) + 2 > cols) keys = p.short_keys;
    std::size_t sw = visible_width(state);
    std::size_t kw = cols > sw + 2 ? cols - sw - 2 : 0;
    return pad_to(styled(clip(keys, kw), fmt::emphasis::faint, color), kw) + "  " + clip(state, cols > kw + 2 ? cols - kw - 2 : 0);
}

}  // namespace

std::vector<std::string> lay_out_frame(const frame_parts& p, std::size_t cols, std::size_t rows, frame_state& st) {
    // laid out on 20 × 8 at the least, then cut to the window: on a smaller one the head and the
    // bottom line stay, and nothing wraps or scrolls the terminal
    const std::size_t shown_cols = std::max<std::size_t>(cols, 1), shown_rows = std::max<std::size_t>(rows, 1);
    cols = std::max<std::size_t>(cols, 20), rows = std::max<std::size_t>(rows, 8);
    // The head gives the body three rows at least: a tall formula on a small screen is cut.
    std::vector<std::string> out = p.head;
    if (out.size() > rows - 4) out.resize(rows - 4);
    st.body_height = rows - 1 - out.size();
    st.body_lines = p.body.size();
    if (st.scroll + st.body_height > st.body_lines) st.scroll = st.body_lines > st.body_height ? st.body_lines - st.body_height : 0;
    std::size_t top = p.centre_body && st.body_lines < st.body_height ? (st.body_height - st.body_lines) / 3 : 0;
    for (std::size_t i = 0; i < top; ++i) out.emplace_back();
    for (std::size_t i = st.scroll; i < p.body.size() && out.size() < rows - 1; ++i) out.push_back(p.body[i]);
    while (out.size() < rows - 1) out.emplace_back();
    out.push_back(bottom_line(p, cols, st, p.color));
    if (out.size() > shown_rows) out.erase(out.begin() + std::ptrdiff_t(shown_rows - 1), out.end() - 1);
    for (auto& l : out) l = clip(l, std::min(cols, shown_cols));
    return out;
}

bool scroll_body(frame_state& st, action a) {
    std::size_t page = st.body_height > 2 ? st.body_height - 1 : 1;  // a page keeps one line in sight
    std::size_t last = st.body_lines > st.body_height ? st.body_lines - st.body_height : 0;
    switch (a) {
        case action::up: st.scroll = st.scroll > 0 ? st.scroll - 1 : 0; return true;
        case action::down: st.scroll = std::min(st.scroll + 1, last); return true;
        case action::page_up: st.scroll = st.scroll > page ? st.scroll - page : 0; return true;
        case action::page_down: st.scroll = std::min(st.scroll + page, last); return true;
        case action::top: st.scroll = 0; return true;
        case action::bottom: st.scroll = last; return true;
        default: return false;
    }
}

bool at_bottom(const frame_state& st) { return st.scroll + st.body_height >= st.body_lines; }

std::vector<std::string> help_panel(lang l, key_set keys, std::size_t cols, bool centre) {
    auto list = key_list(l, keys);
    std::size_t kw = 0, w = 0;
    for (const auto& k : list) kw = std::max(kw, visible_width(k.keys));
    std::vector<std::string> lines{ui::say(l, ui::keys_title), ""};
    for (const auto& k : list) lines.push_back(pad_to(k.keys, kw) + "   " + k.what);
    for (const auto& s : lines) w = std::max(w, visible_width(s));
    std::string margin(centre && cols > w ? (cols - w) / 2 : 1, ' ');
    for (auto& s : lines) s = margin + s;
    return lines;
}

std::vector<std::string> fit_lines(const std::vector<std::string>& lines, std::size_t cols) {
    std::vector<std::string> out;
    for (const auto& l : lines) {
        if (visible_width(l) <= cols || l.find('\x1b') != std::string::npos) {
            out.push_back(clip(l, cols));
            continue;
        }
        std::size_t indent = l.find_first_not_of(' ');  // a wrapped line keeps the indent it had
        if (indent == std::string::npos || indent > cols / 2) indent = 0;
        for (auto& w : wrap_paragraph(l.substr(indent), cols - indent)) out.push_back(std::string(indent, ' ') + w);
    }
    return out;
}

bool draw_frame(int fd, const std::vector<std::string>& lines, bool escapes) {
    std::string frame = escapes ? "\x1b[H\x1b[2J" : "";
    for (std::size_t r = 0; r < lines.size(); ++r) frame += lines[r] + (r + 1 < lines.size() || !escapes ? "\n" : "");
    return write_all(fd, frame);
}

bool redraw_frame(int fd, const std::vector<std::string>& lines, std::size_t cols) {
    std::string frame = "\x1b[H";
    for (std::size_t r = 0; r < lines.size(); ++r) {
        frame += lines[r];
        if (visible_width(lines[r]) < cols) frame += "\x1b[K";
        if (r + 1 < lines.size()) frame += "\r\n";
    }
    return write_all(fd, frame);
}

}  // namespace qkv
