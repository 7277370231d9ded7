// What `qkv train` says about a finished run, as render turns a trace into words: the text report
// (the loss on a log scale, every head at the telling checkpoints, the scores, the named heads and
// the drop), the JSON document README.md documents, and a trained layer as a scenario file. They
// read the outcome and compute nothing.
#pragma once

#include <cstddef>
#include <string>

#include "qkv/head_scores.hpp"
#include "qkv/render.hpp"
#include "qkv/training_run.hpp"

namespace qkv {

std::string train_text(const train::train_outcome& o, const render_options& r);

// {"config", "steps", "checkpoints", "tokens", "repeat", "previous_token_head", "induction_head",
// …} as README.md documents it; with_batches adds each step's tokens.
std::string train_json(const train::train_outcome& o, bool with_batches);

// `--scenario`: layer `layer` (from 1) of the trained model, its input on the held-out sequence and
// its weights (export_layer), as a scenario file lessons 2–8 read with --data.
std::string layer_scenario(const train::train_outcome& o, const train::layer_export& x, std::size_t layer);

}  // namespace qkv
