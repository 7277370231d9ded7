// The argument checks of the built-ins (builtin_args.hpp), and formula_error, the one way any
// of them, or the evaluator, reports a mistake in a formula.
#include "qkv/builtin_args.hpp"

#include <cmath>

#include <fmt/format.h>

#include "qkv/keep_budget.hpp"

namespace qkv {

void formula_error(const eval_context& ctx, const sentence& message) {
    const bool stage = !ctx.stage_id.empty(), formula = !ctx.statement_text.empty();
    if (stage && formula) throw input_error(ctx.where, said("stage '{}', formula `{}`: {}", ctx.stage_id, ctx.statement_text, message));
    if (stage) throw input_error(ctx.where, said("stage '{}': {}", ctx.stage_id, message));
    if (formula) throw input_error(ctx.where, said("formula `{}`: {}", ctx.statement_text, message));
    throw input_error(ctx.where, message);
}

void formula_error(const eval_context& ctx, const std::string& message) { formula_error(ctx, sentence::plain(message)); }

namespace builtin_detail {

sentence kind_text(const value& v) {
    if (v.is_scalar()) return said("a scalar");
    return v.is_stack() ? said("a stack {}", v.shape_str()) : said("a matrix {}", v.shape_str());
}

void need_mats(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (v.is_scalar()) formula_error(ctx, said("{}: {} must be a matrix or a stack of heads, got a scalar", fn, param));
}

const matrix& need_matrix(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_matrix()) formula_error(ctx, said("{}: {} must be a matrix, got {}", fn, param, kind_text(v)));
    return v.mat();
}

void need_stack(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_stack()) formula_error(ctx, said("{}: {} must be a stack of heads, got {}", fn, param, kind_text(v)));
}

std::size_t whole(const value& v, std::size_t min, const char* fn, const char* param,
                  const eval_context& ctx) {
    const sentence want = min == 0 ? said("a non-negative whole number")
                        : min == 1 ? said("a whole number of at least 1")
                                   : said("a whole number of at least {}", min);
    if (!v.is_scalar()) formula_error(ctx, said("{}: {} must be {}, got {}", fn, param, want, kind_text(v)));
    const float x = v.number;
    // 2^31: far past any size the cell limit lets through, and a seed still fits
    if (!(x == std::floor(x)) || x < static_cast<float>(min) || x > 2147483648.0f)
        formula_error(ctx, said("{}: {} must be {}, got {}", fn, param, want, x));
    return static_cast<std::size_t>(x);
}

float positive(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_scalar())
        formula_error(ctx, said("{}: {} must be a number above 0, got {}", fn, param, kind_text(v)));
    if (!(v.number > 0.0f) || !std::isfinite(v.number))
        formula_error(ctx, said("{}: {} must be a number above 0, got {}", fn, param, v.number));
    return v.number;
}

qkv_mats need_qkv(const args_t& a, const char* name, const char* fn, const eval_context& ctx) {
    const qkv_mats m{need_matrix(a[0], name, "Q", ctx), need_matrix(a[1], name, "K", ctx),
                     need_matrix(a[2], name, "V", ctx)};
    if (m.Q.cols != m.K.cols || m.K.rows != m.V.rows)
        formula_error(ctx, said("{}: Q {}, K {} and V {} do not fit (Q and K need the same d_k, K and V the same number of rows)",
                                fn, shape_str(m.Q), shape_str(m.K), shape_str(m.V)));
    return m;
}

void need_cells(std::size_t r, std::size_t c, const char* fn, const eval_context& ctx) {
    if (!within_cell_limit(r, c)) formula_error(ctx, said("{}: {}", fn, cell_limit_said(r, c)));
    check_keep(ctx, r * c * sizeof(float));
}

double entries(const value& v) {
    if (v.is_scalar()) return 1;
    double n = 0;
    for (const matrix& m : v.mats) n += double(m.size());
    return n;
}

double rows_of(const value& v) { return v.is_scalar() ? 0 : double(v.mats.front().rows); }
double cols_of(const value& v) { return v.is_scalar() ? 0 : double(v.mats.front().cols); }
double heads_of(const value& v) { return v.is_scalar() ? 0 : double(v.mats.size()); }

double size_of(const value& v) {
    const float x = v.number;
    return v.is_scalar() && x == std::floor(x) && x >= 0.0f && x <= 2147483648.0f ? double(x) : 0.0;
}

double cells_within(double r, double c) { return r * c <= double(max_cells) ? r * c : 0.0; }

}  // namespace builtin_detail
}  // namespace qkv
