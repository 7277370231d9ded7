// The tasks' table (tasks.hpp) and each task's own code: how its sequences are drawn, where its
// answers stand, and what it needs of the sizes.
#include "qkv/tasks.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "qkv/error.hpp"

namespace qkv::train {

std::size_t whole_in(float u, std::size_t lo, std::size_t hi) {
    const auto k = static_cast<std::size_t>(double(u) * double(hi - lo + 1));
    return lo + std::min(k, hi - lo);
}

namespace {

// Every task's sequence starts as uniform random tokens, one draw each.
void random_tokens(const train_config& c, const float* u, int* tokens) {
    for (std::size_t i = 0; i < c.size.seq; ++i) tokens[i] = static_cast<int>(whole_in(u[i], 0, c.size.vocab - 1));
}

// --- induction: a random segment, copied later ---------------------------------------------------

// The segment's length from u[seq], where its two copies start from u[seq + 1] and u[seq + 2].
repeat_span draw_span(const float* u, std::size_t T, std::size_t len) {
    const std::size_t first = whole_in(u[T + 1], 0, T - 2 * len);
    const std::size_t second = whole_in(u[T + 2], first + len, T - len);
    return {first, second, len};
}

void induction_fill(const train_config& c, const float* u, int* tokens, repeat_span& span) {
    const std::size_t T = c.size.seq;
    random_tokens(c, u, tokens);
    span = draw_span(u, T, whole_in(u[T], c.segment_min, c.segment_max));
    std::copy(tokens + span.first, tokens + span.first + span.length, tokens + span.second);
}

// A segment of the middle length made of the shuffle's first tokens, which no other position holds.
void induction_held_out(const train_config& c, const float* u, const std::vector<int>& order, int* tokens,
                        repeat_span& span) {
    const std::size_t T = c.size.seq, V = c.size.vocab, len = c.segment_min + (c.segment_max - c.segment_min) / 2;
    span = draw_span(u, T, len);
    for (std::size_t i = 0; i < T; ++i) tokens[i] = order[whole_in(u[i], len, V - 1)];
    for (std::size_t k = 0; k < len; ++k) tokens[span.first + k] = tokens[span.second + k] = order[k];
}

// Inside the copy, [second, second + length − 1): the copy's last token predicts a random one.
prediction_range induction_predictable(const repeat_span& r) { return {r.second, r.second + r.length - 1}; }

// Just after the earlier occurrence of p's own token.
std::size_t induction_source(std::span<const int>, const repeat_span& r, std::size_t p) {
    return r.first + (p - r.second) + 1;
}

void induction_check(const train_config& c) {
    const std::size_t T = c.size.seq;
    if (c.segment_min < 2 || c.segment_min > c.segment_max)
        throw input_error(
            said("the segment lengths {}-{} must be at least 2 and in order", c.segment_min, c.segment_max));
    // max > T / 2, not 2 · max > T: a loaded file's 2^63 + 8 doubled wraps to 16 and passed
    if (c.segment_max > T / 2)
        throw input_error(said("two copies of a segment of {} do not fit in seq {}", c.segment_max, T));
    // the held-out sequence's segment has no token twice and shares none with the rest (the middle
    // length as min + (max − min) / 2, which no sum can wrap)
    const std::size_t middle = c.segment_min + (c.segment_max - c.segment_min) / 2;
    if (c.size.vocab < middle + 1)
        throw input_error(said("vocab {} is too small for a segment of {} distinct tokens and others beside it",
                                      c.size.vocab, middle));
}

// --- reverse and copy: m tokens, then the same m made again ---------------------------------------

// Where the second half's k-th token comes from in the first half of m.
std::size_t mirrored(std::size_t m, std::size_t k) { return m - 1 - k; }
std::size_t in_order(std::size_t, std::size_t k) { return k; }

template <std::size_t (*from)(std::size_t, std::size_t)>
void second_half(std::size_t T, int* tokens, repeat_span& span) {
    const std::size_t m = T / 2;
    span = {0, m, m};
    for (std::size_t k = 0; k < m; ++k) tokens[m + k] = tokens[from(m, k)];
}

template <std::size_t (*from)(std::size_t, std::size_t)>
void halves_fill(const train_config& c, const float* u, int* tokens, repeat_span& span) {
    random_tokens(c, u, tokens);
    second_half<from>(c.size.seq, tokens, span);
}

// A first half of distinct tokens, so that every position of the second has one right source.
template <std::size_t (*from)(std::size_t, std::size_t)>
void halves_held_out(const train_config& c, const float*, const std::vector<int>& order, int* tokens,
                     repeat_span& span) {
    for (std::size_t k = 0; k < c.size.seq / 2; ++k) tokens[k] = order[k];
    second_half<from>(c.size.seq, tokens, span);
}

// From the last token of the first half on: every token of the second half.
prediction_range halves_predictable(const repeat_span& r) { return {r.length - 1, 2 * r.length - 1}; }

// The mirror image in the first half: 2m − 2 − p.
std::size_t reverse_source(std::span<const int>, const repeat_span& r, std::size_t p) { return 2 * r.length - 2 - p; }
// The same offset in the first half: p + 1 − m.
std::size_t copy_source(std::span<const int>, const repeat_span& r, std::size_t p) { return p + 1 - r.length; }

void halves_check(const train_config& c) {
    const std::size_t T = c.size.seq;
    const std::string_view name = task_name(c.what);
    if (T % 2 != 0 || T < 4)
        throw input_error(said("the {} task needs an even seq of at least 4, not {}", name, T));
    if (c.size.vocab < T / 2)
        throw input_error(
            said("the {} task needs vocab of at least seq / 2 = {} (a held-out half of distinct tokens), not {}",
                        name, T / 2, c.size.vocab));
}

// --- the table -------------------------------------------------------------------------------------

constexpr task_rule table[] = {
    {task::induction, "induction", induction_fill, induction_held_out, induction_predictable, induction_source,
     induction_check, false},
    {task::reverse, "reverse", halves_fill<mirrored>, halves_held_out<mirrored>, halves_predictable, reverse_source,
     halves_check, true},
    {task::copy, "copy", halves_fill<in_order>, halves_held_out<in_order>, halves_predictable, copy_source,
     halves_check, true},
};

}  // namespace

std::span<const task_rule> tasks() { return table; }

const task_rule& rule_of(task t) {
    for (const task_rule& r : table)
        if (r.id == t) return r;
    throw std::logic_error("a task without an entry in the tasks' table");
}

const task_rule* find_task(std::string_view name) {
    for (const task_rule& r : table)
        if (r.name == name) return &r;
    return nullptr;
}

std::string task_list(std::string_view between, std::string_view last) {
    std::string out;
    for (std::size_t i = 0; i < std::size(table); ++i)
        out += fmt::format("{}{}", i == 0 ? "" : i + 1 == std::size(table) ? last : between, table[i].name);
    return out;
}

}  // namespace qkv::train
