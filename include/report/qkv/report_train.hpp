// What `qkv train` says about a finished run, as render turns a trace into words: the text report
// (the loss on a log scale, every head at the telling checkpoints, the scores, the named heads and
// the drop), the JSON document README.md documents, and a trained layer as a scenario file. They
// read the outcome and compute nothing.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "qkv/head_scores.hpp"
#include "qkv/render.hpp"
#include "qkv/training_run.hpp"

namespace qkv {

std::string train_text(const train::train_outcome& o, const render_options& r);

// {"config", "steps", "checkpoints", "tokens", "repeat", "previous_token_head", "induction_head",
// …} as README.md documents it; with_batches adds each step's tokens.
std::string train_json(const train::train_outcome& o, bool with_batches);
// The heads the run names, by "layer.head", with their role in words ("the induction head"): those
// whose score reached naming_threshold at the end, as the text report marks them.
std::map<std::string, std::string> head_roles(const train::train_outcome& o, lang l);

// `--scenario`: the trained model as a causal scenario file lessons 2–9 read with --data. X, W_Q,
// W_K, W_V and W_O are layer `layer` (from 1): its input on the held-out sequence and its weights
// (export_layer); every layer l is there too as X_l, W_Q_l, …, and head_scores holds every head's
// previous-token and induction scores at the end (a row per head, layer by layer).
// `layers` holds export_layer of every layer, in order.
std::string layer_scenario(const train::train_outcome& o, const std::vector<train::layer_export>& layers, std::size_t layer);

}  // namespace qkv
