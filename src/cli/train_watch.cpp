// The progress line and the live view of a training run (train_watch.hpp).
#include "train_watch.hpp"

#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/train_builtins.hpp"
#include "qkv/train_progress.hpp"
#include "qkv/write_all.hpp"

namespace qkv::cli {

namespace {

using clock = std::chrono::steady_clock;

// Redraws are paced: a terminal cannot show more, and each costs a little of the training's time.
constexpr auto line_every = std::chrono::milliseconds(100);
constexpr auto live_every = std::chrono::milliseconds(250);

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

training_builtins::training_builtins(std::function<void(const train::run_state&)> watch) {
    train::add_training_builtins(std::move(watch));
}

training_builtins::~training_builtins() { train::add_training_builtins({}); }

live_view::live_view(const train::train_config& c, const render_options& r, int out_fd, int in_fd)
    : config_(c), options_(r), out_fd_(out_fd), in_fd_(in_fd), screen_(in_fd, terminal::screen::full, out_fd), held_(train::held_out(c)) {}

void live_view::operator()(const train::run_state& s) {
    const terminal::hold_stop whole;      // a Ctrl-Z now stops the run after this screen, not inside it
    if (terminal::given_back()) return;  // continued in the background: the terminal is the shell's
    char key = 0;
    while (terminal::wait_byte(in_fd_, 0, key) == terminal::wait_result::byte)
        if ((key == 'q' || key == 'Q') && stop_) stop_->ask();
    if (!due(last_, live_every, s.step == s.last_step)) return;
    options_.width = terminal::width(out_fd_, options_.width);
    const std::size_t rows = terminal::height(out_fd_, 24);
    std::vector<std::string> lines{fmt::format("{}  ({})", live_title(s, options_.language, std::string::npos),
                                               pick(options_.language, "q 或 Ctrl-C 停止", "q or Ctrl-C stops"))};
    for (auto& line : live_body(config_, s, held_, options_)) lines.push_back(std::move(line));
    std::string frame = "\033[H";
    for (std::size_t i = 0; i < lines.size() && i + 1 < rows; ++i) frame += fmt::format("{}\033[K\n", clip(lines[i], options_.width));
    frame += "\033[J";
    (void)write_all(out_fd_, frame);  // the screen went away: the run goes on, unwatched
}

}  // namespace qkv::cli
