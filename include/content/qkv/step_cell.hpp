// A number a built-in recorded as one of its sub-steps (a KV-cache decode's step, a tiled softmax's
// block), explained from the recorded steps themselves: what it was one step before, and for the
// tiled softmax's running statistics (m, rescale, l) the recurrence that made it, on the block's
// own scores S_j:
//   m = max(m before, the block row's largest score)
//   rescale = exp(m before − m)
//   l = rescale · l before + Σ_j exp(S_j[i, j] − m)
// and for a KV-cache decode step, from its recorded q_t, K_cache, V_cache and a_t:
//   a_t[1, j] = softmax(s_t)[j], s_t = q_t K_cacheᵀ / √d_k (kv_scores, the engine's own)
//   z_t[1, j] = a_t · V_cache[:, j]
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "qkv/cell_terms.hpp"
#include "qkv/trace.hpp"

namespace qkv {

struct step_cell {
    enum class rule { recorded, running_max, rescale, running_sum, kv_weight, kv_output };
    rule r = rule::recorded;
    std::string name, label;           // the value and its step's label ("j = 3")
    std::size_t step = 0;              // from 1
    cell_index at;
    float cell = 0;
    std::optional<float> before;       // the same cell one step before, when that step recorded it
    std::string before_label;
    float block_max = 0;               // running_max: the largest score of the block's row
    double block_sum = 0;              // running_sum: Σ exp(S_j[i, j] − m) over the block's row
    float rescale = 0;                 // running_sum: this step's rescale
    float m_before = 0, m_now = 0;     // rescale: the row's m one step before, and now
    cell_terms terms;                  // kv_weight: softmax of s_t; kv_output: a_t · V_cache[:, j]
};

// Cell `at` of `name` in step `step` (from 1) of stage s; throws input_error when there is none.
step_cell explain_step_cell(const stage_trace& s, std::size_t step, const std::string& name, cell_index at);

}  // namespace qkv
