// The progress line of a training run (progress_line.hpp).
#include "progress_line.hpp"

#include "qkv/report_train_progress.hpp"

namespace qkv::cli {

namespace {

using clock = std::chrono::steady_clock;

// Redraws are paced: a terminal cannot show more, and each costs a little of the training's time.
constexpr auto line_every = std::chrono::milliseconds(100);

bool due(clock::time_point& last, clock::duration every, bool last_step) {
    const auto now = clock::now();
    if (!last_step && now - last < every) return false;
    last = now;
    return true;
}

}  // namespace

void progress_line::operator()(const train::run_state& s) {
    if (!line_.on() || !due(last_, line_every, s.step == s.last_step)) return;
    line_.show(progress_text(s, language_, line_.columns()));
}

}  // namespace qkv::cli
