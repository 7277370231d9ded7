// The built-in functions of the formula language: one table of name, arity, help and code.
// Functions on matrices also run head by head on a stack; the kernels do the arithmetic.
#include "qkv/builtins.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "qkv/builtins_beyond.hpp"
#include "qkv/kernels.hpp"

namespace qkv {

void formula_error(const eval_context& ctx, const std::string& message) {
    std::string prefix;
    if (!ctx.stage_id.empty()) prefix = fmt::format("stage '{}'", ctx.stage_id);
    if (!ctx.statement_text.empty())
        prefix += fmt::format("{}formula `{}`", prefix.empty() ? "" : ", ", ctx.statement_text);
    throw input_error(ctx.where, prefix.empty() ? message : prefix + ": " + message);
}

namespace {

using args_t = std::vector<value>;

std::string kind_text(const value& v) {
    if (v.is_scalar()) return "a scalar";
    return fmt::format("{} {}", v.is_stack() ? "a stack" : "a matrix", v.shape_str());
}

void need_mats(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (v.is_scalar())
        formula_error(ctx, fmt::format("{}: {} must be a matrix or a stack of heads, got a scalar",
                                       fn, param));
}

void need_matrix(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_matrix())
        formula_error(ctx, fmt::format("{}: {} must be a matrix, got {}", fn, param, kind_text(v)));
}

void need_stack(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_stack())
        formula_error(ctx, fmt::format("{}: {} must be a stack of heads, got {}", fn, param,
                                       kind_text(v)));
}

// A count or a size: a whole number of at least `min` (and small enough to be a size).
std::size_t whole(const value& v, std::size_t min, const char* fn, const char* param,
                  const eval_context& ctx) {
    const char* want = min == 0 ? "a non-negative whole number" : "a whole number of at least 1";
    if (!v.is_scalar())
        formula_error(ctx, fmt::format("{}: {} must be {}, got {}", fn, param, want, kind_text(v)));
    float x = v.number;
    if (!(x == std::floor(x)) || x < static_cast<float>(min) || x > 2147483648.0f)
        formula_error(ctx, fmt::format("{}: {} must be {}, got {}", fn, param, want, x));
    return static_cast<std::size_t>(x);
}

// Refuses a matrix too large to be a lesson value: 2^28 cells is already 1 GiB of floats.
void check_cells(std::size_t r, std::size_t c, const char* fn, const eval_context& ctx) {
    constexpr std::size_t limit = std::size_t{1} << 28;
    if (r != 0 && c > limit / r)
        formula_error(ctx, fmt::format("{}: [{}, {}] would be {} cells, more than the limit of "
                                       "2^28 = {}", fn, r, c, r * c, limit));
}

// f on every matrix of v (the one, or each head); labels kept, no longer attention weights.
template <typename F>
value map_mats(const value& v, F f) {
    value out = v;
    for (matrix& m : out.mats) m = f(m);
    out.weights = false;
    return out;
}

// f on every entry, a scalar's included.
template <typename F>
value map_entries(const value& v, F f) {
    value out = v;
    out.number = f(out.number);
    for (matrix& m : out.mats)
        for (float& x : m.data) x = f(x);
    out.weights = false;
    return out;
}

// f on matching heads of a and b: a matrix meets every head of a stack; two stacks pair up.
template <typename F>
value zip_mats(const value& a, const value& b, const char* fn, const eval_context& ctx, F f) {
    need_mats(a, fn, "the first argument", ctx);
    need_mats(b, fn, "the second argument", ctx);
    if (a.is_stack() && b.is_stack() && a.mats.size() != b.mats.size())
        formula_error(ctx, fmt::format("{}: the stacks have different numbers of heads: {} and {}",
                                       fn, a.shape_str(), b.shape_str()));
    std::size_t h = std::max(a.mats.size(), b.mats.size());
    std::vector<matrix> out;
    for (std::size_t i = 0; i < h; ++i)
        out.push_back(f(a.is_stack() ? a.mats[i] : a.mat(), b.is_stack() ? b.mats[i] : b.mat()));
    if (a.is_stack() || b.is_stack()) return value::stack(std::move(out));
    return value::of(std::move(out.front()));
}

