// The presenter lays a stage out on a whole screen and moves through the stages; it computes
// nothing. Tables and heatmaps come from the text renderer, one value at a time, so the slide
// shows the same numbers as `qkv lesson`; here they are only packed and centred.
#include "qkv/presenter.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <optional>
#include <string_view>

#include <fmt/color.h>
#include <fmt/format.h>
#include <unistd.h>

#include "qkv/display_width.hpp"
#include "qkv/render_text.hpp"
#include "qkv/terminal.hpp"
#include "prose.hpp"
#include "render_cells.hpp"

namespace qkv {
namespace {

// The presenter's own interface words, in the two languages.
std::string_view say(lang l, std::string_view en, std::string_view zh) { return l == lang::zh ? zh : en; }

// --- text that carries ANSI styles --------------------------------------------------------------

using detail::utf8_length;

// Length of the escape sequence at s[i] (s[i] == ESC): CSI runs up to its final byte.
std::size_t escape_length(std::string_view s, std::size_t i) {
    if (i + 1 >= s.size() || s[i + 1] != '[') return std::min<std::size_t>(2, s.size() - i);
    std::size_t j = i + 2;
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7E)) ++j;
    return std::min(j + 1, s.size()) - i;
}

std::string plain(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '\x1b') i += escape_length(s, i);
        else out += s[i++];
    }
    return out;
}

std::size_t visible_width(std::string_view s) { return display_width(plain(s)); }

// s cut to at most w visible columns, styles kept; a cut line ends with "…" and a style reset.
std::string clip(std::string_view s, std::size_t w) {
    if (visible_width(s) <= w) return std::string(s);
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '\x1b') {
            std::size_t n = escape_length(s, i);
            out += s.substr(i, n), i += n;
            continue;
        }
        std::size_t n = std::min(utf8_length(static_cast<unsigned char>(s[i])), s.size() - i);
        std::size_t cw = display_width(s.substr(i, n));
        if (used + cw + 1 > w) break;
        out += s.substr(i, n), used += cw, i += n;
    }
    return out + "…\x1b[0m";
}

std::string pad_to(std::string_view s, std::size_t w) {
    std::size_t v = visible_width(s);
    return std::string(s) + std::string(w > v ? w - v : 0, ' ');
}

std::string centred(std::string_view s, std::size_t cols) {
    std::size_t v = visible_width(s);
    return std::string(cols > v ? (cols - v) / 2 : 0, ' ') + clip(s, cols);
}

std::string styled(std::string_view s, fmt::text_style st, bool color) {
    return color ? fmt::format(st, "{}", s) : std::string(s);
}

