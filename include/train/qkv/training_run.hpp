// A whole run: the steps one after another, the held-out probe every few steps (for the progress
// line and the best induction score), checkpoints of every head's attention, and at the end the
// step of the drop and the heads the run names. Stops early, cleanly, when asked to.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "qkv/head_scores.hpp"
#include "qkv/trainer.hpp"

namespace qkv::train {

struct checkpoint {
    std::size_t step = 0;
    std::vector<head_view> heads;
    float loss = 0, loss_repeated = 0;  // on the held-out sequence
};

// What a watcher sees after each probe: for the progress line and the live view.
struct run_state {
    std::size_t step = 0, last_step = 0;
    const std::vector<step_record>* steps = nullptr;
    const probe_result* latest = nullptr;
    float best_induction = 0;
    double seconds = 0;
};

struct run_options {
    std::size_t checkpoint_every = 0;  // 0: a twentieth of the steps (at least 1)
    std::size_t probe_every = 10;
    const std::atomic<bool>* stop = nullptr;  // set (by a signal handler): the run ends after this step
    std::function<void(const run_state&)> watch;  // after every probe
    bool record_batches = false;                  // keep every step's tokens in run_result::batches
};

struct run_result {
    std::vector<step_record> steps;
    std::vector<checkpoint> checkpoints;  // the first before any step, the last after the last one
    batch held;                           // the held-out sequence of every checkpoint
    named_heads names;                    // at the last checkpoint
    std::optional<std::size_t> drop;      // see drop_step
    float best_induction = 0;
    bool stopped = false;                 // ended by the stop flag before its last step
    double seconds = 0;                   // the training's time, probes and checkpoints included
    std::vector<std::vector<int>> batches;  // with record_batches: each step's tokens [batch · seq]
};

// What `qkv train` returns: the configuration it ran with, the run, and the steps the model had
// taken before it (a loaded one). Plain data: the report layer turns it into text and JSON.
struct train_outcome {
    train_config config;
    run_result run;
    std::size_t first_step = 0;

    // the model's steps at the end, those before this run included
    std::size_t steps_done() const { return first_step + run.steps.size(); }
};

// Runs t for its configuration's steps (from t.steps_done() on). Throws input_error when the loss
// stops being a number, naming the step.
run_result train_run(trainer& t, const run_options& o = {});

// The window the loss curves are smoothed over: a fiftieth of the steps, 1 to 50.
std::size_t smoothing_window(std::size_t steps);

// The first step at which the repeated copy's loss, averaged over the window that ends there, is
// below half of ln(vocab) — what a model that cannot see the copy's earlier occurrence (about
// ln(vocab) on random tokens) never reaches. nullopt when it never is.
std::optional<std::size_t> drop_step(const std::vector<step_record>& steps, std::size_t vocab);

// The repeated copy's loss at each step, averaged over the smoothing window that ends there (the
// first steps over as many as there are).
std::vector<double> smoothed_repeated(const std::vector<step_record>& steps);

// The checkpoints a reader is shown: before training, on the plateau, and the last; their indices
// into run.checkpoints, in order. On the plateau is the last checkpoint before the drop at which
// the smoothed loss of the repeated copy was still at least 0.8 ln(vocab) (the first after step 0
// when none was); without a drop, the middle one. Fewer when the run has fewer checkpoints.
std::vector<std::size_t> telling_checkpoints(const run_result& run, std::size_t vocab);

// A head is named for a score (the previous-token head, the induction head, the source head) only
// when that score reaches this at the end: below it a head merely scores best among heads that do
// not do the thing (400 steps: "the induction head" at 0.10).
constexpr float naming_threshold = 0.4f;

// The step of the first checkpoint at which head (layer, head)'s score (&head_view::induction, …)
// reached naming_threshold; nullopt when none did. The order in which two heads' scores rose is
// read from these.
std::optional<std::size_t> rose_at(const std::vector<checkpoint>& checkpoints, const std::size_t (&head)[2], float head_view::*score);

}  // namespace qkv::train