// Every entry of v in order: a scalar's one number, a matrix's cells, a stack's head by head.
std::vector<float> entries(const value& v) {
    if (v.is_scalar()) return {v.number};
    std::vector<float> out;
    for (const matrix& m : v.mats) out.insert(out.end(), m.data.begin(), m.data.end());
    return out;
}

std::vector<float> nonempty_entries(const value& v, const char* fn, const eval_context& ctx) {
    std::vector<float> xs = entries(v);
    if (xs.empty()) formula_error(ctx, fmt::format("{}: M has no entries ({})", fn, v.shape_str()));
    return xs;
}

// ---------------------------------------------------------------------------------------------
// Softmax and entry-wise functions.

value softmax_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "softmax", "S", ctx);
    value out = map_mats(a[0], kernels::softmax_rows);
    out.weights = true;
    return out;
}

value softmax_naive_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "softmax_naive", "S", ctx);
    value out = map_mats(a[0], kernels::softmax_rows_naive);
    out.weights = true;
    return out;
}

value softmax_cols_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "softmax_cols", "S", ctx);
    return map_mats(a[0], kernels::softmax_cols);
}

value exp_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::exp(x); });
}
value sqrt_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::sqrt(x); });
}
value log_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::log(x); });
}
value abs_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::fabs(x); });
}

value causal_mask_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 0, "causal_mask", "n", ctx);
    check_cells(n, n, "causal_mask", ctx);
    return value::of(kernels::causal_mask(n), {{}, "queries"}, {{}, "keys"});  // [n, n]
}

// ---------------------------------------------------------------------------------------------
// Row-wise functions.

value cosine_fn(const args_t& a, eval_context& ctx) {
    const value& A = a[0];
    const value& B = a[1];
    need_mats(A, "cosine", "A", ctx);
    need_mats(B, "cosine", "B", ctx);
    if (A.mats.front().cols != B.mats.front().cols)
        formula_error(ctx, fmt::format("cosine(A, B) compares rows of equal length: the first "
                                       "argument is {}, the second is {}",
                                       A.shape_str(), B.shape_str()));
    value out = zip_mats(A, B, "cosine", ctx, kernels::cosine_rows);  // [m, n]
    out.rows = A.rows;
    out.cols = B.rows;  // one column per row of B
    return out;
}

value row_sums_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "row_sums", "A", ctx);
    value out = map_mats(a[0], kernels::row_sums);  // [n, 1]
    out.cols = {};
    return out;
}

// Largest entry of each row -> [n, 1]; a NaN anywhere in the row makes it NaN.
matrix row_max(const matrix& A) {
    matrix out(A.rows, 1);
    for (std::size_t i = 0; i < A.rows; ++i) {
        float best = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < A.cols; ++j)
            best = std::isnan(A(i, j)) || std::isnan(best) ? NAN : std::max(best, A(i, j));
        out(i, 0) = best;
    }
    return out;
}

value row_max_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "row_max", "A", ctx);
    value out = map_mats(a[0], row_max);  // [n, 1]
    out.cols = {};
    return out;
}

// Dot product of matching rows -> [n, 1], accumulated in double like matmul_ref.
matrix rowdot(const matrix& A, const matrix& B) {
    matrix out(A.rows, 1);
    for (std::size_t i = 0; i < A.rows; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < A.cols; ++j) sum += double(A(i, j)) * double(B(i, j));
        out(i, 0) = static_cast<float>(sum);
    }
    return out;
}

value rowdot_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "rowdot", "A", ctx);
    need_mats(a[1], "rowdot", "B", ctx);
    const matrix& A = a[0].mats.front();
    const matrix& B = a[1].mats.front();
    if (A.rows != B.rows || A.cols != B.cols)
        formula_error(ctx, fmt::format("rowdot(A, B) needs two matrices of the same shape: the "
                                       "first argument is {}, the second is {}",
                                       a[0].shape_str(), a[1].shape_str()));
    value out = zip_mats(a[0], a[1], "rowdot", ctx, rowdot);
    out.rows = a[0].rows;
    return out;
}

