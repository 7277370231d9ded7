// Watching a training run (`qkv train`, lesson 18) on the progress line: on standard error, a
// terminal only, its words the report's (report_train_progress.hpp). Private to src/cli.
#pragma once

#include <chrono>

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

}  // namespace qkv::cli
