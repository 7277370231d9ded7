// A training run's heads as the reader sees them: every head of a probe as a heat panel titled with
// its scores, down the held-out sequence's tokens. The report's checkpoints and the live screen draw
// the same panels.
#pragma once

#include <string>
#include <vector>

#include "qkv/head_scores.hpp"
#include "qkv/render.hpp"
#include "qkv/task_data.hpp"
#include "qkv/train_config.hpp"

namespace qkv {

// The held-out sequence's tokens as they are shown: a, b, c, … or numbers (token_label).
std::vector<std::string> held_out_labels(const train::train_config& c, const train::batch& held);

// "L.H p 0.95 i 0.12", or "L.H p 0.95 s 0.88" for a task judged by its source score.
std::string head_title(const train::train_config& c, const train::head_view& v);

// Every head as a panel titled "L.H p 0.95 i 0.12" (previous-token and induction scores), or
// "L.H p 0.95 s 0.88" (previous-token and source) for a task judged by its source score; in at most
// max_rows lines when that is given (heat_panel_lines).
std::vector<std::string> head_panels(const train::train_config& c, const std::vector<train::head_view>& heads,
                                     const train::batch& held, const render_options& r, std::size_t max_rows = 0);

}  // namespace qkv
