// The full-screen stepper: what fills its screen. The body is the text renderer's own blocks for
// the stage, scrolled under a pinned head; the loop (keys, cursor, status) is the presenter's too
// (screen_loop.hpp), and so is the frame.
#include "qkv/stepper_screen.hpp"
#include "qkv/control_text.hpp"

#include <algorithm>
#include <optional>

#include <fmt/color.h>
#include <fmt/format.h>

#include "qkv/navigation.hpp"
#include "qkv/render_text.hpp"
#include "qkv/screen_frame.hpp"
#include "qkv/token_span.hpp"
#include "qkv/wrap.hpp"
#include "qkv/styled_text.hpp"
#include "screen_loop.hpp"
#include "ui_words.hpp"

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
// values and sub-steps as `qkv lesson` prints them (render_stage_blocks), what the stage computes
// first (outputs_first), a blank line between.
std::vector<std::string> stage_body(const stage_trace& s, const render_options& o, std::size_t cols, std::size_t rows) {
    std::vector<std::string> body;
    auto formula = formula_lines(s, cols);
    if (formula.size() > formula_room(rows)) {
        body.assign(formula.begin() + static_cast<long>(formula_room(rows) - 1), formula.end());
        body.emplace_back();
    }
    for (const auto& l : reflow(s.text, cols > 1 ? cols - 1 : cols)) body.push_back(escape_controls(l));
    render_options wide = o;
    wide.width = cols;
    wide.every_step = true;  // the body scrolls: every recorded step, a page after another
    const std::size_t values_from = body.size();
    for (const auto& block : render_stage_blocks(outputs_first(s), wide)) {
        if (body.size() > values_from || (!body.empty() && !plain(body.back()).empty())) body.emplace_back();
        body.insert(body.end(), block.begin(), block.end());
    }
    while (body.size() > values_from && plain(body.back()).empty()) body.pop_back();
    return fit_lines(body, cols);
}

class screen_stepper : public ui::screen_loop {
public:
    screen_stepper(const std::vector<trace>& traces, const render_options& o, int in_fd, int out_fd, std::size_t start)
        : screen_loop(traces, o, key_set::stepper, in_fd, out_fd, true, start) {}

private:
    std::string idle_status() const override {
        return at_.at_end() && at_bottom(st_) ? moves_.end_status(o_.language) : "";
    }

    // Lesson and scenario; "3/7  title" as `qkv lesson` heads a stage; the formula; a rule.
    std::vector<std::string> head(const trace& t, const stage_trace& s, std::size_t cols, std::size_t rows) const {
        const bool c = o_.color;
        std::vector<std::string> out;
        std::string where = lesson_line(t, o_.language);
        std::string right = t.scenario.empty() ? "" : escape_controls(t.scenario);
        std::size_t room = cols > visible_width(right) + 2 ? cols - visible_width(right) - 2 : 0;
        out.push_back(pad_to(styled(clip(where, room), fmt::emphasis::faint, c), room) + "  " + right);
        std::string counter = fmt::format("{}/{}  ", at_.stage() + 1, at_.stages_here());
        out.push_back(styled(clip(counter + escape_controls(plain_tokens(s.title)), cols), fmt::emphasis::bold, c));
        auto formula = formula_lines(s, cols);
        if (formula.size() > formula_room(rows)) {  // the rest opens the body
            formula.resize(formula_room(rows) - 1);
            formula.push_back(styled(ui::say(o_.language, ui::formula_goes_on), fmt::emphasis::faint, c));
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

    std::vector<std::string> frame(std::size_t cols, std::size_t rows) override {
        const trace& t = traces_[at_.lesson()];
        const stage_trace& s = t.stages.at(at_.stage());
        frame_parts p;
        p.head = head(t, s, cols, rows);
        if (st_.help) p.head.erase(p.head.begin() + 2, p.head.end() - 1);  // the key list takes the formula's rows
        p.body = st_.help ? help_panel(o_.language, key_set::stepper, cols, false) : body(s, cols, rows);
        p.keys = ui::say(o_.language, ui::step_keys);
        p.short_keys = ui::say(o_.language, ui::step_keys_short);
        p.color = o_.color;
        lay_out_frame(p, cols, rows, st_);  // first for the sizes: whether the bottom is in sight
        st_.status = status() + " ";
        return lay_out_frame(p, cols, rows, st_);
    }

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
