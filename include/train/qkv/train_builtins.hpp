// Training in the formula language, for lesson 18: a group of built-ins (train_transformer and its
// kin) that train the small model below once per (steps, seed), keep the run, and read its heads,
// scores, drop and ablations back as values. The engine's table takes the group from whoever runs
// lessons (the command line, for the commands that run them; a test, in its set-up).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "qkv/builtins.hpp"
#include "qkv/train_config.hpp"
#include "qkv/training_run.hpp"

namespace qkv::train {

// The model lesson 18 trains: the induction task at vocab 20, seq 20 (segments of 4 to 8),
// d_model 32, 2 heads, 2 layers, batch 32, lr 3e-3 after 100 steps of warm-up, one thread;
// checkpoints every steps / 10. Lesson 19 trains the same with one layer, for the contrast.
train_config lesson_config(std::size_t steps, std::uint64_t seed, std::size_t layers = 2);

// The group, as add_builtin_group takes it (named "training").
std::vector<builtin> training_group();

// Who sees the progress of the runs the group trains (a progress line on a terminal); {}: nobody.
void watch_lesson_runs(std::function<void(const run_state&)> watch);

// The group added to the engine's built-ins (once) and its runs watched by `watch`: what a test
// that runs lesson 18 in-process does.
void add_training_builtins(std::function<void(const run_state&)> watch = {});

}  // namespace qkv::train
