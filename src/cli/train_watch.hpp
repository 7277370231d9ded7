// Watching `qkv train` while it runs: the progress line on standard error (a terminal only), and
// --live, which redraws the loss curve and every head on the held-out sequence in the alternate
// screen every few steps (q stops the run as Ctrl-C does; the screen comes back however it ends).
// What they show is the report's (train_progress.hpp). Private to src/cli.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

#include "qkv/cli.hpp"
#include "qkv/render.hpp"
#include "qkv/stop_request.hpp"
#include "qkv/terminal.hpp"
#include "qkv/training_run.hpp"
#include "status_line.hpp"

namespace qkv::cli {

// The progress line on the console's err, when that is a terminal: redrawn at most ten times a
// second, erased by clear().
class progress_line {
public:
    progress_line(const console& io, lang l) : line_(io), language_(l) {}
    void operator()(const train::run_state& s);
    void clear() { line_.clear(); }

private:
    status_line line_;
    lang language_;
    std::chrono::steady_clock::time_point last_{};
};

// The training built-ins in the engine's table, their runs watched by `watch` while this lives
// (lesson 18's progress line), and by nobody after: no run reports to a console that is gone.
class training_builtins {
public:
    explicit training_builtins(std::function<void(const train::run_state&)> watch);
    ~training_builtins();
    training_builtins(const training_builtins&) = delete;
    training_builtins& operator=(const training_builtins&) = delete;
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
