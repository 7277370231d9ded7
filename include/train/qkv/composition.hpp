// How a head of one layer composes with a head of a later one (Elhage et al. 2021, "A Mathematical
// Framework for Transformer Circuits"), in qkv's row-vector convention: a head's QK circuit
// W_Q,h·W_K,hᵀ and OV circuit W_V,h·W_O,h, the composition score of two such circuits, its baseline
// for random heads of the same shapes, and the built-ins that bring them and the trained model's
// weights (lesson 18's run) into a lesson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qkv/builtins.hpp"
#include "qkv/matrix.hpp"

namespace qkv::train {

// ‖A·B‖_F / (‖A‖_F·‖B‖_F) for A [n, m] and B [m, p], in [0, 1] (the Frobenius norm is
// submultiplicative); 0 when A or B is all zeros. With A a layer-1 head's OV circuit (what it writes
// into a row of the residual stream, x ↦ x·OV) and B a layer-2 head's QK circuit (x_q·QK·x_kᵀ), this
// is Q-composition; with B = QKᵀ, K-composition; with B its OV circuit, V-composition: the order of
// TransformerLens's all_composition_scores (left = OV of the earlier head). The product goes through
// blas, the sums of squares are taken in double.
double composition_score(const matrix& A, const matrix& B);

// composition_score of every sender with every receiver -> [senders, receivers].
matrix composition_table(const std::vector<matrix>& senders, const std::vector<matrix>& receivers);

// Q-, K- and V-composition of a random layer-1 head with a random layer-2 head, each weight drawn
// from N(0, 1) in the shape a head of this model has (W_Q,h, W_K,h, W_V,h [d_model, d_k], W_O,h
// [d_k, d_model], so that each circuit is [d_model, d_model] of rank d_k), averaged over `samples`
// such pairs drawn from `seed`: what a score of two heads that did not learn to work together is
// near. The scale of the draws does not matter: the score is a ratio. About 1/√d_model.
struct composition_scores {
    double q = 0, k = 0, v = 0;
};
composition_scores random_composition(std::size_t d_model, std::size_t d_k, std::size_t samples, std::uint64_t seed);

// The group's built-ins: transformer_W_Q … transformer_W_O (a layer's trained weights),
// composition_scores and composition_baseline. The training group (train_builtins.hpp) holds them.
std::vector<builtin> composition_group();

}  // namespace qkv::train
