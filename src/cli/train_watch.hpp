// Watching `qkv train` while it runs: the progress line on standard error (a terminal only), and
// --live, which redraws the loss curve and every head on the held-out sequence in the alternate
// screen every few steps (q stops the run as Ctrl-C does; the screen comes back however it ends).
// Private to src/cli.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

#include "qkv/render.hpp"
#include "qkv/stop_request.hpp"
#include "qkv/terminal.hpp"
#include "qkv/training_run.hpp"

namespace qkv::cli {

// The progress line: redrawn at most ten times a second, erased by clear().
class progress_line {
public:
    progress_line(int fd, lang l) : on_(terminal::is_tty(fd)), language_(l) {}
    void operator()(const train::run_state& s);
    void clear();

private:
    bool on_;
    lang language_;
    std::chrono::steady_clock::time_point last_{};
};

class live_view {
public:
    // Takes the screen (alternate screen, keys one at a time) until it is destroyed.
    live_view(const train::train_config& c, const render_options& r, int out_fd, int in_fd);
    // Call after the screen is taken: q then asks `stop` to end the run.
    void stop_with(terminal::stop_request& stop) { stop_ = &stop; }
    void operator()(const train::run_state& s);

private:
    const train::train_config& config_;
    render_options options_;
    int out_fd_, in_fd_;
    terminal::raw_mode screen_;
    train::batch held_;
    terminal::stop_request* stop_ = nullptr;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace qkv::cli
