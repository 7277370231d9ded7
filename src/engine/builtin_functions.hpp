// The functions behind the engine's built-ins, group by group, each defined in its group's
// src/engine/builtins_<group>.cpp (the entries' one template here); the catalogue
// (builtins_catalogue.cpp) gives each its signature and help. Private to the engine's built-in files.
#pragma once

#include <vector>

#include "qkv/builtin_args.hpp"
#include "qkv/builtin_values.hpp"
#include "qkv/builtins.hpp"

namespace qkv::builtin_functions {

using builtin_detail::args_t;

// Every built-in of the engine, in the order `qkv help formulas` lists them.
std::vector<builtin> catalogue();

// softmax: the stable one, the two common mistakes beside it, the causal mask, how flat its
// gradient is, and the online softmax over blocks of keys
value softmax_fn(const args_t& a, eval_context& ctx);
value softmax_naive_fn(const args_t& a, eval_context& ctx);
value softmax_cols_fn(const args_t& a, eval_context& ctx);
value causal_mask_fn(const args_t& a, eval_context& ctx);
value softmax_jacobian_norm_fn(const args_t& a, eval_context& ctx);
value tiled_attention_fn(const args_t& a, eval_context& ctx);

// entries: f of every entry of a scalar, a matrix or a stack (exp, sqrt, log, abs, tanh, ceil)
template <float (*f)(float)>
value every_entry(const args_t& a, eval_context&) {
    return builtin_detail::map_entries(a[0], f);
}

// rows: row by row, cosine, sums, maxima, dot products, one diagonal
value cosine_fn(const args_t& a, eval_context& ctx);
value row_sums_fn(const args_t& a, eval_context& ctx);
value row_max_fn(const args_t& a, eval_context& ctx);
value rowdot_fn(const args_t& a, eval_context& ctx);
value diagonal_fn(const args_t& a, eval_context& ctx);

// the head detector (builtins_detector.cpp)
value previous_token_pattern_fn(const args_t& a, eval_context& ctx);
value duplicate_token_pattern_fn(const args_t& a, eval_context& ctx);
value induction_pattern_fn(const args_t& a, eval_context& ctx);
value head_score_fn(const args_t& a, eval_context& ctx);

// heads: splitting into a stack of heads (or parts) and joining back
value split_heads_fn(const args_t& a, eval_context& ctx);
value split_rows_fn(const args_t& a, eval_context& ctx);
value concat_heads_fn(const args_t& a, eval_context& ctx);
value sum_heads_fn(const args_t& a, eval_context& ctx);
value mean_heads_fn(const args_t& a, eval_context& ctx);
value batch_fn(const args_t& a, eval_context& ctx);
value split_cols_fn(const args_t& a, eval_context& ctx);
value concat_cols_fn(const args_t& a, eval_context& ctx);

// statistics: one number from a whole value, mean, var, extremes, norm, differences, sizes
value var_fn(const args_t& a, eval_context& ctx);
value mean_fn(const args_t& a, eval_context& ctx);
value max_fn(const args_t& a, eval_context& ctx);
value min_fn(const args_t& a, eval_context& ctx);
value argmax_fn(const args_t& a, eval_context& ctx);
value argmin_fn(const args_t& a, eval_context& ctx);
value ties_fn(const args_t& a, eval_context& ctx);
value norm_fn(const args_t& a, eval_context& ctx);
value max_abs_diff_fn(const args_t& a, eval_context& ctx);
value float_diff_fn(const args_t& a, eval_context& ctx);
value rows_fn(const args_t& a, eval_context& ctx);
value cols_fn(const args_t& a, eval_context& ctx);

// create: matrices made from sizes alone, random, zeros, identity, one-hot, a range
value randn_fn(const args_t& a, eval_context& ctx);
value rand_fn(const args_t& a, eval_context& ctx);
value uniform_fn(const args_t& a, eval_context& ctx);
value zeros_fn(const args_t& a, eval_context& ctx);
value identity_fn(const args_t& a, eval_context& ctx);
value one_hot_fn(const args_t& a, eval_context& ctx);
value range_fn(const args_t& a, eval_context& ctx);

// sequential: one token at a time, an RNN and a KV-cache decode
value rnn_fn(const args_t& a, eval_context& ctx);
value rnn_influence_fn(const args_t& a, eval_context& ctx);
value kv_decode_fn(const args_t& a, eval_context& ctx);

// low_rank: singular values, rank-k approximations, pooling, random features
value singular_values_fn(const args_t& a, eval_context& ctx);
value rank_k_fn(const args_t& a, eval_context& ctx);
value rank_errors_fn(const args_t& a, eval_context& ctx);
value mean_pool_fn(const args_t& a, eval_context& ctx);
value random_features_fn(const args_t& a, eval_context& ctx);
value performer_attention_fn(const args_t& a, eval_context& ctx);
value performer_error_fn(const args_t& a, eval_context& ctx);

// positions: position encodings and the order of rows and columns
value sinusoidal_positions_fn(const args_t& a, eval_context& ctx);
value reverse_rows_fn(const args_t& a, eval_context& ctx);
value reverse_cols_fn(const args_t& a, eval_context& ctx);

// backward: the backward pass of one head, its check, and training it
value softmax_backward_fn(const args_t& a, eval_context& ctx);
value attention_loss_fn(const args_t& a, eval_context& ctx);
value fd_gradient_fn(const args_t& a, eval_context& ctx);
value backtrack_lr_fn(const args_t& a, eval_context& ctx);
value train_head_fn(const args_t& a, eval_context& ctx);
value trained_W_Q_fn(const args_t& a, eval_context& ctx);  // W_Q after train_head's run
value trained_W_K_fn(const args_t& a, eval_context& ctx);
value trained_W_V_fn(const args_t& a, eval_context& ctx);

// devices: lesson 11's devices, shards, all-gather, all-reduce, their traffic
value ranks_fn(const args_t& a, eval_context& ctx);
value shard_fn(const args_t& a, eval_context& ctx);
value all_gather_fn(const args_t& a, eval_context& ctx);
value all_reduce_fn(const args_t& a, eval_context& ctx);
value traffic_fn(const args_t& a, eval_context& ctx);

}  // namespace qkv::builtin_functions
