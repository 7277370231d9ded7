// Built-ins that make one number of a whole value: mean, variance, extremes, the Frobenius norm,
// how far apart two values are (exactly, or beyond float rounding), and the sizes of a matrix.
#include "builtin_functions.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// Every entry of v in order: a scalar's one number, a matrix's cells, a stack's head by head.
std::vector<float> nonempty_entries(const value& v, const char* fn, const eval_context& ctx) {
    std::vector<float> xs;
    if (v.is_scalar()) xs.push_back(v.number);
    for (const matrix& m : v.mats) xs.insert(xs.end(), m.data.begin(), m.data.end());
    if (xs.empty()) formula_error(ctx, said("{}: M has no entries ({})", fn, v.shape_str()));
    return xs;
}

// A [1, 1] matrix as the scalar it holds, so that q @ k^T compares with S[i, j].
value as_scalar_if_1x1(const value& v) {
    if (v.is_matrix() && v.mat().rows == 1 && v.mat().cols == 1)
        return value::scalar(v.mat()(0, 0));
    return v;
}

value abs_diff(const args_t& a, const char* fn, eval_context& ctx) {
    const value A = as_scalar_if_1x1(a[0]);
    const value B = as_scalar_if_1x1(a[1]);
    if (A.k != B.k || A.shape() != B.shape())
        formula_error(ctx, said("{}(A, B) needs two values of the same shape: the "
                                "first argument is {}, the second is {}",
                                fn, kind_text(A), kind_text(B)));
    if (A.is_scalar()) return value::scalar(std::fabs(A.number - B.number));
    float worst = 0.0f;
    for (std::size_t i = 0; i < A.mats.size(); ++i) {
        const float d = max_abs_diff(A.mats[i], B.mats[i]);
        if (std::isnan(d)) return value::scalar(d);  // std::max(0, NaN) would hide it
        worst = std::max(worst, d);
    }
    return value::scalar(worst);
}

// Float rounding of values as large as `scale`: 2^-16 of it, 128 float32 epsilons (2^-23). Summing
// a few hundred products in another order (another BLAS kernel, a split into heads or blocks) moves
// a result by far less; a real mistake (a wrong row, a missing scale) moves it by far more.
float float_rounding(float scale) { return std::ldexp(scale, -16); }

// A row [1, d] or column [n, 1] of at least one entry, for argmax, argmin and ties.
const matrix& vector_arg(const value& v, const char* fn, eval_context& ctx) {
    const matrix* m = v.is_matrix() ? &v.mat() : nullptr;
    if (!m || (m->rows != 1 && m->cols != 1) || m->size() == 0)
        formula_error(ctx, said("{}(v): v must be one row [1, d] or one column [n, 1], got {}", fn, kind_text(v)));
    return *m;
}

// The entries of m tied with its extreme to float precision (float_rounding of the extreme
// itself, so that an extreme of 0 ties only with 0): two weights equal in mathematics (a token that
// comes twice) are tied whichever last bits the kernel left them, so no word hinges on which of
// the two came out a bit larger.
std::vector<std::size_t> tied_with_extreme(const matrix& m, bool largest) {
    const float best = largest ? *std::max_element(m.data.begin(), m.data.end()) : *std::min_element(m.data.begin(), m.data.end());
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m.data.size(); ++i)
        if (std::fabs(m.data[i] - best) <= float_rounding(std::fabs(best))) out.push_back(i);
    if (out.empty()) out.push_back(std::size_t((largest ? std::max_element(m.data.begin(), m.data.end())
                                                         : std::min_element(m.data.begin(), m.data.end())) - m.data.begin()));
    return out;  // NaN: the place std::max_element names
}

// Where the extreme of a row or column vector is, counted from 1 (the first one on a tie, to float
// precision), so that a lesson can name the token a row attends to most: A[1, argmax(A[1])].
value arg_extreme(const value& v, bool largest, const char* fn, eval_context& ctx) {
    return value::scalar(static_cast<float>(tied_with_extreme(vector_arg(v, fn, ctx), largest).front() + 1));
}

}  // namespace

value var_fn(const args_t& a, eval_context& ctx) {
    std::vector<float> xs = nonempty_entries(a[0], "var", ctx);
    double mean = 0.0, sq = 0.0;
    for (float x : xs) mean += x;
    mean /= double(xs.size());
    for (float x : xs) sq += (x - mean) * (x - mean);
    return value::scalar(static_cast<float>(sq / double(xs.size())));  // population: divide by N
}

value mean_fn(const args_t& a, eval_context& ctx) {
    std::vector<float> xs = nonempty_entries(a[0], "mean", ctx);
    double sum = 0.0;
    for (float x : xs) sum += x;
    return value::scalar(static_cast<float>(sum / double(xs.size())));
}

value max_fn(const args_t& a, eval_context& ctx) {
    std::vector<float> xs = nonempty_entries(a[0], "max", ctx);
    return value::scalar(*std::max_element(xs.begin(), xs.end()));
}

value min_fn(const args_t& a, eval_context& ctx) {
    std::vector<float> xs = nonempty_entries(a[0], "min", ctx);
    return value::scalar(*std::min_element(xs.begin(), xs.end()));
}

value norm_fn(const args_t& a, eval_context&) {
    if (a[0].is_scalar()) return value::scalar(std::fabs(a[0].number));
    double sum = 0.0;
    for (const matrix& m : a[0].mats) sum += frobenius(m) * frobenius(m);
    return value::scalar(static_cast<float>(std::sqrt(sum)));
}

value max_abs_diff_fn(const args_t& a, eval_context& ctx) { return abs_diff(a, "max_abs_diff", ctx); }

// max_abs_diff with a difference within float rounding of the values involved counted as 0: two
// results equal in mathematics read "0" on every CPU, whichever last bits its kernel leaves.
value float_diff_fn(const args_t& a, eval_context& ctx) {
    value worst = abs_diff(a, "float_diff", ctx);
    float scale = 0.0f;
    for (const value& v : a)
        for (float x : nonempty_entries(v, "float_diff", ctx)) scale = std::max(scale, std::fabs(x));
    if (worst.number <= float_rounding(scale)) worst.number = 0.0f;  // NaN stays NaN
    return worst;
}

value argmax_fn(const args_t& a, eval_context& ctx) { return arg_extreme(a[0], true, "argmax", ctx); }
value argmin_fn(const args_t& a, eval_context& ctx) { return arg_extreme(a[0], false, "argmin", ctx); }

value ties_fn(const args_t& a, eval_context& ctx) {
    return value::scalar(static_cast<float>(tied_with_extreme(vector_arg(a[0], "ties", ctx), true).size()));
}

value rows_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "rows", "M", ctx);
    return value::scalar(static_cast<float>(a[0].mats.front().rows));
}

value cols_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "cols", "M", ctx);
    return value::scalar(static_cast<float>(a[0].mats.front().cols));
}

}  // namespace qkv::builtin_functions
