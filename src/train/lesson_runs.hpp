// The runs lesson 18's and 19's built-ins read: trained once per (steps, seed, layers) and kept for
// the process, so that every built-in of a lesson (and `qkv validate`, which runs a lesson three
// times) reads the same run without training again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "qkv/builtin_args.hpp"
#include "qkv/parameters.hpp"
#include "qkv/train_config.hpp"
#include "qkv/training_run.hpp"

namespace qkv::train {

struct lesson_run {
    train_config config;
    run_result run;
    parameters weights;  // after the last step
    batch evaluation;    // sequences never trained on, for the losses of an ablation
};

// The run for (steps, seed) of lesson_config's model with `layers` layers, trained now if it is not
// kept yet; `watch` sees its progress.
const lesson_run& lesson_run_for(std::size_t steps, std::uint64_t seed, std::size_t layers,
                                 const std::function<void(const run_state&)>& watch);

// Who watches the runs the built-ins train (watch_lesson_runs sets it).
std::function<void(const run_state&)>& lesson_run_watcher();

// The run a built-in's first two arguments (steps, seed) name, checked, with `layers` layers
// (lesson 18's two unless said): `fn` words the refusal of a step count past what a lesson may train.
const lesson_run& run_of(const builtin_detail::args_t& a, const char* fn, const eval_context& ctx,
                         std::size_t layers = 2);

// The work a built-in whose first two arguments are (steps, seed) states: the training of that run
// with `layers` layers, as if it were not kept yet (0 for steps run_of refuses).
double lesson_run_work(const builtin_detail::args_t& a, double layers);
// The same for lesson 18's two layers (lessons 18's and 19's built-ins)
inline double lesson_work(const builtin_detail::args_t& a) { return lesson_run_work(a, 2); }

}  // namespace qkv::train
