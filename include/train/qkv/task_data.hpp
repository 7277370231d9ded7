// The sequences a task trains on, drawn afresh for every step from the seed and the step alone
// (so any step's batch can be made again, and written out for another program to train on), and
// the one held-out sequence every checkpoint's attention is shown on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "qkv/train_config.hpp"

namespace qkv::train {

// Where a sequence's two copies start (positions from 0) and how long they are: the repeated
// segment of the induction task, the two halves of reverse and copy.
struct repeat_span {
    std::size_t first = 0, second = 0, length = 0;
};

// The predictions that can be right (the prediction at position p is of the token at p + 1):
// induction: those made inside the repeated copy, [second, second + length − 1), whose next token
// the first copy shows; reverse and copy: [m − 1, 2m − 1), every token of the second half. As the
// tasks' table (tasks.hpp) says it.
struct prediction_range {
    std::size_t from = 0, to = 0;
};
prediction_range predictable(task t, const repeat_span& r);

struct batch {
    std::size_t count = 0, seq = 0;
    std::vector<int> tokens;         // [count, seq]
    std::vector<repeat_span> spans;  // one per sequence
};

// The batch of training step `step` (from 1): a pure function of the configuration's task, sizes,
// segment lengths, batch size and seed.
batch make_batch(const train_config& c, std::size_t step);

// The held-out sequence (never a training sequence's stream): for induction a segment of
// (segment_min + segment_max) / 2 distinct tokens, none of which occurs anywhere else in the
// sequence, so that every score has one right answer; for reverse and copy a first half of
// distinct tokens.
batch held_out(const train_config& c);

// For a prediction made at position p of predictable(t, r) in a sequence of these tokens [seq],
// where the token it must predict stands earlier in it: induction, first + (p − second) + 1 (just
// after the earlier occurrence of p's own token); reverse, 2m − 2 − p (the mirror image in the
// first half); copy, p + 1 − m. As the tasks' table says it.
std::size_t source_of(task t, std::span<const int> tokens, const repeat_span& r, std::size_t p);

// How a token is shown: a, b, c, … for a vocabulary of at most 26, else its number from 0.
std::string token_label(int token, std::size_t vocab);

}  // namespace qkv::train