std::vector<std::string> split_lines(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < s.size()) {
        std::size_t end = s.find('\n', start);
        if (end == std::string_view::npos) end = s.size();
        out.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

// --- wrapping prose: at spaces between words, anywhere between CJK characters -------------------

struct unit {
    std::string text;
    bool space_before = false;
};

std::vector<unit> units_of(std::string_view para) {
    std::vector<unit> out;
    bool space = false, in_word = false;
    for (std::size_t i = 0; i < para.size();) {
        std::size_t n = std::min(utf8_length(static_cast<unsigned char>(para[i])), para.size() - i);
        std::string_view cp = para.substr(i, n);
        i += n;
        if (cp == " " || cp == "\t" || cp == "\n") {
            space = true, in_word = false;
            continue;
        }
        bool wide = display_width(cp) == 2;
        if (wide || !in_word) out.push_back({std::string(cp), space});
        else out.back().text += cp;
        in_word = !wide, space = false;
    }
    return out;
}

std::vector<std::string> wrap(std::string_view text, std::size_t w) {
    std::vector<std::string> out;
    for (const auto& p : detail::paragraphs(text)) {
        if (!out.empty()) out.emplace_back();
        std::string line;
        std::size_t used = 0;
        for (const unit& u : units_of(p)) {
            std::size_t uw = display_width(u.text);
            std::size_t sep = used > 0 && u.space_before ? 1 : 0;
            if (used > 0 && used + sep + uw > w) {
                out.push_back(line), line.clear(), used = 0, sep = 0;
            }
            if (sep) line += ' ';
            line += u.text, used += sep + uw;
        }
        if (!line.empty()) out.push_back(clip(line, w));
    }
    return out;
}

// --- the body: each value as a block, packed side by side -----------------------------------------

struct block {
    std::vector<std::string> lines;
    std::size_t width = 0;
};

block block_of(const std::string& text) {
    block b;
    b.lines = split_lines(text);
    while (!b.lines.empty() && plain(b.lines.front()).empty()) b.lines.erase(b.lines.begin());
    while (!b.lines.empty() && plain(b.lines.back()).empty()) b.lines.pop_back();
    for (const auto& l : b.lines) b.width = std::max(b.width, visible_width(l));
    return b;
}

// Each shown value and each recorded sub-step, drawn by the text renderer on its own.
std::vector<block> value_blocks(const trace& t, const stage_trace& s, const render_options& o) {
    trace one;
    one.lesson = t.lesson;
    one.language = t.language;
    one.stage_count = 1;
    auto draw = [&](stage_trace st) {
        st.title.clear(), st.formula.clear(), st.text.clear();
        one.stages = {std::move(st)};
        std::string text = render_text_stage(one, 0, o);
        return block_of(text.substr(std::min(text.find('\n'), text.size())));  // without the "1/1" heading
    };
    std::vector<block> out;
    for (const auto& sv : s.values) {
        // The axes go on a line of their own under the name, so a block is as narrow as its table
        // and two of them fit side by side on 80 columns.
        stage_trace st;
        st.values = {sv};
        std::string axes = detail::axes_phrase(o.language, sv.v);
        st.values.front().v.rows.axis.clear(), st.values.front().v.cols.axis.clear();
        block b = draw(std::move(st));
        if (!axes.empty() && !b.lines.empty()) {
            b.lines.insert(b.lines.begin() + 1, styled(axes, fmt::emphasis::faint, o.color));
            b.width = std::max(b.width, display_width(axes));
        }
        out.push_back(std::move(b));
    }
    for (const auto& step : s.steps) {
        stage_trace st;
        st.steps = {step};
        out.push_back(draw(std::move(st)));
    }
    return out;
}

// Blocks left to right while they fit, then the next row; every row centred.
std::vector<std::string> pack(const std::vector<block>& blocks, std::size_t cols) {
    constexpr std::size_t gap = 4;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < blocks.size();) {
        std::size_t j = i, w = 0;
        while (j < blocks.size() && (j == i || w + gap + blocks[j].width <= cols)) w += (j == i ? 0 : gap) + blocks[j].width, ++j;
        std::size_t h = 0;
        for (std::size_t k = i; k < j; ++k) h = std::max(h, blocks[k].lines.size());
        std::string margin(cols > w ? (cols - w) / 2 : 0, ' ');
        if (!out.empty()) out.emplace_back();
        for (std::size_t r = 0; r < h; ++r) {
            std::string line = margin;
            for (std::size_t k = i; k < j; ++k) {
                if (k > i) line += std::string(gap, ' ');
                line += pad_to(r < blocks[k].lines.size() ? blocks[k].lines[r] : "", blocks[k].width);
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out.push_back(clip(line, cols));
        }
        i = j;
    }
    return out;
}

std::vector<std::string> help_lines(lang l) {
    return {std::string(say(l, "Keys", "按键")), "",
            std::string(say(l, "Enter  n  →  space     next stage", "回车  n  →  空格     下一阶段")),
            std::string(say(l, "b  ←                   back", "b  ←                   上一阶段")),
            std::string(say(l, "g K                    go to stage K", "g K                    跳到第 K 阶段")),
            std::string(say(l, "↑ ↓  k j               scroll", "↑ ↓  k j               滚动")),
            std::string(say(l, "t                      explanation on / off", "t                      显示 / 隐藏讲解")),
            std::string(say(l, "space (with --auto)    pause / go on", "空格（--auto 时）     暂停 / 继续")),
            std::string(say(l, "r  redraw   h  help   q  quit", "r  重画   h  帮助   q  退出"))};
}

std::string progress_bar(std::size_t k, std::size_t n, std::size_t cols, bool color) {
    std::string count = fmt::format(" {}/{}", k, n);
    std::size_t bar = cols > count.size() + 2 ? cols - count.size() - 2 : 0;
    std::size_t filled = n ? static_cast<std::size_t>(std::lround(static_cast<double>(bar) * k / n)) : 0;
    std::string done, todo;
    for (std::size_t i = 0; i < bar; ++i) (i < filled ? done : todo) += i < filled ? "━" : "─";
    return " " + styled(done, fmt::fg(fmt::terminal_color::cyan), color) + styled(todo, fmt::emphasis::faint, color) +
           styled(count, fmt::emphasis::bold, color);
}

}  // namespace

