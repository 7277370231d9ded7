// The kept runs of lesson 18, and the small model they train.
#include "lesson_runs.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "qkv/train_builtins.hpp"
#include "qkv/trainer.hpp"

namespace qkv::train {

train_config lesson_config(std::size_t steps, std::uint64_t seed) {
    train_config c;
    c.size = {20, 20, 32, 2, 2};
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

const lesson_run& lesson_run_for(std::size_t steps, std::uint64_t seed, const std::function<void(const run_state&)>& watch) {
    static std::map<std::pair<std::size_t, std::uint64_t>, std::unique_ptr<lesson_run>> kept;
    static std::mutex lock;
    const std::lock_guard<std::mutex> hold(lock);
    auto& slot = kept[{steps, seed}];
    if (!slot) {
        const train_config c = lesson_config(steps, seed);
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

}  // namespace qkv::train
