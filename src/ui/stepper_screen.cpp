// The full-screen stepper: it moves a cursor through the stages and a scroll through each stage's
// body, and redraws the whole screen every time (so a resize leaves nothing behind). The body is
// the text renderer's own output for the stage; the frame is the one the presenter draws in.
#include "qkv/stepper_screen.hpp"
#include "qkv/control_text.hpp"

#include <algorithm>

#include <fmt/color.h>
#include <fmt/format.h>

#include "qkv/navigation.hpp"
#include "qkv/render_text.hpp"
#include "qkv/screen_frame.hpp"
#include "qkv/wrap.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/terminal.hpp"

namespace qkv {
namespace {

// A formula taller than this many lines has only its first lines pinned (a quarter of the screen).
std::size_t formula_room(std::size_t rows) { return std::max<std::size_t>(rows / 4, 2); }

// The formula's lines, indented as `qkv lesson` prints them, control characters made visible.
std::vector<std::string> formula_lines(const stage_trace& s, std::size_t cols) {
    std::vector<std::string> out;
    for (const auto& f : split_lines(s.formula)) out.push_back(clip("    " + escape_controls(f), cols));
    while (!out.empty() && plain(out.back()).find_first_not_of(' ') == std::string::npos) out.pop_back();
    return out;
}

// Under the head: the rest of a tall formula, the explanation wrapped to the screen, then the
// values and sub-steps as `qkv lesson` prints them (rendered without formula and text, the
// "3/7  title" heading left out).
std::vector<std::string> stage_body(const stage_trace& s, const render_options& o, std::size_t cols, std::size_t rows) {
    std::vector<std::string> body;
    auto formula = formula_lines(s, cols);
    if (formula.size() > formula_room(rows)) {
        body.assign(formula.begin() + static_cast<long>(formula_room(rows) - 1), formula.end());
        body.emplace_back();
    }
    for (const auto& l : reflow(s.text, cols > 1 ? cols - 1 : cols)) body.push_back(escape_controls(l));
    trace one;
    one.stages.push_back(s);
    one.stages.back().formula.clear(), one.stages.back().text.clear();
    render_options wide = o;
    wide.width = cols;
    std::vector<std::string> lines = split_lines(render_text_stage(one, 0, wide));
    std::size_t from = 0;
    while (from < lines.size() && !plain(lines[from]).empty()) ++from;
    if (body.empty() || plain(body.back()).empty()) ++from;  // one blank line between the parts
    while (lines.size() > from && plain(lines.back()).empty()) lines.pop_back();
    if (from < lines.size()) body.insert(body.end(), lines.begin() + static_cast<long>(from), lines.end());
    return fit_lines(body, cols);
}

class screen_stepper {
public:
    screen_stepper(const std::vector<trace>& traces, const render_options& o, int in_fd, int out_fd, std::size_t start)
        : traces_(traces), o_(o), in_(in_fd), out_(out_fd), raw_(in_fd, terminal::screen::full, out_fd), at_(traces, start) {}

    int run() {
        if (at_.empty()) return 0;
        if (!draw()) return 141;
        for (;;) {
            char ch = 0;
            auto got = terminal::wait_byte(in_, -1, ch);
            if (got == terminal::wait_result::end) return 0;
            if (got == terminal::wait_result::interrupted) {  // a resize, or back from Ctrl-Z
                if (terminal::resized() && !draw()) return 141;
                continue;
            }
            command c = decode_key(ch, key_set::stepper, in_);
            if (c.a == action::go && c.stage < 0 && !read_number(c)) return 0;
            if (c.a == action::quit) return 0;
            if (c.a == action::interrupt) return 130;
            if (!handle(c)) return 0;
            if (!draw()) return 141;
        }
    }

private:
    // After g: the digits in the status line up to Enter. False at the end of input.
    bool read_number(command& c) {
        auto r = read_stage_number(in_, key_set::stepper, c, [&](const std::string& digits) {
            prompt_ = pick(o_.language, "跳到阶段：", "go to stage: ") + digits + "▏";
            return draw();
        });
        prompt_.clear();
        return r == terminal::wait_result::byte;
    }

    // What a key does; false when the stepping is over.
    bool handle(const command& c) {
        note_.clear();
        if (st_.help) {  // any key closes the key list
            st_.help = false;
            return true;
        }
        switch (c.a) {
            case action::page_or_next:
                if (!at_bottom(st_)) return scroll_body(st_, action::page_down);
                return move(command{action::next});
            case action::next: case action::back: case action::go:
                return move(c);
            case action::help: st_.help = true; return true;
            case action::redraw: case action::none: return true;
            default:
                if (!scroll_body(st_, c.a)) note_ = std::string(tr(o_.language, "unknown key; h for help"));
                return true;
        }
    }

