// The runs lesson 18's built-ins read: trained once per (steps, seed) and kept for the process, so
// that every built-in of a lesson (and `qkv validate`, which runs a lesson three times) reads the
// same run without training again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

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

// The run for (steps, seed), trained now if it is not kept yet; `watch` sees its progress.
const lesson_run& lesson_run_for(std::size_t steps, std::uint64_t seed, const std::function<void(const run_state&)>& watch);

}  // namespace qkv::train
