// The catalogue of the formula language's built-ins that the engine brings: every one's signature
// (which gives its name and arity), line of help and work (its flops from its arguments' shapes),
// in the order `qkv help formulas` lists them, group by group. What each does is in its group's builtins_<group>.cpp
// (builtin_functions.hpp).
#include <math.h>  // expf and C's other float functions: what std::exp(float) and its kin call

#include <algorithm>

#include "builtin_functions.hpp"

namespace qkv {
namespace {

using namespace builtin_functions;
using namespace builtin_detail;

// --- What each built-in states of its work (builtins.hpp): flops from its arguments' shapes, the
// plain loops counted as well as the products; an argument the built-in refuses reads as 0.

// k flops per entry of a matrix made from two sizes: randn(r, c, seed), zeros(r, c), …
template <int k>
double drawn(const args_t& a) {
    return k * cells_within(size_of(a[0]), size_of(a[1]));
}
// n of an [n, 1] column: one_hot(n, i), range(n).
double per_size(const args_t& a) { return size_of(a[0]); }
// [n, n] from a size: causal_mask(n), identity(n), previous_token_pattern(n).
double square_of_size(const args_t& a) { return cells_within(size_of(a[0]), size_of(a[0])); }
// [n, n] from X's n rows, every pair of rows compared: duplicate_token_pattern(X), induction_pattern(X).
double square_of_rows(const args_t& a) { return 2 * rows_of(a[0]) * rows_of(a[0]); }

// softmax_jacobian_norm(P): every row p of m entries sums the m² entries of diag(p) − p pᵀ (4 flops each).
double jacobian_norm_work(const args_t& a) { return 4 * heads_of(a[0]) * rows_of(a[0]) * cols_of(a[0]) * cols_of(a[0]); }

// Attention of Q [n, d_k] on K [n_k, d_k] and V [n_k, d_v]: the scores, their exps, the weighted values.
double attention_flops(double n, double n_k, double d_k, double d_v) { return 2 * n * n_k * (d_k + d_v) + 8 * n * n_k; }
double attention_work(const args_t& a) { return attention_flops(rows_of(a[0]), rows_of(a[1]), cols_of(a[0]), cols_of(a[2])); }

// cosine(A [m, d], B [n, d]), head by head: every row of A against every row of B, and the rows' lengths.
double cosine_work(const args_t& a) {
    const double m = rows_of(a[0]), n = rows_of(a[1]), d = cols_of(a[0]);
    return std::max(heads_of(a[0]), heads_of(a[1])) * (2 * m * n * d + 2 * (m + n) * d + 3 * m * n);
}

// rnn(X [n, d], W_xh [d, d_h], W_hh [d_h, d_h]): per token x_t W_xh, h W_hh and a tanh (~20 flops).
double rnn_work(const args_t& a) {
    const double n = rows_of(a[0]), d = cols_of(a[0]), d_h = cols_of(a[1]);
    return n * (2 * d * d_h + 2 * d_h * d_h + 20 * d_h);
}
double rnn_influence_work(const args_t& a) { return 2 * rnn_work(a) + 3 * rows_of(a[0]) * cols_of(a[1]); }

// kv_decode(X [n, d], W_Q, W_K [d, d_k], W_V [d, d_v]): each token's q, k, v, then its query against
// the t keys cached so far and their t values: Σ_t over n tokens is n² / 2 of each.
double kv_decode_work(const args_t& a) {
    const double n = rows_of(a[0]), d = cols_of(a[0]), d_k = cols_of(a[1]), d_v = cols_of(a[3]);
    return 2 * n * d * (2 * d_k + d_v) + n * n * (d_k + d_v + 4);
}

// An SVD of [m, n], as the door to LAPACK charges it: ~4·m·n·r + 8·r³, r = min(m, n).
double svd_flops(double m, double n) {
    const double r = std::min(m, n);
    return 4 * m * n * r + 8 * r * r * r;
}
double svd_work(const args_t& a) { return svd_flops(rows_of(a[0]), cols_of(a[0])); }
// rank_k(A, k): the SVD, then U_k diag(σ_k) V_kᵀ, a product of m · k · n.
double rank_k_work(const args_t& a) {
    const double m = rows_of(a[0]), n = cols_of(a[0]);
    return svd_flops(m, n) + 2 * m * size_of(a[1]) * n + m * n;
}
// rank_errors(A): the SVD, then A_k and |A − A_k| for every k = 1 … r: Σ_k 2·m·k·n = m·n·r·(r + 1).
double rank_errors_work(const args_t& a) {
    const double m = rows_of(a[0]), n = cols_of(a[0]), r = std::min(m, n);
    return svd_flops(m, n) + m * n * r * (r + 1) + 4 * m * n * r;
}

// m random features of n rows of d: the draws [d, m], the product [n, d] @ [d, m], an exp per entry.
double features_flops(double n, double d, double m) { return 20 * d * m + 2 * n * d * m + 25 * n * m + 2 * n * d; }
double random_features_work(const args_t& a) { return features_flops(rows_of(a[0]), cols_of(a[0]), size_of(a[1])); }
// The Performer with m features: both sides' features, then φ(K)ᵀ V and φ(Q) (φ(K)ᵀ V), linear in n.
double performer_flops(const args_t& a, double m) {
    const double n = rows_of(a[0]), n_k = rows_of(a[1]), d_k = cols_of(a[0]), d_v = cols_of(a[2]);
    return features_flops(n, d_k, m) + features_flops(n_k, d_k, m) + 2 * m * n_k * (d_v + 1) + 2 * n * m * (d_v + 1) + n * d_v;
}
double performer_work(const args_t& a) { return performer_flops(a, size_of(a[3])); }
// performer_error(Q, K, V, m, trials): exact attention once, then trials Performers.
double performer_error_work(const args_t& a) {
    return attention_flops(rows_of(a[0]), rows_of(a[1]), cols_of(a[0]), cols_of(a[2])) +
           size_of(a[4]) * (performer_flops(a, size_of(a[3])) + 3 * rows_of(a[0]) * cols_of(a[2]));
}

// One head's forward pass, X [n, d] with W_Q, W_K [d, d_k] and W_V [d, d_v]: Q, K, V, the scores,
// the softmax and Z = A V.
double head_forward(double n, double d, double d_k, double d_v) {
    return 2 * n * d * (2 * d_k + d_v) + attention_flops(n, n, d_k, d_v) + 4 * n * d_v;
}
// attention_loss(X, W_Q, W_K, W_V, T, causal)
double attention_loss_work(const args_t& a) { return head_forward(rows_of(a[0]), cols_of(a[0]), cols_of(a[1]), cols_of(a[3])); }
// fd_gradient(X, W_Q, W_K, W_V, T, which, eps, causal): in double, the products once; then every
// entry of W_Q or W_K [d, d_k] nudged both ways, each a loss of n rows whose weights meet every pair
// of values (n² each): 2 · d · d_k · n · (n² + 4n) flops of loops, growing as n³. W_V's entries need
// only a pass over the rows.
double fd_gradient_work(const args_t& a) {
    const double n = rows_of(a[0]), d = cols_of(a[0]), d_k = cols_of(a[1]), d_v = cols_of(a[3]);
    const double setup = 2 * n * d * (2 * d_k + d_v) + 2 * n * n * (d_k + d + 3 * d_v) + 10 * n * n;
    const bool values = size_of(a[5]) == 3;
    return setup + (values ? 2 * d * d_v * 4 * n : 2 * d * d_k * n * (3 * n * n + 6 * n));
}
// backtrack_lr(X, T, W_Q, W_K, W_V, lr, …): a forward and a backward pass (~2 forwards), then up to
// 31 trial steps of a forward each.
double head_step(const args_t& a) { return 34 * head_forward(rows_of(a[0]), cols_of(a[0]), cols_of(a[2]), cols_of(a[4])); }
double backtrack_work(const args_t& a) { return head_step(a); }
// train_head(X, T, W_Q, W_K, W_V, steps, lr, …) and trained_W_*: steps of backtrack_lr's work (at
// most 1000 steps, which the built-in holds to).
double train_head_work(const args_t& a) {
    const double steps = size_of(a[5]);
    return steps <= 1000 ? steps * head_step(a) : 0.0;
}

constexpr builtin_entry engine_builtins[] = {
    // softmax: the stable one, the two common mistakes beside it, the causal mask, the online softmax
    {"softmax(S)", "softmax along each row (row max subtracted first, for stability); each row sums to 1", softmax_fn, per_entry<5>},
    {"softmax_naive(S)", "exp(s) / sum exp(s) along each row, no max subtracted: overflows for large scores",
     softmax_naive_fn, per_entry<5>},
    {"softmax_cols(S)", "softmax down each column instead of along each row (a common mistake)", softmax_cols_fn, per_entry<5>},
    {"causal_mask(n)", "[n, n]: 0 where query i may see key j (j <= i), -inf above the diagonal", causal_mask_fn, square_of_size},
    {"softmax_jacobian_norm(P)",
     "norm of diag(p) - p p^T, the softmax Jacobian, per row p: [n, 1]; ~0 when p is one-hot",
     softmax_jacobian_norm_fn, jacobian_norm_work},
    {"tiled_attention(Q, K, V, block)",
     "softmax(Q K^T / sqrt(d_k)) V over blocks of keys with a running max and sum (online softmax); "
     "records each block",
     tiled_attention_fn, attention_work},

    // entries: one function of a number applied to every entry
    {"exp(x)", "e^x of every entry; scalar, matrix or stack", every_entry<expf>, per_entry<20>},
    {"sqrt(x)", "square root of every entry; scalar, matrix or stack", every_entry<sqrtf>, per_entry<20>},
    {"log(x)", "natural logarithm of every entry; scalar, matrix or stack", every_entry<logf>, per_entry<20>},
    {"abs(x)", "absolute value of every entry; scalar, matrix or stack", every_entry<fabsf>, per_entry<1>},
    {"tanh(x)", "hyperbolic tangent of every entry; scalar, matrix or stack", every_entry<tanhf>, per_entry<20>},
    {"ceil(x)", "every entry rounded up to a whole number (a count of layers, blocks, steps); scalar, matrix or stack",
     every_entry<ceilf>, per_entry<1>},

    // rows: row by row
    {"cosine(A, B)", "cosine similarity of each row of A [m, d] with each row of B [n, d] -> [m, n]", cosine_fn, cosine_work},
    {"row_sums(A)", "sum of each row: [n, m] -> [n, 1]", row_sums_fn, per_entry<1>},
    {"row_max(A)", "largest entry of each row: [n, m] -> [n, 1]", row_max_fn, per_entry<1>},
    {"rowdot(A, B)", "dot product of matching rows: [n, d] and [n, d] -> [n, 1]", rowdot_fn, per_entry<1>},
    {"diagonal(M, k)",
     "the entries M[i, i + k] of one diagonal (k = 0 the main one, -1 just below it), head by head -> [count, 1]",
     diagonal_fn, per_entry<1>},

    // heads: splitting into a stack of heads (or parts) and joining back
    {"split_heads(M, h)", "[n, d_model] -> stack [h, n, d_model/h]; head i takes columns i*d_k .. (i+1)*d_k - 1",
     split_heads_fn, per_entry<1>},
    {"split_rows(W, h)", "[r, c] -> stack [h, r/h, c]; head i takes rows i*r/h .. (i+1)*r/h - 1 (the blocks W_O,i)",
     split_rows_fn, per_entry<1>},
    {"concat_heads(S)", "stack [h, n, d_k] -> [n, h*d_k], the heads side by side", concat_heads_fn, per_entry<1>},
    {"sum_heads(S)", "stack [h, n, d] -> [n, d], the sum over heads", sum_heads_fn, per_entry<1>},
    {"mean_heads(S)", "stack [h, n, d] -> [n, d], the mean over heads (as PyTorch averages attention weights)",
     mean_heads_fn, per_entry<1>},
    {"batch(M)", "[n, d] -> [1, n, d], a batch of one, as PyTorch shapes its tensors", batch_fn, per_entry<1>},
    {"split_cols(A, p)", "[r, c] -> stack [p, r, c/p]: A = [A_1, ..., A_p] by columns (one part per device)",
     split_cols_fn, per_entry<1>},
    {"concat_cols(S)", "stack [p, n, w] -> [n, p*w]: the parts side by side, [Y_1, ..., Y_p]", concat_cols_fn, per_entry<1>},

    // the head detector: what a head does, as TransformerLens's head_detector.py scores it
    {"previous_token_pattern(n)", "[n, n]: 1 at (i, i - 1), the cells a previous-token head looks at", previous_token_pattern_fn, square_of_size},
    {"duplicate_token_pattern(X)",
     "[n, n] from X's row labels (the tokens): 1 at (i, j) where j < i holds the same token as i", duplicate_token_pattern_fn, square_of_rows},
    {"induction_pattern(X)",
     "[n, n]: the duplicate-token pattern one column to the right, 1 at (i, j + 1) where token j is token i, j < i",
     induction_pattern_fn, square_of_rows},
    {"head_score(A, P)", "sum(A * P) / sum(A): the share of a head's weight on the cells of pattern P; head by head -> [h, 1]",
     head_score_fn, per_entry<3>},

    // statistics: one number from a whole value
    {"var(M)", "population variance of all entries -> scalar", var_fn, per_entry<3>},
    {"mean(M)", "mean of all entries -> scalar", mean_fn, per_entry<1>},
    {"max(M)", "largest entry -> scalar", max_fn, per_entry<1>},
    {"min(M)", "smallest entry -> scalar", min_fn, per_entry<1>},
    {"argmax(v)", "where the largest entry of a row [1, d] or column [n, 1] is, from 1 (the first on a tie to float precision) -> scalar",
     argmax_fn, per_entry<1>},
    {"argmin(v)", "where the smallest entry of a row [1, d] or column [n, 1] is, from 1 (the first on a tie to float precision) -> scalar",
     argmin_fn, per_entry<1>},
    {"ties(v)",
     "how many entries of a row [1, d] or column [n, 1] are its largest, to float precision (2 when two tokens "
     "tie for most) -> scalar",
     ties_fn, per_entry<2>},
    {"norm(M)", "Frobenius norm: the square root of the sum of every entry squared -> scalar", norm_fn, per_entry<2>},
    {"max_abs_diff(A, B)", "largest |a - b| over entries of two same-shaped values ([1, 1] = scalar) -> scalar",
     max_abs_diff_fn, per_entry<2>},
    {"float_diff(A, B)",
     "max_abs_diff(A, B), but 0 when equal to float precision: within 2^-16 of the largest |entry| -> scalar",
     float_diff_fn, per_entry<3>},
    {"rows(M)", "number of rows (of each head, for a stack) -> scalar", rows_fn, per_entry<0>},
    {"cols(M)", "number of columns (of each head, for a stack) -> scalar", cols_fn, per_entry<0>},

    // create: matrices made from sizes alone
    {"randn(r, c, seed)", "[r, c] of N(0, 1) samples; the same seed gives the same numbers on every machine", randn_fn, drawn<20>},
    {"rand(r, c, seed)", "[r, c] of samples uniform in [0, 1); the same seed gives the same numbers on every machine",
     rand_fn, drawn<5>},
    {"uniform(n, m)", "[n, m] with every entry 1/m: each row the uniform distribution", uniform_fn, drawn<1>},
    {"zeros(r, c)", "[r, c] of zeros", zeros_fn, drawn<1>},
    {"identity(n)", "[n, n] identity matrix", identity_fn, square_of_size},
    {"one_hot(n, i)", "[n, 1] column of zeros with a 1 in row i (from 1)", one_hot_fn, per_size},
    {"range(n)", "[n, 1] column 1, 2, ..., n", range_fn, per_size},

    // sequential: one token at a time
    {"rnn(X, W_xh, W_hh)",
     "h_t = tanh(x_t W_xh + h_{t-1} W_hh) from h_0 = 0, one step per row: [n, d] -> H [n, d_h]; records each step",
     rnn_fn, rnn_work},
    {"rnn_influence(X, W_xh, W_hh)",
     "|h_t - h'_t| for each t, h' the same RNN with x_1 = 0: how much of token 1 is left in each state -> [n, 1]",
     rnn_influence_fn, rnn_influence_work},
    {"kv_decode(X, W_Q, W_K, W_V)",
     "causal attention one token at a time with a growing K/V cache: [n, d_model] -> Z [n, d_v]; records each step",
     kv_decode_fn, kv_decode_work},

    // low_rank: singular values, rank-k approximations, random features
    {"singular_values(A)", "singular values of A [m, n] (LAPACK) -> [min(m, n), 1], largest first", singular_values_fn, svd_work},
    {"rank_k(A, k)", "the best rank-k approximation U_k diag(sigma_k) V_k^T of A [m, n] -> [m, n]", rank_k_fn, rank_k_work},
    {"rank_errors(A)", "relative error |A - A_k| / |A| (Frobenius) for k = 1 .. min(m, n) -> [min(m, n), 1]",
     rank_errors_fn, rank_errors_work},
    {"mean_pool(n, k)", "[k, n]: row i averages n/k neighbouring rows (segment i); E @ K turns n keys into k",
     mean_pool_fn, drawn<1>},
    {"random_features(M, m, seed)",
     "positive random features exp(x w - |x|^2/2) / sqrt(m), w ~ N(0, I) seeded: [n, d] -> [n, m]", random_features_fn, random_features_work},
    {"performer_attention(Q, K, V, m, seed)",
     "softmax attention estimated with m random features, linear in n (Performer) -> [n, d_v]", performer_attention_fn, performer_work},
    {"performer_error(Q, K, V, m, trials)",
     "mean over seeds 1..trials of |Z_performer - Z| / |Z| (Frobenius) -> scalar", performer_error_fn, performer_error_work},

    // positions: position encodings and the order of rows and columns
    {"sinusoidal_positions(n, d)",
     "[n, d] sine/cosine position encodings, PE(pos, 2i) = sin(pos / 10000^(2i/d)), pos from 0",
     sinusoidal_positions_fn, drawn<20>},
    {"reverse_rows(M)", "the rows (and their labels) in reverse order", reverse_rows_fn, per_entry<1>},
    {"reverse_cols(M)", "the columns (and their labels) in reverse order", reverse_cols_fn, per_entry<1>},

    // backward: the backward pass of one head, its check, and training it
    {"softmax_backward(A, dA)",
     "dS = A * (dA - rowsum(dA * A)) row by row: the gradient through A = softmax(S), head by head -> like A",
     softmax_backward_fn, per_entry<5>},
    {"attention_loss(X, W_Q, W_K, W_V, T, causal)",
     "1/2 |Z - T|^2 for Z = softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V; "
     "causal = 1 adds the mask (optional) -> scalar",
     attention_loss_fn, attention_loss_work, 1},
    {"fd_gradient(X, W_Q, W_K, W_V, T, which, eps, causal)",
     "central differences (L(w + eps) - L(w - eps)) / 2 eps of attention_loss, in double, "
     "for W_Q, W_K or W_V (which = 1, 2, 3)",
     fd_gradient_fn, fd_gradient_work, 1},
    {"backtrack_lr(X, T, W_Q, W_K, W_V, lr, causal, fixed_v)",
     "the largest of lr, lr/2, lr/4, ... whose gradient step lowers attention_loss (0 when none of 31 does); "
     "fixed_v = 1 leaves W_V out of the step -> scalar",
     backtrack_lr_fn, backtrack_work, 2},
    {"train_head(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)",
     "gradient descent on W_Q, W_K, W_V (W_Q, W_K only when fixed_v = 1), "
     "each step as long as backtrack_lr allows from lr: the loss before each step -> [steps, 1]; records each step",
     train_head_fn, train_head_work, 2},
    {"trained_W_Q(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)", "W_Q after the same run as train_head",
     trained_W_Q_fn, train_head_work, 2},
    {"trained_W_K(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)", "W_K after the same run as train_head",
     trained_W_K_fn, train_head_work, 2},
    {"trained_W_V(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)", "W_V after the same run as train_head",
     trained_W_V_fn, train_head_work, 2},

    // devices: lesson 11's devices, shards, all-gather, all-reduce, their traffic
    {"ranks()", "the number of ranks P this lesson runs on: 1 in one process, P under mpirun -np P", ranks_fn, per_entry<0>},
    {"shard(S)",
     "the parts of stack S [k, r, c] this rank holds: all k in one process, "
     "parts r·k/P + 1 .. (r+1)·k/P on rank r of P (P must divide k) -> [k/P, r, c]",
     shard_fn, per_entry<1>},
    {"all_gather(S)",
     "every rank's parts [k/P, n, w] side by side in rank order -> [n, k·w] "
     "(concat_cols of all of them; a real all-gather on ranks)",
     all_gather_fn, per_entry<1>},
    {"all_reduce(S)",
     "the sum of every rank's parts [k/P, n, d] -> [n, d] (sum_heads of all of them; a real all-reduce on ranks)",
     all_reduce_fn, per_entry<1>},
    {"traffic()",
     "the last all_gather or all_reduce, a row per rank: numbers held (given by shard since the one before), "
     "computed, sent, received, bytes sent and received, milliseconds -> [P, 7]; 0 sent in one process",
     traffic_fn, per_entry<0>},
};

}  // namespace

std::vector<builtin> builtin_functions::catalogue() { return builtins_of(engine_builtins); }

}  // namespace qkv