value softmax_jacobian_norm_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "softmax_jacobian_norm", "P", ctx);
    value out = map_mats(a[0], kernels::softmax_jacobian_norm);  // [n, 1]
    out.cols = {};
    return out;
}

// ---------------------------------------------------------------------------------------------
// Heads: splitting a matrix into a stack and joining it back.

// Columns [c0, c0 + w) of M -> [M.rows, w].
matrix column_block(const matrix& M, std::size_t c0, std::size_t w) {
    matrix out(M.rows, w);
    for (std::size_t i = 0; i < M.rows; ++i) std::copy_n(M.row(i) + c0, w, out.row(i));
    return out;
}

value split_heads_fn(const args_t& a, eval_context& ctx) {
    need_matrix(a[0], "split_heads", "M", ctx);
    const matrix& M = a[0].mat();  // M: [n, d_model]
    std::size_t h = whole(a[1], 1, "split_heads", "h", ctx);
    if (M.cols % h != 0)
        formula_error(ctx, fmt::format("heads ({}) must divide d_model ({}), the columns of M in "
                                       "split_heads(M, h)", h, M.cols));
    std::size_t d_k = M.cols / h;
    std::vector<matrix> heads;
    for (std::size_t i = 0; i < h; ++i) heads.push_back(column_block(M, i * d_k, d_k));  // [n, d_k]
    return value::stack(std::move(heads), a[0].rows, {{}, a[0].cols.axis});
}

value split_rows_fn(const args_t& a, eval_context& ctx) {
    need_matrix(a[0], "split_rows", "W", ctx);
    const matrix& W = a[0].mat();  // W: [r, c]
    std::size_t h = whole(a[1], 1, "split_rows", "h", ctx);
    if (W.rows % h != 0)
        formula_error(ctx, fmt::format("heads ({}) must divide the rows of W ({}) in "
                                       "split_rows(W, h)", h, W.rows));
    std::size_t r = W.rows / h;
    std::vector<matrix> blocks;
    for (std::size_t i = 0; i < h; ++i) {
        auto first = W.data.begin() + static_cast<std::ptrdiff_t>(i * r * W.cols);
        auto last = first + static_cast<std::ptrdiff_t>(r * W.cols);
        blocks.emplace_back(r, W.cols, std::vector<float>(first, last));  // [r, c]
    }
    return value::stack(std::move(blocks), {{}, a[0].rows.axis}, a[0].cols);
}

value concat_heads_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "concat_heads", "S", ctx);
    const std::vector<matrix>& heads = a[0].mats;  // each [n, d_k]
    std::size_t n = heads.front().rows, d_k = heads.front().cols;
    matrix out(n, heads.size() * d_k);  // out: [n, h * d_k]
    for (std::size_t hh = 0; hh < heads.size(); ++hh)
        for (std::size_t i = 0; i < n; ++i)
            std::copy_n(heads[hh].row(i), d_k, out.row(i) + hh * d_k);
    return value::of(std::move(out), a[0].rows, {{}, a[0].cols.axis});
}

// Sum over heads -> [n, d], in double so the mean of many heads loses nothing.
matrix head_sum(const std::vector<matrix>& heads, double scale) {
    const matrix& first = heads.front();
    matrix out(first.rows, first.cols);
    for (std::size_t c = 0; c < first.size(); ++c) {
        double sum = 0.0;
        for (const matrix& m : heads) sum += m.data[c];
        out.data[c] = static_cast<float>(sum * scale);
    }
    return out;
}

value sum_heads_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "sum_heads", "S", ctx);
    return value::of(head_sum(a[0].mats, 1.0), a[0].rows, a[0].cols);
}

value mean_heads_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "mean_heads", "S", ctx);
    double h = static_cast<double>(a[0].mats.size());
    value out = value::of(head_sum(a[0].mats, 1.0 / h), a[0].rows, a[0].cols);
    out.weights = a[0].weights;  // the mean of distributions is a distribution
    return out;
}

