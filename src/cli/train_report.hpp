// What `qkv train` prints about a run: the text report (the loss on a log scale, every head at the
// telling checkpoints, the scores, the named heads and the drop), the JSON document, and the
// progress line. Private to src/cli.
#pragma once

#include <string>

#include "qkv/render.hpp"
#include "qkv/train_config.hpp"
#include "qkv/training_run.hpp"

namespace qkv::cli {

struct train_outcome {
    const train::train_config& config;
    const train::run_result& run;
    std::size_t first_step;  // the steps the model had taken before this run (a loaded one)
};

std::string train_text(const train_outcome& o, const render_options& r);

// {"config", "steps", "checkpoints", "tokens", "repeat", "previous_token_head", "induction_head",
// …} as README.md documents it; with_batches adds each step's tokens.
std::string train_json(const train_outcome& o, bool with_batches);

// "step 1200/4000  loss 2.71 (repeated 2.65)  best induction 0.38  1.3 s, 3.1 s left"; where that
// is wider than `width` columns, without the repeated copy's loss, then without the induction
// score too (the step, the loss and the time left are what a narrow window keeps).
std::string progress_text(const train::run_state& s, lang l, std::size_t width = std::string::npos);

// Every head of a probe as panels, titled with its scores.
std::vector<std::string> head_panels(const train::train_config& c, const std::vector<train::head_view>& heads,
                                     const train::batch& held, const render_options& r);

}  // namespace qkv::cli
