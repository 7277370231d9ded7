// One cell of a statement's value, explained by the operation at the top of its formula: the
// operands are evaluated again on the same workspace (the same kernels, the same numbers), and
// the terms a reader adds up by hand are written out in double.
#include "qkv/cell_terms.hpp"

#include <cmath>

#include <fmt/format.h>

#include "formula_tree.hpp"

namespace qkv {
namespace {

// The matrix of head h (a matrix is every head's).
const matrix& head_of(const value& v, std::size_t h) { return v.is_stack() ? v.mats.at(h) : v.mat(); }

// An operand of an elementwise operation at the cell: a scalar, or a matrix broadcast as a [1, d]
// row or an [n, 1] column is.
float operand_at(const value& v, const cell_index& at) {
    if (v.is_scalar()) return v.number;
    const matrix& m = head_of(v, v.is_stack() ? at.head : 0);
    return m(m.rows == 1 ? 0 : at.row, m.cols == 1 ? 0 : at.col);
}

bool is_call(const expr& e, std::string_view fn) { return e.k == expr::kind::call && e.name == fn && e.args.size() == 1; }

}  // namespace

void add_product(cell_terms& t, std::vector<float> row, std::vector<float> column) {
    t.kind = cell_terms::op::product;
    t.a = std::move(row), t.b = std::move(column);
    t.parts.clear(), t.total = 0;
    for (std::size_t k = 0; k < t.a.size() && k < t.b.size(); ++k) {
        t.parts.push_back(double(t.a[k]) * double(t.b[k]));
        t.total += t.parts.back();
    }
    t.result = t.total;
}

void add_softmax(cell_terms& t, std::vector<float> row, std::size_t col) {
    t.kind = cell_terms::op::softmax;
    t.a = std::move(row);
    t.parts.clear(), t.total = 0;
    t.row_max = -INFINITY;
    for (float s : t.a) t.row_max = std::max(t.row_max, s);
    for (float s : t.a) {
        t.parts.push_back(std::isinf(s) && s < 0 ? 0.0 : std::exp(double(s) - double(t.row_max)));
        t.total += t.parts.back();
    }
    t.result = col < t.parts.size() ? t.parts[col] / t.total : 0.0;
}

cell_terms explain_cell(const statement& st, const workspace& ws, eval_context& ctx, cell_index at) {
    const expr& e = *st.rhs;
    const value whole = evaluate(e, ws, ctx);
    cell_terms t;
    t.statement = st.text;
    if (whole.is_scalar()) {
        if (at.head || at.row || at.col) throw input_error(ctx.where, said("{} is a number: it has no cell [{}, {}]", st.target, at.row + 1, at.col + 1));
        t.cell = whole.number;
    } else {
        if (at.head >= whole.mats.size() || at.row >= whole.mats.front().rows || at.col >= whole.mats.front().cols)
            throw input_error(ctx.where, whole.is_stack() ? said("{} {} has no cell [{}, {}] in head {}", st.target, whole.shape_str(), at.row + 1,
                                                                 at.col + 1, at.head + 1)
                                                          : said("{} {} has no cell [{}, {}]", st.target, whole.shape_str(), at.row + 1, at.col + 1));
        t.cell = head_of(whole, at.head)(at.row, at.col);
    }

    if (e.k == expr::kind::binary && e.op == '@') {
        t.kind = cell_terms::op::product;
        t.left = e.args[0]->text;
        t.right = e.args[1]->text;
        const value L = evaluate(*e.args[0], ws, ctx), R = evaluate(*e.args[1], ws, ctx);
        const matrix& l = head_of(L, L.is_stack() ? at.head : 0);
        const matrix& r = head_of(R, R.is_stack() ? at.head : 0);
        std::vector<float> column(l.cols);
        for (std::size_t k = 0; k < l.cols; ++k) column[k] = r(k, at.col);
        add_product(t, std::vector<float>(l.row(at.row), l.row(at.row) + l.cols), std::move(column));
    } else if (is_call(e, "softmax") && !whole.is_scalar()) {
        t.kind = cell_terms::op::softmax;
        t.left = e.args[0]->text;
        const value X = evaluate(*e.args[0], ws, ctx);
        const matrix& x = head_of(X, X.is_stack() ? at.head : 0);
        add_softmax(t, std::vector<float>(x.row(at.row), x.row(at.row) + x.cols), at.col);
    } else if (e.k == expr::kind::call && e.name == "causal_mask") {
        t.kind = cell_terms::op::mask;
        t.left = e.text;
        t.result = t.cell;
    } else if (e.k == expr::kind::binary) {
        t.kind = cell_terms::op::elementwise;
        t.symbol = e.op;
        t.left = e.args[0]->text;
        t.right = e.args[1]->text;
        t.x = operand_at(evaluate(*e.args[0], ws, ctx), at);
        t.y = operand_at(evaluate(*e.args[1], ws, ctx), at);
        const double x = t.x, y = t.y;
        t.result = e.op == '+' ? x + y : e.op == '-' ? x - y : e.op == '*' ? x * y : x / y;
    } else if (e.k == expr::kind::negate) {
        t.kind = cell_terms::op::negate;
        t.left = e.args[0]->text;
        t.x = operand_at(evaluate(*e.args[0], ws, ctx), at);
        t.result = -double(t.x);
    } else if (e.k == expr::kind::transpose && !whole.is_scalar()) {
        t.kind = cell_terms::op::transpose;
        t.left = e.args[0]->text;
        t.x = operand_at(evaluate(*e.args[0], ws, ctx), cell_index{at.head, at.col, at.row});
        t.result = t.x;
    } else if (e.k == expr::kind::name) {
        t.kind = cell_terms::op::copy;
        t.left = e.name;
        t.x = t.cell;
        t.result = t.cell;
    } else if (e.k == expr::kind::number) {
        t.kind = cell_terms::op::scalar;
        t.result = t.cell;
    } else {
        t.kind = cell_terms::op::builtin;
        t.left = e.k == expr::kind::call ? e.name : e.text;
        t.result = t.cell;
    }
    return t;
}

}  // namespace qkv