value batch_fn(const args_t& a, eval_context& ctx) {
    need_matrix(a[0], "batch", "M", ctx);
    value out = value::stack({a[0].mat()}, a[0].rows, a[0].cols);  // [1, n, d]
    out.weights = a[0].weights;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Whole-value numbers: statistics, comparisons and sizes.

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

// A [1, 1] matrix as the scalar it holds, so that q @ k^T compares with S[i, j].
value as_scalar_if_1x1(const value& v) {
    if (v.is_matrix() && v.mat().rows == 1 && v.mat().cols == 1)
        return value::scalar(v.mat()(0, 0));
    return v;
}

value max_abs_diff_fn(const args_t& a, eval_context& ctx) {
    const value A = as_scalar_if_1x1(a[0]);
    const value B = as_scalar_if_1x1(a[1]);
    if (A.k != B.k || A.shape() != B.shape())
        formula_error(ctx, fmt::format("max_abs_diff(A, B) needs two values of the same shape: the "
                                       "first argument is {}, the second is {}",
                                       kind_text(A), kind_text(B)));
    if (A.is_scalar()) return value::scalar(std::fabs(A.number - B.number));
    float worst = 0.0f;
    for (std::size_t i = 0; i < A.mats.size(); ++i)
        worst = std::max(worst, max_abs_diff(A.mats[i], B.mats[i]));
    return value::scalar(worst);
}

value rows_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "rows", "M", ctx);
    return value::scalar(static_cast<float>(a[0].mats.front().rows));
}

value cols_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "cols", "M", ctx);
    return value::scalar(static_cast<float>(a[0].mats.front().cols));
}

// ---------------------------------------------------------------------------------------------
// Matrices made from nothing.

value randn_fn(const args_t& a, eval_context& ctx) {
    std::size_t r = whole(a[0], 0, "randn", "r", ctx);
    std::size_t c = whole(a[1], 0, "randn", "c", ctx);
    std::size_t seed = whole(a[2], 0, "randn", "seed", ctx);
    check_cells(r, c, "randn", ctx);
    return value::of(kernels::randn(r, c, seed));  // [r, c]
}

value rand_fn(const args_t& a, eval_context& ctx) {
    std::size_t r = whole(a[0], 0, "rand", "r", ctx);
    std::size_t c = whole(a[1], 0, "rand", "c", ctx);
    std::size_t seed = whole(a[2], 0, "rand", "seed", ctx);
    check_cells(r, c, "rand", ctx);
    return value::of(kernels::rand_uniform(r, c, seed));  // [r, c]
}

value uniform_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 0, "uniform", "n", ctx);
    std::size_t m = whole(a[1], 1, "uniform", "m", ctx);
    check_cells(n, m, "uniform", ctx);
    value out = value::of(matrix(n, m, 1.0f / static_cast<float>(m)));  // [n, m]
    out.weights = true;
    return out;
}

value zeros_fn(const args_t& a, eval_context& ctx) {
    std::size_t r = whole(a[0], 0, "zeros", "r", ctx);
    std::size_t c = whole(a[1], 0, "zeros", "c", ctx);
    check_cells(r, c, "zeros", ctx);
    return value::of(matrix(r, c));  // [r, c]
}

value identity_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 0, "identity", "n", ctx);
    check_cells(n, n, "identity", ctx);
    matrix I(n, n);  // I: [n, n]
    for (std::size_t i = 0; i < n; ++i) I(i, i) = 1.0f;
    return value::of(std::move(I));
}

}  // namespace

