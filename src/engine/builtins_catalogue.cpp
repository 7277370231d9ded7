// The catalogue of the formula language's built-ins that the engine brings: every one's signature
// (which gives its name and arity) and line of help, in the order `qkv help formulas` lists them,
// group by group. What each does is in its group's builtins_<group>.cpp (builtin_functions.hpp).
#include <math.h>  // expf and C's other float functions: what std::exp(float) and its kin call

#include "builtin_functions.hpp"

namespace qkv {
namespace {

using namespace builtin_functions;

constexpr builtin_entry engine_builtins[] = {
    // softmax: the stable one, the two common mistakes beside it, the causal mask, the online softmax
    {"softmax(S)", "softmax along each row (row max subtracted first, for stability); each row sums to 1", softmax_fn},
    {"softmax_naive(S)", "exp(s) / sum exp(s) along each row, no max subtracted: overflows for large scores",
     softmax_naive_fn},
    {"softmax_cols(S)", "softmax down each column instead of along each row (a common mistake)", softmax_cols_fn},
    {"causal_mask(n)", "[n, n]: 0 where query i may see key j (j <= i), -inf above the diagonal", causal_mask_fn},
    {"softmax_jacobian_norm(P)",
     "norm of diag(p) - p p^T, the softmax Jacobian, per row p: [n, 1]; ~0 when p is one-hot",
     softmax_jacobian_norm_fn},
    {"tiled_attention(Q, K, V, block)",
     "softmax(Q K^T / sqrt(d_k)) V over blocks of keys with a running max and sum (online softmax); "
     "records each block",
     tiled_attention_fn},

    // entries: one function of a number applied to every entry
    {"exp(x)", "e^x of every entry; scalar, matrix or stack", every_entry<expf>},
    {"sqrt(x)", "square root of every entry; scalar, matrix or stack", every_entry<sqrtf>},
    {"log(x)", "natural logarithm of every entry; scalar, matrix or stack", every_entry<logf>},
    {"abs(x)", "absolute value of every entry; scalar, matrix or stack", every_entry<fabsf>},
    {"tanh(x)", "hyperbolic tangent of every entry; scalar, matrix or stack", every_entry<tanhf>},
    {"ceil(x)", "every entry rounded up to a whole number (a count of layers, blocks, steps); scalar, matrix or stack",
     every_entry<ceilf>},

    // rows: row by row
    {"cosine(A, B)", "cosine similarity of each row of A [m, d] with each row of B [n, d] -> [m, n]", cosine_fn},
    {"row_sums(A)", "sum of each row: [n, m] -> [n, 1]", row_sums_fn},
    {"row_max(A)", "largest entry of each row: [n, m] -> [n, 1]", row_max_fn},
    {"rowdot(A, B)", "dot product of matching rows: [n, d] and [n, d] -> [n, 1]", rowdot_fn},
    {"diagonal(M, k)",
     "the entries M[i, i + k] of one diagonal (k = 0 the main one, -1 just below it), head by head -> [count, 1]",
     diagonal_fn},

    // heads: splitting into a stack of heads (or parts) and joining back
    {"split_heads(M, h)", "[n, d_model] -> stack [h, n, d_model/h]; head i takes columns i*d_k .. (i+1)*d_k - 1",
     split_heads_fn},
    {"split_rows(W, h)", "[r, c] -> stack [h, r/h, c]; head i takes rows i*r/h .. (i+1)*r/h - 1 (the blocks W_O,i)",
     split_rows_fn},
    {"concat_heads(S)", "stack [h, n, d_k] -> [n, h*d_k], the heads side by side", concat_heads_fn},
    {"sum_heads(S)", "stack [h, n, d] -> [n, d], the sum over heads", sum_heads_fn},
    {"mean_heads(S)", "stack [h, n, d] -> [n, d], the mean over heads (as PyTorch averages attention weights)",
     mean_heads_fn},
    {"batch(M)", "[n, d] -> [1, n, d], a batch of one, as PyTorch shapes its tensors", batch_fn},
    {"split_cols(A, p)", "[r, c] -> stack [p, r, c/p]: A = [A_1, ..., A_p] by columns (one part per device)",
     split_cols_fn},
    {"concat_cols(S)", "stack [p, n, w] -> [n, p*w]: the parts side by side, [Y_1, ..., Y_p]", concat_cols_fn},

    // the head detector: what a head does, as TransformerLens's head_detector.py scores it
    {"previous_token_pattern(n)", "[n, n]: 1 at (i, i - 1), the cells a previous-token head looks at", previous_token_pattern_fn},
    {"duplicate_token_pattern(X)",
     "[n, n] from X's row labels (the tokens): 1 at (i, j) where j < i holds the same token as i", duplicate_token_pattern_fn},
    {"induction_pattern(X)",
     "[n, n]: the duplicate-token pattern one column to the right, 1 at (i, j + 1) where token j is token i, j < i",
     induction_pattern_fn},
    {"head_score(A, P)", "sum(A * P) / sum(A): the share of a head's weight on the cells of pattern P; head by head -> [h, 1]",
     head_score_fn},

    // statistics: one number from a whole value
    {"var(M)", "population variance of all entries -> scalar", var_fn},
    {"mean(M)", "mean of all entries -> scalar", mean_fn},
    {"max(M)", "largest entry -> scalar", max_fn},
    {"min(M)", "smallest entry -> scalar", min_fn},
    {"argmax(v)", "where the largest entry of a row [1, d] or column [n, 1] is, from 1 (the first on a tie to float precision) -> scalar",
     argmax_fn},
    {"argmin(v)", "where the smallest entry of a row [1, d] or column [n, 1] is, from 1 (the first on a tie to float precision) -> scalar",
     argmin_fn},
    {"ties(v)",
     "how many entries of a row [1, d] or column [n, 1] are its largest, to float precision (2 when two tokens "
     "tie for most) -> scalar",
     ties_fn},
    {"norm(M)", "Frobenius norm: the square root of the sum of every entry squared -> scalar", norm_fn},
    {"max_abs_diff(A, B)", "largest |a - b| over entries of two same-shaped values ([1, 1] = scalar) -> scalar",
     max_abs_diff_fn},
    {"float_diff(A, B)",
     "max_abs_diff(A, B), but 0 when equal to float precision: within 2^-16 of the largest |entry| -> scalar",
     float_diff_fn},
    {"rows(M)", "number of rows (of each head, for a stack) -> scalar", rows_fn},
    {"cols(M)", "number of columns (of each head, for a stack) -> scalar", cols_fn},

    // create: matrices made from sizes alone
    {"randn(r, c, seed)", "[r, c] of N(0, 1) samples; the same seed gives the same numbers on every machine", randn_fn},
    {"rand(r, c, seed)", "[r, c] of samples uniform in [0, 1); the same seed gives the same numbers on every machine",
     rand_fn},
    {"uniform(n, m)", "[n, m] with every entry 1/m: each row the uniform distribution", uniform_fn},
    {"zeros(r, c)", "[r, c] of zeros", zeros_fn},
    {"identity(n)", "[n, n] identity matrix", identity_fn},
    {"one_hot(n, i)", "[n, 1] column of zeros with a 1 in row i (from 1)", one_hot_fn},
    {"range(n)", "[n, 1] column 1, 2, ..., n", range_fn},

    // sequential: one token at a time
    {"rnn(X, W_xh, W_hh)",
     "h_t = tanh(x_t W_xh + h_{t-1} W_hh) from h_0 = 0, one step per row: [n, d] -> H [n, d_h]; records each step",
     rnn_fn},
    {"rnn_influence(X, W_xh, W_hh)",
     "|h_t - h'_t| for each t, h' the same RNN with x_1 = 0: how much of token 1 is left in each state -> [n, 1]",
     rnn_influence_fn},
    {"kv_decode(X, W_Q, W_K, W_V)",
     "causal attention one token at a time with a growing K/V cache: [n, d_model] -> Z [n, d_v]; records each step",
     kv_decode_fn},

    // low_rank: singular values, rank-k approximations, random features
    {"singular_values(A)", "singular values of A [m, n] (LAPACK) -> [min(m, n), 1], largest first", singular_values_fn},
    {"rank_k(A, k)", "the best rank-k approximation U_k diag(sigma_k) V_k^T of A [m, n] -> [m, n]", rank_k_fn},
    {"rank_errors(A)", "relative error |A - A_k| / |A| (Frobenius) for k = 1 .. min(m, n) -> [min(m, n), 1]",
     rank_errors_fn},
    {"mean_pool(n, k)", "[k, n]: row i averages n/k neighbouring rows (segment i); E @ K turns n keys into k",
     mean_pool_fn},
    {"random_features(M, m, seed)",
     "positive random features exp(x w - |x|^2/2) / sqrt(m), w ~ N(0, I) seeded: [n, d] -> [n, m]", random_features_fn},
    {"performer_attention(Q, K, V, m, seed)",
     "softmax attention estimated with m random features, linear in n (Performer) -> [n, d_v]", performer_attention_fn},
    {"performer_error(Q, K, V, m, trials)",
     "mean over seeds 1..trials of |Z_performer - Z| / |Z| (Frobenius) -> scalar", performer_error_fn},

    // positions: position encodings and the order of rows and columns
    {"sinusoidal_positions(n, d)",
     "[n, d] sine/cosine position encodings, PE(pos, 2i) = sin(pos / 10000^(2i/d)), pos from 0",
     sinusoidal_positions_fn},
    {"reverse_rows(M)", "the rows (and their labels) in reverse order", reverse_rows_fn},
    {"reverse_cols(M)", "the columns (and their labels) in reverse order", reverse_cols_fn},

    // backward: the backward pass of one head, its check, and training it
    {"softmax_backward(A, dA)",
     "dS = A * (dA - rowsum(dA * A)) row by row: the gradient through A = softmax(S), head by head -> like A",
     softmax_backward_fn},
    {"attention_loss(X, W_Q, W_K, W_V, T, causal)",
     "1/2 |Z - T|^2 for Z = softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V; "
     "causal = 1 adds the mask (optional) -> scalar",
     attention_loss_fn, 1},
    {"fd_gradient(X, W_Q, W_K, W_V, T, which, eps, causal)",
     "central differences (L(w + eps) - L(w - eps)) / 2 eps of attention_loss, in double, "
     "for W_Q, W_K or W_V (which = 1, 2, 3)",
     fd_gradient_fn, 1},
    {"backtrack_lr(X, T, W_Q, W_K, W_V, lr, causal, fixed_v)",
     "the largest of lr, lr/2, lr/4, ... whose gradient step lowers attention_loss (0 when none of 31 does); "
     "fixed_v = 1 leaves W_V out of the step -> scalar",
     backtrack_lr_fn, 2},
    {"train_head(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)",
     "gradient descent on W_Q, W_K, W_V (W_Q, W_K only when fixed_v = 1), "
     "each step as long as backtrack_lr allows from lr: the loss before each step -> [steps, 1]; records each step",
     train_head_fn, 2},
    {"trained_W_Q(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)", "W_Q after the same run as train_head",
     trained_W_Q_fn, 2},
    {"trained_W_K(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)", "W_K after the same run as train_head",
     trained_W_K_fn, 2},
    {"trained_W_V(X, T, W_Q, W_K, W_V, steps, lr, causal, fixed_v)", "W_V after the same run as train_head",
     trained_W_V_fn, 2},

    // devices: lesson 11's devices, shards, all-gather, all-reduce, their traffic
    {"ranks()", "the number of ranks P this lesson runs on: 1 in one process, P under mpirun -np P", ranks_fn},
    {"shard(S)",
     "the parts of stack S [k, r, c] this rank holds: all k in one process, "
     "parts r·k/P + 1 .. (r+1)·k/P on rank r of P (P must divide k) -> [k/P, r, c]",
     shard_fn},
    {"all_gather(S)",
     "every rank's parts [k/P, n, w] side by side in rank order -> [n, k·w] "
     "(concat_cols of all of them; a real all-gather on ranks)",
     all_gather_fn},
    {"all_reduce(S)",
     "the sum of every rank's parts [k/P, n, d] -> [n, d] (sum_heads of all of them; a real all-reduce on ranks)",
     all_reduce_fn},
    {"traffic()",
     "the last all_gather or all_reduce, a row per rank: numbers held (given by shard since the one before), "
     "computed, sent, received, bytes sent and received, milliseconds -> [P, 7]; 0 sent in one process",
     traffic_fn},
};

}  // namespace

std::vector<builtin> builtin_functions::catalogue() { return builtins_of(engine_builtins); }

}  // namespace qkv
