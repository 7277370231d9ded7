// The training loop with its probes, checkpoints and stop flag; the drop and the telling
// checkpoints read off its history afterwards.
#include "qkv/training_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "qkv/error.hpp"

namespace qkv::train {

namespace {

checkpoint take(const train_config& c, parameters& w, const batch& held, std::size_t step, probe_result& latest) {
    latest = probe(c, w, held);
    return {step, latest.heads, latest.loss, latest.loss_repeated};
}

float best_of(const probe_result& p, float so_far, std::size_t layers) {
    for (const head_view& v : p.heads)
        if (layers == 1 || v.layer > 1) so_far = std::max(so_far, v.induction);
    return so_far;
}

}  // namespace

run_result train_run(trainer& t, const run_options& o) {
    const train_config& c = t.config();
    const auto start = std::chrono::steady_clock::now();
    const std::size_t first = t.steps_done(), last = first + c.steps;
    const std::size_t every = o.checkpoint_every ? o.checkpoint_every : std::max<std::size_t>(c.steps / 20, 1);
    run_result run;
    run.held = held_out(c);
    run.steps.reserve(c.steps);
    probe_result latest;
    run.checkpoints.push_back(take(c, t.weights(), run.held, first, latest));
    run.best_induction = best_of(latest, 0.0f, c.size.layers);
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    auto tell = [&](std::size_t step) {
        if (o.watch) o.watch({step, last, &run.steps, &latest, run.best_induction, elapsed()});
    };
    tell(first);
    for (std::size_t step = first + 1; step <= last; ++step) {
        if (o.stop && o.stop->load()) {
            run.stopped = true;
            break;
        }
        run.steps.push_back(t.step());
        if (o.record_batches) run.batches.push_back(t.last_batch().tokens);
        if (!std::isfinite(run.steps.back().loss))
            throw input_error(said("the loss is not a number at step {} (a smaller --lr, or --clip, keeps it finite)", step));
        const bool at_checkpoint = (step - first) % every == 0 || step == last;
        if (at_checkpoint) run.checkpoints.push_back(take(c, t.weights(), run.held, step, latest));
        else if ((step - first) % std::max<std::size_t>(o.probe_every, 1) == 0) latest = probe(c, t.weights(), run.held);
        else continue;
        run.best_induction = best_of(latest, run.best_induction, c.size.layers);
        tell(step);
    }
    if (run.checkpoints.back().step != t.steps_done())  // stopped early: the weights as they are now
        run.checkpoints.push_back(take(c, t.weights(), run.held, t.steps_done(), latest));
    run.names = name_heads(run.checkpoints.back().heads, c.size.layers);
    run.drop = drop_step(run.steps, c.size.vocab);
    run.seconds = elapsed();
    return run;
}

std::size_t smoothing_window(std::size_t steps) { return std::clamp<std::size_t>(steps / 50, 1, 50); }

namespace {

// On the plateau: the repeated copy's loss still at least this share of ln(vocab).
constexpr double plateau_share = 0.8;

}  // namespace

std::vector<double> smoothed_repeated(const std::vector<step_record>& steps) {
    const std::size_t w = smoothing_window(steps.size());
    std::vector<double> out(steps.size());
    double sum = 0.0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        sum += steps[i].loss_repeated;
        if (i >= w) sum -= steps[i - w].loss_repeated;
        out[i] = sum / double(std::min(i + 1, w));
    }
    return out;
}

std::optional<std::size_t> drop_step(const std::vector<step_record>& steps, std::size_t vocab) {
    const std::size_t w = smoothing_window(steps.size());
    const std::vector<double> smooth = smoothed_repeated(steps);
    const double half = 0.5 * std::log(double(vocab));
    for (std::size_t i = w - 1; i < steps.size(); ++i)
        if (smooth[i] < half) return steps[i].step;
    return std::nullopt;
}

std::optional<std::size_t> rose_at(const std::vector<checkpoint>& checkpoints, const std::size_t (&head)[2], float head_view::*score) {
    for (const checkpoint& c : checkpoints)
        for (const head_view& v : c.heads)
            if (v.layer == head[0] && v.head == head[1] && v.*score >= naming_threshold) return c.step;
    return std::nullopt;
}

std::vector<std::size_t> telling_checkpoints(const run_result& run, std::size_t vocab) {
    const std::size_t n = run.checkpoints.size();
    std::vector<std::size_t> out{0};
    std::size_t plateau = n / 2;  // without a drop, the middle of the run
    if (run.drop) {
        const std::vector<double> smooth = smoothed_repeated(run.steps);
        const std::size_t first = run.checkpoints.front().step;
        const double high = plateau_share * std::log(double(vocab));
        plateau = 0;
        for (std::size_t i = 1; i < n; ++i) {
            const std::size_t step = run.checkpoints[i].step;
            if (step >= *run.drop) break;
            if (plateau == 0 || smooth[step - first - 1] >= high) plateau = i;
        }
    }
    if (plateau > 0 && plateau + 1 < n) out.push_back(plateau);
    if (n > 1) out.push_back(n - 1);
    return out;
}

}  // namespace qkv::train