std::vector<std::string> present_frame(const trace& t, std::size_t stage, const render_options& o,
                                       std::size_t cols, std::size_t rows, frame_state& st) {
    cols = std::max<std::size_t>(cols, 20), rows = std::max<std::size_t>(rows, 8);
    const stage_trace& s = t.stages.at(stage);
    const bool roomy = rows >= 30, c = o.color;
    std::vector<std::string> head;
    std::string where = fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), t.lesson) + " · " + t.title;
    std::string right = t.scenario.empty() ? "" : t.scenario + " ";
    std::size_t room = cols > visible_width(right) + 2 ? cols - visible_width(right) - 2 : 0;
    head.push_back(pad_to(styled(clip(" " + where, room), fmt::emphasis::faint, c), room) + "  " + right);
    head.push_back(progress_bar(static_cast<std::size_t>(s.index), t.stage_count ? t.stage_count : t.stages.size(), cols, c));
    head.emplace_back();
    if (roomy) head.emplace_back();
    // The title stands out by weight, colour and a rule under it: a terminal has one font size.
    std::string title = clip(s.title, cols - 2);
    head.push_back(centred(styled(title, fmt::emphasis::bold | fmt::fg(fmt::terminal_color::bright_white), c), cols));
    std::string rule;
    for (std::size_t i = 0; i < visible_width(title); ++i) rule += "━";
    head.push_back(centred(styled(rule, fmt::fg(fmt::terminal_color::cyan), c), cols));
    head.emplace_back();
    std::vector<std::string> formula = split_lines(s.formula);
    while (!formula.empty() && formula.back().find_first_not_of(" \t") == std::string::npos) formula.pop_back();
    std::size_t fw = 0;
    for (auto& f : formula) fw = std::max(fw, visible_width(f));
    for (auto& f : formula)
        head.push_back(std::string(cols > fw ? (cols - fw) / 2 : 0, ' ') +
                       styled(clip(pad_to(f, fw), cols), fmt::emphasis::bold | fmt::fg(fmt::terminal_color::yellow), c));
    if (!formula.empty()) head.emplace_back();

    // The body: the values, then the explanation; scrolled when it is taller than the room left.
    render_options vo = o;
    vo.width = cols > 4 ? cols - 4 : cols;
    std::vector<std::string> body;
    if (st.help) {
        for (auto& l : help_lines(o.language)) body.push_back(centred(l, cols));
    } else {
        body = pack(value_blocks(t, s, vo), cols);
        if (st.text && s.text.find_first_not_of(" \t\r\n") != std::string::npos) {
            std::size_t tw = std::min<std::size_t>(cols > 4 ? cols - 4 : cols, 78);
            auto lines = wrap(s.text, tw);
            std::size_t lw = 0;
            for (auto& l : lines) lw = std::max(lw, display_width(l));
            if (!body.empty()) body.emplace_back();
            for (auto& l : lines) body.push_back(std::string((cols - lw) / 2, ' ') + styled(l, fmt::emphasis::faint, c));
        }
    }
    std::size_t body_h = rows > head.size() + 1 ? rows - head.size() - 1 : 0;
    st.body_lines = body.size();
    if (st.scroll + body_h > body.size()) st.scroll = body.size() > body_h ? body.size() - body_h : 0;
    std::vector<std::string> out = head;
    out.resize(std::min(out.size(), rows - 1));
    std::size_t top = body.size() < body_h ? (body_h - body.size()) / 3 : 0;  // a little above centre
    for (std::size_t i = 0; i < top; ++i) out.emplace_back();
    for (std::size_t i = st.scroll; i < body.size() && out.size() < rows - 1; ++i) out.push_back(body[i]);
    while (out.size() < rows - 1) out.emplace_back();

    // The bottom line: the keys on the left, the state on the right.
    std::string state = st.status;
    if (body.size() > body_h) {
        std::size_t below = body.size() - st.scroll - std::min(body_h, body.size() - st.scroll);
        state = fmt::format("{}{}", below ? fmt::format("↓ {} ", below) : "↑ ", state);
    }
    std::string keys(say(o.language, " n next · b back · g K stage · ↑↓ scroll · t text · h help · q quit",
                         " n 下一步 · b 上一步 · g K 跳转 · ↑↓ 滚动 · t 讲解 · h 帮助 · q 退出"));
    if (visible_width(keys) + visible_width(state) + 2 > cols) keys = say(o.language, " n next · b back · q quit", " n 下一步 · b 上一步 · q 退出");
    std::size_t sw = visible_width(state);
    std::size_t kw = cols > sw + 2 ? cols - sw - 2 : 0;
    out.push_back(pad_to(styled(clip(keys, kw), fmt::emphasis::faint, c), kw) + "  " + clip(state, cols - kw - 2 > 0 ? cols - kw - 2 : 0));
    for (auto& l : out) l = clip(l, cols);
    return out;
}

