// The --present loop: it reads keys (or lines from a pipe), moves through the stages, keeps --auto's
// clock and redraws the whole screen each time. What a screen shows is present_frame's; what a key
// means is navigation's.
#include "qkv/presenter.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>

#include <fmt/format.h>
#include <unistd.h>

#include "qkv/navigation.hpp"
#include "qkv/present_frame.hpp"
#include "qkv/terminal.hpp"

namespace qkv {
namespace {


class presenter {
public:
    presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p, std::size_t start)
        : traces_(traces), o_(o), p_(p), escapes_(terminal::escapes_ok()),
          raw_(p.in_fd, escapes_ ? terminal::screen::full : terminal::screen::keep, p.out_fd), at_(traces, start) {
        paused_ = p.auto_seconds <= 0;
    }

    int run() {
        if (at_.empty()) return 0;
        restart_clock();
        if (!draw()) return 0;
        for (;;) {
            command c;
            auto got = next_command(c);
            if (got == terminal::wait_result::end) return 0;
            if (got == terminal::wait_result::interrupted) {
                if (terminal::resized() && !draw()) return 0;
                continue;
            }
            if (got == terminal::wait_result::timeout) c = {action::next};  // --auto
            if (c.a == action::quit) return 0;
            if (c.a == action::interrupt) return 130;
            if (!handle(c, got == terminal::wait_result::timeout)) return 0;
            if (!draw()) return 0;
        }
    }

private:
    using clock = std::chrono::steady_clock;

    bool auto_on() const { return p_.auto_seconds > 0 && !paused_ && !at_.at_end(); }
    void restart_clock() { deadline_ = clock::now() + std::chrono::milliseconds(static_cast<long>(p_.auto_seconds * 1000)); }

    int timeout_ms() const {
        if (!auto_on()) return -1;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now()).count();
        return static_cast<int>(std::max<long long>(0, left));
    }

    // A key from the terminal, or a line from a pipe; timeout when --auto's time is up.
    terminal::wait_result next_command(command& c) {
        for (;;) {
            char ch = 0;
            auto r = terminal::wait_byte(p_.in_fd, timeout_ms(), ch);
            if (r != terminal::wait_result::byte) return r;
            if (raw_.active()) {
                c = decode_key(ch, key_set::presenter, p_.in_fd);
                if (c.a == action::go && c.stage < 0) return read_stage_number(c);
                return r;
            }
            if (ch != '\n') {
                line_ += ch;
                continue;
            }
            c = parse_line(line_);
            line_.clear();
            return r;
        }
    }

    // After g on a terminal: digits up to Enter, echoed in the status line; Esc cancels.
    terminal::wait_result read_stage_number(command& c) {
        auto r = qkv::read_stage_number(p_.in_fd, key_set::presenter, c, [&](const std::string& digits) {
            prompt_ = pick(o_.language, "跳到阶段：", "go to stage: ") + digits + "▏";
            return draw();
        });
        prompt_.clear();
        return r;
    }

    // Returns false when the presentation is over.
    bool handle(const command& c, bool by_clock) {
        note_.clear();
        if (st_.help && !by_clock) {  // any key closes the key list
            st_.help = false;
            return true;
        }
        switch (c.a) {
            case action::pause:
                if (p_.auto_seconds > 0 && !by_clock) {
                    paused_ = !paused_;
                    restart_clock();
                    return true;
                }
                return move(command{action::next});  // --auto's clock, or space without --auto
            case action::next: case action::back: case action::go:
                return move(c);
            case action::help: st_.help = true; return true;
            case action::text: st_.text = !st_.text; return true;
            case action::redraw: case action::none: return true;
            default:
                if (scroll_body(st_, c.a)) return true;
                note_ = std::string(tr(o_.language, "unknown key; h for help")); return true;
        }
    }

    // next, back, g K; on a new stage: from the top, out of help, and a fresh --auto period.
    bool move(const command& c) {
        const stage_move m = moves_.apply(c, note_, o_.language);
        if (m == stage_move::moved) st_.scroll = 0, st_.help = false, restart_clock();
        return m != stage_move::leave;
    }

    std::string status() const {
        if (!prompt_.empty()) return prompt_;
        if (!note_.empty()) return note_;
        if (at_.at_end()) return moves_.end_status(o_.language);
        if (p_.auto_seconds <= 0) return "";
        if (paused_) return pick(o_.language, "已暂停 · 空格继续", "paused · space goes on");
        return fmt::format("{} {:g}s · {}", pick(o_.language, "自动", "auto"), p_.auto_seconds, pick(o_.language, "空格暂停", "space pauses"));
    }

    // The whole screen in one write, so it never shows half drawn; without escapes (TERM=dumb) a
    // page printed under the last, a line shorter so that the cursor's line keeps it all in sight.
    // False when the output is gone.
    bool draw() {
        std::size_t cols = terminal::width(p_.out_fd, 80), rows = terminal::height(p_.out_fd, 24);
        st_.status = status() + " ";
        auto lines = present_frame(traces_[at_.lesson()], at_.stage(), o_, cols, escapes_ ? rows : rows - 1, st_);
        return draw_frame(p_.out_fd, lines, escapes_);
    }

    const std::vector<trace>& traces_;
    render_options o_;
    presenter_options p_;
    bool escapes_;  // the terminal takes cursor and screen escapes
    terminal::raw_mode raw_;
    stage_cursor at_;
    stage_moves moves_{at_};
    frame_state st_;
    bool paused_ = false;
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
