// The checks every built-in makes of its arguments, each with one wording: a matrix, a stack, a
// whole number, a result within the cell limit. Shared by the src/builtins_*.cpp files.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/builtins.hpp"

namespace qkv::builtin_detail {

using args_t = std::vector<value>;

// "a scalar", "a matrix [3, 4]", "a stack [2, 3, 2]", in the learner's language where it is shown
sentence kind_text(const value& v);

// Each throws through formula_error with "FN: PARAM must be …, got …".
void need_mats(const value& v, const char* fn, const char* param, const eval_context& ctx);  // matrix or stack
const matrix& need_matrix(const value& v, const char* fn, const char* param, const eval_context& ctx);
void need_stack(const value& v, const char* fn, const char* param, const eval_context& ctx);

// A count, a size or a seed: a whole number of at least `min` (0 or 1), and at most 2^31.
std::size_t whole(const value& v, std::size_t min, const char* fn, const char* param,
                  const eval_context& ctx);

// A step size or a tolerance: a finite number above 0. The refusal names the number itself
// ("got 0", "got inf"): a learning rate of 8 / norm(H)² is 0 once H's entries are near 1e30.
float positive(const value& v, const char* fn, const char* param, const eval_context& ctx);

// Q [n, d_k], K [n_k, d_k] and V [n_k, d_v] from the first three arguments, checked to fit
// together; fn is the call as the help writes it, "tiled_attention(Q, K, V, block)".
struct qkv_mats {
    const matrix& Q;
    const matrix& K;
    const matrix& V;
};
qkv_mats need_qkv(const args_t& a, const char* name, const char* fn, const eval_context& ctx);

// A result of [r, c] must fit the limit of every value (max_cells, matrix.hpp): refused before
// anything is allocated.
void need_cells(std::size_t r, std::size_t c, const char* fn, const eval_context& ctx);

// --- What a built-in states of its work (builtins.hpp), read from its arguments without refusing
// any: an argument the built-in will refuse reads as 0 here, and the built-in says what is wrong.

// Every number v holds: 1 for a scalar, h·r·c for a stack.
double entries(const value& v);
// The rows and columns of a matrix (of each head of a stack) and its heads (1 for a matrix); 0 for a scalar.
double rows_of(const value& v);
double cols_of(const value& v);
double heads_of(const value& v);
// A scalar argument read as a size, a count or a step: its value when `whole` would take it (a
// whole number from 0 to 2^31), else 0.
double size_of(const value& v);
// r·c when a value of [r, c] keeps within the cell limit (matrix.hpp), else 0 (refused as too large).
double cells_within(double r, double c);

// k flops for every number of every argument: the work of one pass over them.
template <int k>
double per_entry(const args_t& a) {
    double n = 0;
    for (const value& v : a) n += entries(v);
    return k * n;
}

}  // namespace qkv::builtin_detail