    // next, back, g K; a new stage opens at its top.
    bool move(const command& c) {
        const stage_move m = moves_.apply(c, note_, o_.language);
        if (m == stage_move::moved) st_.scroll = 0;
        return m != stage_move::leave;
    }

    std::string status() const {
        if (!prompt_.empty()) return prompt_;
        if (!note_.empty()) return note_;
        if (at_.at_end() && at_bottom(st_))
            return moves_.end_status(o_.language);
        return "";
    }

    // Lesson and scenario; "3/7  title" as `qkv lesson` heads a stage; the formula; a rule.
    std::vector<std::string> head(const trace& t, const stage_trace& s, std::size_t cols, std::size_t rows) const {
        const bool c = o_.color;
        std::vector<std::string> out;
        std::string where = fmt::format(fmt::runtime(tr(o_.language, "Lesson {}")), t.lesson) + " · " + escape_controls(t.title);
        std::string right = t.scenario.empty() ? "" : escape_controls(t.scenario);
        std::size_t room = cols > visible_width(right) + 2 ? cols - visible_width(right) - 2 : 0;
        out.push_back(pad_to(styled(clip(where, room), fmt::emphasis::faint, c), room) + "  " + right);
        std::string counter = fmt::format("{}/{}  ", at_.stage() + 1, at_.stages_here());
        out.push_back(styled(clip(counter + escape_controls(s.title), cols), fmt::emphasis::bold, c));
        auto formula = formula_lines(s, cols);
        if (formula.size() > formula_room(rows)) {  // the rest opens the body
            formula.resize(formula_room(rows) - 1);
            formula.push_back(styled(pick(o_.language, "    ⋮ （公式续于下方）", "    ⋮ (the formula goes on below)"), fmt::emphasis::faint, c));
        }
        out.insert(out.end(), formula.begin(), formula.end());
        std::string rule;
        for (std::size_t i = 0; i < cols; ++i) rule += "─";
        out.push_back(styled(rule, fmt::emphasis::faint, c));
        return out;
    }

    // The stage's body, rendered once for each stage and width.
    const std::vector<std::string>& body(const stage_trace& s, std::size_t cols, std::size_t rows) {
        std::size_t key = at_.lesson() * 100000 + at_.stage();
        if (key != cached_at_ || cols != cached_cols_ || rows != cached_rows_) {
            body_ = stage_body(s, o_, cols, rows);
            cached_at_ = key, cached_cols_ = cols, cached_rows_ = rows;
        }
        return body_;
    }

    bool draw() {
        std::size_t cols = terminal::width(out_, 80), rows = terminal::height(out_, 24);
        const trace& t = traces_[at_.lesson()];
        const stage_trace& s = t.stages.at(at_.stage());
        frame_parts p;
        p.head = head(t, s, cols, rows);
        if (st_.help) p.head.erase(p.head.begin() + 2, p.head.end() - 1);  // the key list takes the formula's rows
        p.body = st_.help ? help_panel(o_.language, key_set::stepper, cols, false) : body(s, cols, rows);
        p.keys = pick(o_.language, "空格 下翻 · n 下一阶段 · b 上一阶段 · ↑↓ 滚动 · h 按键 · q 退出",
                      "space more · n next · b back · ↑↓ scroll · h keys · q quit");
        p.short_keys = pick(o_.language, "n 下一阶段 · b 上一阶段 · h 按键 · q 退出", "n next · b back · h keys · q quit");
        p.color = o_.color;
        lay_out_frame(p, cols, rows, st_);  // first for the sizes: whether the bottom is in sight
        st_.status = status() + " ";
        return draw_frame(out_, lay_out_frame(p, cols, rows, st_), true);
    }

    const std::vector<trace>& traces_;
    render_options o_;
    int in_, out_;
    terminal::raw_mode raw_;
    stage_cursor at_;
    stage_moves moves_{at_};
    frame_state st_;
    std::string prompt_, note_;
    std::size_t cached_at_ = static_cast<std::size_t>(-1), cached_cols_ = 0, cached_rows_ = 0;
    std::vector<std::string> body_;
};

}  // namespace

int run_stepper_screen(const std::vector<trace>& traces, const render_options& o, int in_fd, int out_fd,
                       std::size_t start) {
    screen_stepper s(traces, o, in_fd, out_fd, start);
    return s.run();
}

}  // namespace qkv