namespace {

enum class key { none, next, back, go, redraw, help, quit, interrupt, pause, text, up, down, page_up, page_down, unknown };

struct event {
    key k = key::none;
    long stage = 0;
};

// "g 3", "g3" -> 3
std::optional<long> stage_number(std::string_view rest) {
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
    if (rest.empty() || rest.size() > 6) return std::nullopt;
    long k = 0;
    for (char ch : rest) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
        k = k * 10 + (ch - '0');
    }
    return k;
}

// A line of input from a pipe: the stepper's letters, plus p (pause), t (text), j / k (scroll).
event parse_line(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t a = s.find_first_not_of(" \t");
    std::string_view v = a == std::string::npos ? std::string_view{} : std::string_view(s).substr(a);
    if (v.empty() || v == "n") return {key::next};
    if (v == "b") return {key::back};
    if (v == "r") return {key::redraw};
    if (v == "h" || v == "?") return {key::help};
    if (v == "q") return {key::quit};
    if (v == "p") return {key::pause};
    if (v == "t") return {key::text};
    if (v == "j") return {key::down};
    if (v == "k") return {key::up};
    if (v.front() == 'g')
        if (auto k = stage_number(v.substr(1))) return {key::go, *k};
    return {key::unknown};
}

// One key from a terminal in raw mode; arrow and page keys arrive as ESC [ x.
event decode_key(int fd, char ch) {
    switch (ch) {
        case '\n': case '\r': case 'n': case 'l': return {key::next};
        case ' ': return {key::pause};  // next, when not in --auto
        case 'b': case 127: case 8: return {key::back};
        case 'r': case 12: return {key::redraw};
        case 'h': case '?': return {key::help};
        case 'q': case 4: return {key::quit};
        case 3: return {key::interrupt};
        case 't': return {key::text};
        case 'j': return {key::down};
        case 'k': return {key::up};
        case 'g': return {key::go, -1};  // the number follows
        case 27: break;
        default: return {key::unknown};
    }
    char a = 0, b = 0;
    if (terminal::wait_byte(fd, 50, a) != terminal::wait_result::byte) return {key::redraw};  // a lone Esc
    if (a != '[' && a != 'O') return {key::unknown};
    if (terminal::wait_byte(fd, 50, b) != terminal::wait_result::byte) return {key::unknown};
    switch (b) {
        case 'A': return {key::up};
        case 'B': return {key::down};
        case 'C': return {key::next};
        case 'D': return {key::back};
        case '5': case '6': {
            char tilde = 0;
            terminal::wait_byte(fd, 50, tilde);
            return {b == '5' ? key::page_up : key::page_down};
        }
        default: return {key::unknown};
    }
}

