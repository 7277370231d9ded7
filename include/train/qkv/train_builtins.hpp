// Training in the formula language, for lesson 18: a group of built-ins (train_transformer and its
// kin) that train the small model below once per (steps, seed), keep the run, and read its heads,
// scores, drop and ablations back as values. The engine's table takes the group when
// add_training_builtins is called; the command line calls it before any lesson runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "qkv/train_config.hpp"
#include "qkv/training_run.hpp"

namespace qkv::train {

// The model lesson 18 trains: the induction task at vocab 20, seq 20 (segments of 4 to 8),
// d_model 32, 2 heads, 2 layers, batch 32, lr 3e-3 after 100 steps of warm-up, one thread;
// checkpoints every steps / 10.
train_config lesson_config(std::size_t steps, std::uint64_t seed);

// Adds the group to the engine's built-ins (once; later calls change only the watcher). `watch`,
// when set, sees every run's progress (a progress line on a terminal).
void add_training_builtins(std::function<void(const run_state&)> watch = {});

}  // namespace qkv::train