const std::vector<builtin>& builtins() {
    static const std::vector<builtin> table = [] {
    std::vector<builtin> t = {
        {"softmax", 1, 1, "softmax(S)",
         "softmax along each row (row max subtracted first, for stability); each row sums to 1",
         softmax_fn},
        {"softmax_naive", 1, 1, "softmax_naive(S)",
         "exp(s) / sum exp(s) along each row, no max subtracted: overflows for large scores",
         softmax_naive_fn},
        {"softmax_cols", 1, 1, "softmax_cols(S)",
         "softmax down each column instead of along each row (a common mistake)",
         softmax_cols_fn},
        {"exp", 1, 1, "exp(x)", "e^x of every entry; scalar, matrix or stack", exp_fn},
        {"sqrt", 1, 1, "sqrt(x)", "square root of every entry; scalar, matrix or stack", sqrt_fn},
        {"log", 1, 1, "log(x)",
         "natural logarithm of every entry; scalar, matrix or stack",
         log_fn},
        {"abs", 1, 1, "abs(x)", "absolute value of every entry; scalar, matrix or stack", abs_fn},
        {"causal_mask", 1, 1, "causal_mask(n)",
         "[n, n]: 0 where query i may see key j (j <= i), -inf above the diagonal",
         causal_mask_fn},
        {"cosine", 2, 2, "cosine(A, B)",
         "cosine similarity of each row of A [m, d] with each row of B [n, d] -> [m, n]",
         cosine_fn},
        {"row_sums", 1, 1, "row_sums(A)", "sum of each row: [n, m] -> [n, 1]", row_sums_fn},
        {"row_max", 1, 1, "row_max(A)", "largest entry of each row: [n, m] -> [n, 1]", row_max_fn},
        {"rowdot", 2, 2, "rowdot(A, B)",
         "dot product of matching rows: [n, d] and [n, d] -> [n, 1]",
         rowdot_fn},
        {"split_heads", 2, 2, "split_heads(M, h)",
         "[n, d_model] -> stack [h, n, d_model/h]; head i takes columns i*d_k .. (i+1)*d_k - 1",
         split_heads_fn},
        {"split_rows", 2, 2, "split_rows(W, h)",
         "[r, c] -> stack [h, r/h, c]; head i takes rows i*r/h .. (i+1)*r/h - 1 (the blocks W_O,i)",
         split_rows_fn},
        {"concat_heads", 1, 1, "concat_heads(S)",
         "stack [h, n, d_k] -> [n, h*d_k], the heads side by side",
         concat_heads_fn},
        {"sum_heads", 1, 1, "sum_heads(S)",
         "stack [h, n, d] -> [n, d], the sum over heads",
         sum_heads_fn},
        {"mean_heads", 1, 1, "mean_heads(S)",
         "stack [h, n, d] -> [n, d], the mean over heads (as PyTorch averages attention weights)",
         mean_heads_fn},
        {"batch", 1, 1, "batch(M)",
         "[n, d] -> [1, n, d], a batch of one, as PyTorch shapes its tensors",
         batch_fn},
        {"softmax_jacobian_norm", 1, 1, "softmax_jacobian_norm(P)",
         "norm of diag(p) - p p^T, the softmax Jacobian, per row p: [n, 1]; ~0 when p is one-hot",
         softmax_jacobian_norm_fn},
        {"var", 1, 1, "var(M)", "population variance of all entries -> scalar", var_fn},
        {"mean", 1, 1, "mean(M)", "mean of all entries -> scalar", mean_fn},
        {"max", 1, 1, "max(M)", "largest entry -> scalar", max_fn},
        {"min", 1, 1, "min(M)", "smallest entry -> scalar", min_fn},
        {"max_abs_diff", 2, 2, "max_abs_diff(A, B)",
         "largest |a - b| over entries of two same-shaped values ([1, 1] = scalar) -> scalar",
         max_abs_diff_fn},
        {"rows", 1, 1, "rows(M)", "number of rows (of each head, for a stack) -> scalar", rows_fn},
        {"cols", 1, 1, "cols(M)",
         "number of columns (of each head, for a stack) -> scalar",
         cols_fn},
        {"randn", 3, 3, "randn(r, c, seed)",
         "[r, c] of N(0, 1) samples; the same seed gives the same numbers on every machine",
         randn_fn},
        {"rand", 3, 3, "rand(r, c, seed)", "[r, c] of samples uniform in [0, 1); the same seed gives the same numbers on every machine", rand_fn},
        {"uniform", 2, 2, "uniform(n, m)",
         "[n, m] with every entry 1/m: each row the uniform distribution",
         uniform_fn},
        {"zeros", 2, 2, "zeros(r, c)", "[r, c] of zeros", zeros_fn},
        {"identity", 1, 1, "identity(n)", "[n, n] identity matrix", identity_fn},
    };
    for (builtin& b : beyond_builtins()) t.push_back(std::move(b));  // lessons 0 and 9-14
    return t;
    }();
    return table;
}

const builtin* find_builtin(std::string_view name) {
    for (const builtin& b : builtins())
        if (b.name == name) return &b;
    return nullptr;
}

}  // namespace qkv
