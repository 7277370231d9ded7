// How much memory one run of a lesson may keep. Each value is held to the cell limit
// (matrix.hpp), but a scenario of 16384 tokens makes every n × n stage a 1 GiB value that passes
// it, and a run keeps them all: in its workspace, again in the trace (a stage shows what it
// makes), and in the steps a built-in records (kv_decode records each token's caches). Lesson 13
// on such a scenario reached 24 GB before the kernel stepped in. So what a run keeps is checked
// as each value is made — before it is allocated where its shape is known first — and a run
// that would go over is refused with one line that names the file, the line and the formula.
#pragma once

#include <cstddef>

#include "qkv/formula.hpp"
#include "qkv/value.hpp"

namespace qkv {

// The most a run may keep: half of the memory free when the first value was checked (MemAvailable,
// or what `ulimit -v` leaves, the lesser; system/memory.hpp), and never more than 2 GiB.
// Half, because what is counted is an estimate (below) and the run needs room beside it: the
// temporaries of a formula, and the renderer, whose JSON takes ~50 bytes a number. 2 GiB, because
// lessons are small by design: the most any shipped lesson keeps, on every shipped scenario and on
// 64 tokens, is 29 MiB (measured), 70× inside; a scenario of 4096 tokens still runs (n × n is
// 64 MiB), while one of 16384 tokens, whose every n × n stage is 1 GiB, stops in its first
// stages within seconds instead of filling a large machine for minutes. Computed once per process.
struct keep_limit {
    std::size_t bytes = 0;        // what a run may keep
    std::size_t free_bytes = 0;   // the memory free when it was measured (0: not known)
    bool by_free_memory = false;  // true: half of free_bytes is the smaller bound
};
const keep_limit& keep_budget();

// The 2 GiB bound above.
constexpr std::size_t max_kept_bytes = std::size_t{2} << 30;

// The bytes a value holds: its numbers, and its labels.
std::size_t bytes_of(const value& v);

// What the run of ctx keeps now, as counted: twice the workspace (once in it, once in the trace,
// which holds a copy of what each stage shows), the steps this stage's built-ins recorded
// (ctx.recorded_bytes), and the temporaries the expression under way holds (ctx.held_bytes). An
// estimate: a value shown in two stages is held three times, and the steps of earlier stages are
// not counted; half of the free memory leaves room for that.
std::size_t bytes_kept(const eval_context& ctx);

// Throws (formula_error) when keeping `more` bytes beside what the run keeps would pass the budget:
// "this run would keep 2.3 GiB, more than half of the 3.9 GiB of memory free" (rounded up to
// a tenth, so that it never reads as equal to the limit).
void check_keep(const eval_context& ctx, std::size_t more);

}  // namespace qkv