bool write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        ssize_t k = ::write(fd, s.data(), s.size());
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        s.remove_prefix(static_cast<std::size_t>(k));
    }
    return true;
}

struct position {
    std::size_t lesson = 0, stage = 0;
};

class presenter {
public:
    presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p, std::size_t start)
        : traces_(traces), o_(o), p_(p), raw_(p.in_fd, terminal::screen::full, p.out_fd) {
        for (std::size_t t = 0; t < traces.size(); ++t)
            for (std::size_t s = 0; s < traces[t].stages.size(); ++s) all_.push_back({t, s});
        i_ = start < all_.size() ? start : 0;
        paused_ = p.auto_seconds <= 0;
    }

    int run() {
        if (all_.empty()) return 0;
        restart_clock();
        if (!draw()) return 0;
        for (;;) {
            event e;
            auto got = next_event(e);
            if (got == terminal::wait_result::end) return 0;
            if (got == terminal::wait_result::interrupted) {
                if (terminal::resized() && !draw()) return 0;
                continue;
            }
            if (got == terminal::wait_result::timeout) e = {key::next};  // --auto
            if (e.k == key::quit) return 0;
            if (e.k == key::interrupt) return 130;
            if (!handle(e, got == terminal::wait_result::timeout)) return 0;
            if (!draw()) return 0;
        }
    }

