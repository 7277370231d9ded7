// Watching a training run (`qkv train`, lesson 18) on the progress line: on standard error, a
// terminal only, its words the report's (train_progress.hpp); `qkv train --live` draws through
// ui's live screen instead. Private to src/cli.
#pragma once

#include <chrono>
#include <functional>

#include "qkv/cli.hpp"
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

}  // namespace qkv::cli
