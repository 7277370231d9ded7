// The kept runs of lessons 18 and 19, and the small model they train.
#include "lesson_runs.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "qkv/train_builtins.hpp"
#include "qkv/trainer.hpp"

namespace qkv::train {

train_config lesson_config(std::size_t steps, std::uint64_t seed, std::size_t layers) {
    train_config c;
    c.size = {20, 20, 32, 2, layers};
    c.batch = 32;
    c.steps = steps;
    c.adam.lr = 3e-3f;
    c.seed = seed;
    c.threads = 1;
    resolve_segments(c);
    return c;
}

namespace {

// Far past any step a run trains on: the evaluation batch is a stream of its own.
constexpr std::size_t evaluation_stream = std::size_t{1} << 40;
constexpr std::size_t evaluation_batches = 4;  // 4 × 32 sequences

batch evaluation_batch(const train_config& c) {
    batch all{0, c.size.seq, {}, {}};
    for (std::size_t k = 0; k < evaluation_batches; ++k) {
        batch b = make_batch(c, evaluation_stream + k);
        all.count += b.count;
        all.tokens.insert(all.tokens.end(), b.tokens.begin(), b.tokens.end());
        all.spans.insert(all.spans.end(), b.spans.begin(), b.spans.end());
    }
    return all;
}

}  // namespace

const lesson_run& lesson_run_for(std::size_t steps, std::uint64_t seed, std::size_t layers,
                                 const std::function<void(const run_state&)>& watch) {
    static std::map<std::tuple<std::size_t, std::uint64_t, std::size_t>, std::unique_ptr<lesson_run>> kept;
    static std::mutex lock;
    const std::lock_guard<std::mutex> hold(lock);
    auto& slot = kept[{steps, seed, layers}];
    if (!slot) {
        const train_config c = lesson_config(steps, seed, layers);
        check_config(c);
        trainer t(c);
        run_options o;
        o.checkpoint_every = std::max<std::size_t>(steps / 10, 1);
        o.watch = watch;
        run_result r = train_run(t, o);
        slot = std::make_unique<lesson_run>(lesson_run{c, std::move(r), t.weights(), evaluation_batch(c)});
    }
    return *slot;
}

std::function<void(const run_state&)>& lesson_run_watcher() {
    static std::function<void(const run_state&)> w;
    return w;
}

// A run is worth watching for a few seconds at most: 20,000 steps of the small model are about 20 s.
constexpr std::size_t max_lesson_steps = 20000;

double lesson_run_work(const builtin_detail::args_t& a, double layers) {
    const double steps = builtin_detail::size_of(a[0]);
    if (steps < 1 || steps > double(max_lesson_steps) || layers < 1 || layers > 16) return 0.0;
    return steps * step_flops(lesson_config(1, 0, static_cast<std::size_t>(layers)));
}

const lesson_run& run_of(const builtin_detail::args_t& a, const char* fn, const eval_context& ctx, std::size_t layers) {
    const std::size_t steps = builtin_detail::whole(a[0], 1, fn, "steps", ctx);
    if (steps > max_lesson_steps)
        formula_error(ctx, fmt::format("{}: steps must be at most {}, got {}", fn, max_lesson_steps, steps));
    return lesson_run_for(steps, builtin_detail::whole(a[1], 0, fn, "seed", ctx), layers, lesson_run_watcher());
}

}  // namespace qkv::train