private:
    using clock = std::chrono::steady_clock;

    bool auto_on() const { return p_.auto_seconds > 0 && !paused_ && !at_end(); }
    bool at_end() const { return i_ + 1 >= all_.size(); }
    void restart_clock() { deadline_ = clock::now() + std::chrono::milliseconds(static_cast<long>(p_.auto_seconds * 1000)); }

    int timeout_ms() const {
        if (!auto_on()) return -1;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now()).count();
        return static_cast<int>(std::max<long long>(0, left));
    }

    // A key from the terminal, or a line from a pipe; timeout when --auto's time is up.
    terminal::wait_result next_event(event& e) {
        for (;;) {
            char ch = 0;
            auto r = terminal::wait_byte(p_.in_fd, timeout_ms(), ch);
            if (r != terminal::wait_result::byte) return r;
            if (raw_.active()) {
                e = decode_key(p_.in_fd, ch);
                if (e.k == key::go && e.stage < 0) return read_stage_number(e);
                return r;
            }
            if (ch != '\n') {
                line_ += ch;
                continue;
            }
            e = parse_line(line_);
            line_.clear();
            return r;
        }
    }

    // After g on a terminal: digits up to Enter, echoed in the status line; Esc cancels.
    terminal::wait_result read_stage_number(event& e) {
        std::string digits;
        for (;;) {
            prompt_ = std::string(say(o_.language, "go to stage: ", "跳到阶段：")) + digits + "▏";
            if (!draw()) return terminal::wait_result::end;
            char ch = 0;
            auto r = terminal::wait_byte(p_.in_fd, -1, ch);
            if (r == terminal::wait_result::interrupted) {
                terminal::resized();
                continue;
            }
            if (r != terminal::wait_result::byte) return r;
            if (ch == '\n' || ch == '\r') break;
            if ((ch == 127 || ch == 8) && !digits.empty()) digits.pop_back();
            else if (std::isdigit(static_cast<unsigned char>(ch)) && digits.size() < 6) digits += ch;
            else if (ch == 27 || ch == 3 || ch == 'q') {
                prompt_.clear();
                e = {key::redraw};
                return terminal::wait_result::byte;
            }
        }
        prompt_.clear();
        auto k = stage_number(digits);
        e = k ? event{key::go, *k} : event{key::unknown};
        return terminal::wait_result::byte;
    }

    // Returns false when the presentation is over.
    bool handle(const event& e, bool by_clock) {
        note_.clear();
        switch (e.k) {
            case key::pause:
                if (p_.auto_seconds > 0 && !by_clock) {
                    paused_ = !paused_;
                    restart_clock();
                    return true;
                }
                [[fallthrough]];
            case key::next:
                if (at_end()) {
                    if (end_shown_) return false;  // a second "next" at the end leaves
                    end_shown_ = true;
                    return true;
                }
                move_to(i_ + 1);
                return true;
            case key::back:
                if (i_ > 0) move_to(i_ - 1);
                return true;
            case key::go: {
                const trace& t = traces_[all_[i_].lesson];
                if (e.stage < 1 || static_cast<std::size_t>(e.stage) > t.stages.size())
                    note_ = fmt::format("{} (1–{})", tr(o_.language, "no such stage"), t.stages.size());
                else move_to(i_ - all_[i_].stage + static_cast<std::size_t>(e.stage - 1));
                return true;
            }
            case key::help: st_.help = !st_.help; return true;
            case key::text: st_.text = !st_.text; return true;
            case key::up: st_.scroll = st_.scroll > 0 ? st_.scroll - 1 : 0; return true;
            case key::down: ++st_.scroll; return true;
            case key::page_up: st_.scroll = st_.scroll > 10 ? st_.scroll - 10 : 0; return true;
            case key::page_down: st_.scroll += 10; return true;
            case key::redraw: return true;
            default: note_ = std::string(tr(o_.language, "unknown key; h for help")); return true;
        }
    }

    void move_to(std::size_t i) {
        i_ = i;
        st_.scroll = 0, st_.help = false;
        end_shown_ = false;
        restart_clock();
    }

    std::string status() const {
        if (!prompt_.empty()) return prompt_;
        if (!note_.empty()) return note_;
        if (at_end()) return std::string(end_shown_ ? say(o_.language, "end · n or q leaves", "结束 · n 或 q 退出")
                                                    : tr(o_.language, "end of lesson"));
        if (p_.auto_seconds <= 0) return "";
        if (paused_) return std::string(say(o_.language, "paused · space goes on", "已暂停 · 空格继续"));
        return fmt::format("{} {:g}s · {}", say(o_.language, "auto", "自动"), p_.auto_seconds, say(o_.language, "space pauses", "空格暂停"));
    }

    // The whole screen in one write, so it never shows half drawn. False when the output is gone.
    bool draw() {
        std::size_t cols = terminal::width(p_.out_fd, 80), rows = terminal::height(p_.out_fd, 24);
        st_.status = status() + " ";
        const position& at = all_[i_];
        auto lines = present_frame(traces_[at.lesson], at.stage, o_, cols, rows, st_);
        std::string frame = "\x1b[H\x1b[2J";
        for (std::size_t r = 0; r < lines.size(); ++r) frame += lines[r] + (r + 1 < lines.size() ? "\n" : "");
        return write_all(p_.out_fd, frame);
    }

    const std::vector<trace>& traces_;
    render_options o_;
    presenter_options p_;
    terminal::raw_mode raw_;
    std::vector<position> all_;
    std::size_t i_ = 0;
    frame_state st_;
    bool paused_ = false, end_shown_ = false;
    clock::time_point deadline_;
    std::string line_, prompt_, note_;
};

}  // namespace

int run_presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p,
                  std::size_t start) {
    presenter show(traces, o, p, start);
    return show.run();
}

}  // namespace qkv
