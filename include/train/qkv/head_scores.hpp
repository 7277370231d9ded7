// What a head does, read off its attention on the held-out sequence: the previous-token score
// (how much position i looks at i − 1), the induction score (how much a position in the repeated
// copy looks just after its token's earlier occurrence), and for reverse and copy the source score
// (how much a prediction looks at the token it must predict). The heads the run names after them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "qkv/matrix.hpp"
#include "qkv/model.hpp"
#include "qkv/parameters.hpp"
#include "qkv/task_data.hpp"

namespace qkv::train {

// mean over i = 2 … T of A[i, i − 1] (positions from 1)
float previous_token_score(const matrix& A);
// mean over the copy's positions p = second … second + length − 1 of A[p, first + (p − second) + 1]
float induction_score(const matrix& A, const repeat_span& r);
// mean over the predictions p of predictable(t, r) of A[p, source_of(t, tokens, r, p)]
float source_score(const matrix& A, task t, std::span<const int> tokens, const repeat_span& r);

struct head_view {
    std::size_t layer = 0, head = 0;  // from 1
    matrix A;                         // [T, T] on the held-out sequence
    float previous_token = 0, induction = 0, source = 0;
};

// Every head of a model on one sequence (the held-out one), optionally with heads switched off,
// and the sequence's two losses.
struct probe_result {
    std::vector<head_view> heads;  // layer by layer, head by head
    float loss = 0, loss_repeated = 0;
};
probe_result probe(const train_config& c, parameters& w, const batch& seq, const head_mask* ablated = nullptr);

// The two losses of a whole batch (every prediction; those its task makes predictable), without
// training on it: for sequences kept out of training, with heads switched off or not.
struct batch_loss {
    float loss = 0, loss_repeated = 0;
};
batch_loss measure(const train_config& c, parameters& w, const batch& b, const head_mask* ablated = nullptr);

// Layer `layer` (from 1) as a lesson's scenario sees one: its input on the sequence (the residual
// stream entering it, [T, C]) and its weights W_Q, W_K, W_V, W_O [C, C], heads side by side in the
// columns as scenarios keep them.
struct layer_export {
    matrix X, W_Q, W_K, W_V, W_O;
};
layer_export export_layer(const train_config& c, parameters& w, const batch& seq, std::size_t layer);

// (layer, head) from 1 of the best previous-token head among the layers before the last (every
// layer when there is one), and of the best induction head among the layers after the first: the
// circuit needs the one before the other. The best source head among all.
struct named_heads {
    std::size_t previous_token[2] = {0, 0};
    std::size_t induction[2] = {0, 0};
    std::size_t source[2] = {0, 0};
};
named_heads name_heads(const std::vector<head_view>& heads, std::size_t layers);

}  // namespace qkv::train
