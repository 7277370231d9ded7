// What is shown of a run while it trains: the progress line (on standard error, and the live
// screen's title) and the live screen's body, the loss so far over the heads as they are now.
#pragma once

#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/task_data.hpp"
#include "qkv/training_run.hpp"

namespace qkv {

// "step 1200/4000  loss 2.71 (repeated 2.65)  best induction 0.38  1.3 s, 3.1 s left"; where that
// is wider than `width` columns, without the repeated copy's loss, then without the induction
// score too (the step, the loss and the time left are what a narrow window keeps).
std::string progress_text(const train::run_state& s, lang l, std::size_t width = std::string::npos);

// The live screen's title: "qkv train  " and the progress line, in `width` columns as it can.
std::string live_title(const train::run_state& s, lang l, std::size_t width);

// Under it: the loss so far (8 rows), then the heads of the latest probe on the held-out sequence,
// o.width wide. With no `rows` (0), every head. In `rows` lines, a page of heads at a time, each
// whole (a character for a k × k block when the rows ask it): page 0 the two heads the scores
// lead with, the one most like a previous-token head and the one most like an induction head (of
// a later layer when there are more: its trick needs an earlier head), or for a task judged by its
// source the source head; then the others two a page. `pages` is set to how many there are; a
// page past the last is the first again.
std::vector<std::string> live_body(const train::train_config& c, const train::run_state& s, const train::batch& held,
                                   const render_options& o, std::size_t rows = 0, std::size_t page = 0,
                                   std::size_t* pages = nullptr);

}  // namespace qkv
