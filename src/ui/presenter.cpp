// --present: what its screens show (present_frame) and what its own keys do: --auto's clock, which
// says next by itself, p that pauses it, t for the text. The loop is the stepper's too, and so are
// space and Enter, which read on (screen_loop.hpp); what a key means is navigation's.
#include "qkv/presenter.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "qkv/present_frame.hpp"
#include "screen_loop.hpp"
#include "ui_words.hpp"

namespace qkv {
namespace {

class presenter : public ui::screen_loop {
public:
    presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p, std::size_t start)
        : screen_loop(traces, o, key_set::presenter, p.in_fd, p.out_fd,
                      terminal::is_tty(p.out_fd) && terminal::escapes_ok(), start),
          auto_seconds_(p.auto_seconds), paused_(p.auto_seconds <= 0) {
        restart_clock();
    }

private:
    using clock = std::chrono::steady_clock;

    bool auto_on() const { return auto_seconds_ > 0 && !paused_ && !at_.at_end(); }
    void restart_clock() { deadline_ = clock::now() + std::chrono::milliseconds(static_cast<long>(auto_seconds_ * 1000)); }

    int timeout_ms() const override {
        if (!auto_on()) return -1;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - clock::now()).count();
        return static_cast<int>(std::max<long long>(0, left));
    }

    // t turns the text off and on; p pauses --auto and sets it going again (without --auto it is
    // no key of this screen).
    std::optional<bool> own_key(const command& c, bool by_clock) override {
        if (c.a == action::text) {
            st_.text = !st_.text;
            return true;
        }
        if (c.a != action::pause || auto_seconds_ <= 0 || by_clock) return std::nullopt;
        paused_ = !paused_;
        restart_clock();
        return true;
    }

    // A new stage gets a fresh --auto period.
    void moved() override { restart_clock(); }

    std::string idle_status() const override {
        const lang l = o_.language;
        if (at_.at_end()) return moves_.end_status(l);
        if (auto_seconds_ <= 0) return "";
        if (paused_) return ui::say(l, ui::paused);
        return fmt::format("{} {:g}s · {}", ui::say(l, ui::auto_on), auto_seconds_, ui::say(l, ui::p_pauses));
    }

    std::vector<std::string> frame(std::size_t cols, std::size_t rows) override {
        st_.status = status() + " ";
        return present_frame(traces_[at_.lesson()], at_.stage(), o_, cols, rows, st_);
    }

    double auto_seconds_;  // > 0: the next stage after this long by itself
    bool paused_;
    clock::time_point deadline_;
};

}  // namespace

int run_presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p,
                  std::size_t start) {
    presenter show(traces, o, p, start);
    return show.run();
}

}  // namespace qkv
