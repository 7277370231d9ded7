// The task names (from the tasks' table), the default segment lengths, and the checks a
// configuration must pass before anything is allocated.
#include "qkv/train_config.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/matrix.hpp"
#include "qkv/tasks.hpp"

namespace qkv::train {

std::string_view task_name(task t) { return rule_of(t).name; }

bool parse_task(std::string_view name, task& out) {
    const task_rule* t = find_task(name);
    if (t) out = t->id;
    return t != nullptr;
}

void resolve_segments(train_config& c) {
    const std::size_t T = c.size.seq;
    if (c.segment_max == 0) c.segment_max = T >= 12 ? (T - 4) / 2 : std::max<std::size_t>(T / 2, 2);
    if (c.segment_min == 0) c.segment_min = std::min<std::size_t>(4, c.segment_max);
}

std::size_t parameter_count(const model_size& s) {
    const std::size_t C = s.d_model;
    return s.vocab * C + s.seq * C + s.layers * 4 * C * C + C * s.vocab;
}

double step_flops(const train_config& c) {
    const double T = double(c.size.seq), C = double(c.size.d_model), V = double(c.size.vocab);
    const double forward = double(c.size.layers) * (8 * T * C * C + 4 * T * T * C) + 2 * T * C * V;
    return 3 * double(c.batch) * forward;
}

namespace {

[[noreturn]] void refuse(const std::string& message) { throw input_error(message); }

void need_range(const char* name, std::size_t v, std::size_t lo, std::size_t hi) {
    if (v < lo || v > hi) refuse(fmt::format("{} must be {} to {}, not {}", name, lo, hi, v));
}

void need_positive(const char* name, float v, bool zero_allowed) {
    if (!std::isfinite(v) || v < 0.0f || (!zero_allowed && v == 0.0f))
        refuse(fmt::format("{} must be a {} number, not {}", name, zero_allowed ? "non-negative" : "positive", v));
}

void check_sizes(const train_config& c) {
    const model_size& s = c.size;
    need_range("vocab", s.vocab, 2, 65536);
    need_range("seq", s.seq, 2, 1024);
    need_range("d_model", s.d_model, 1, 1024);
    need_range("heads", s.heads, 1, s.d_model);
    need_range("layers", s.layers, 1, 16);
    need_range("batch", c.batch, 1, 4096);
    need_range("steps", c.steps, 0, 10'000'000);
    need_range("threads", static_cast<std::size_t>(c.threads < 0 ? 0 : c.threads), 1, 64);
    if (s.d_model % s.heads != 0)
        refuse(fmt::format("heads ({}) must divide d_model ({}): each head takes d_model / heads columns", s.heads, s.d_model));
    // what one step holds: the weights four times (with gradients and two moments), and per
    // sequence the residual streams, Q, K, V, Z, the attention weights and each row's log-sum-exp,
    // and the logits
    const double per_sequence = double(s.seq) * (double(s.layers + 1) * s.d_model + 8.0 * s.layers * s.d_model +
                                                 2.0 * s.layers * s.heads * s.seq + double(s.layers * s.heads) +
                                                 3.0 * s.vocab);
    const double cells = 4.0 * double(parameter_count(s)) + double(c.batch) * per_sequence;
    if (cells > double(max_cells))
        refuse(fmt::format("a model of these sizes needs about {:.0f} MiB, more than the limit of {} MiB",
                           cells * 4 / (1 << 20), max_cells * 4 / (1 << 20)));
}

}  // namespace

void check_config(const train_config& c) {
    check_sizes(c);
    rule_of(c.what).check(c);  // what the task itself needs
    need_positive("lr", c.adam.lr, false);
    need_positive("eps", c.adam.eps, false);
    need_positive("clip", c.adam.clip, true);
    need_positive("init_embedding", c.init_embedding, true);
    need_positive("init_position", c.init_position, true);
    need_positive("init_gain", c.init_gain, true);
    for (auto [name, b] : {std::pair{"beta1", c.adam.beta1}, std::pair{"beta2", c.adam.beta2}})
        if (!(b >= 0.0f && b < 1.0f)) refuse(fmt::format("{} must be in [0, 1), not {}", name, b));
}

}  // namespace qkv::train
