// The formula language's evaluator: runs a syntax tree (formula_tree.hpp) on a workspace.
// Every matrix product goes through blas::gemm; every error names the place, the stage, the
// statement and the shapes involved.
#include "qkv/formula.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "qkv/blas.hpp"
#include "qkv/builtins.hpp"
#include "qkv/keep_budget.hpp"
#include "qkv/kernels.hpp"
#include "qkv/suggest.hpp"
#include "qkv/work_budget.hpp"
#include "formula_tree.hpp"

namespace qkv {
namespace {

// "Q is [3, 4]", "d_k is a scalar": an operand as the lesson wrote it, with its shape.
sentence described(const expr& e, const value& v) {
    if (v.is_scalar()) return said("{} is a scalar", e.text);
    return said("{} is {}", e.text, v.shape_str());
}

// A stack made from a and b keeps what their stack's matrices are (heads, devices, samples).
value stack_like(const value& a, const value& b, value out) {
    out.stack_axis = a.is_stack() ? a.stack_axis : b.stack_axis;
    return out;
}

float apply(char op, float x, float y) {
    switch (op) {
    case '+': return x + y;
    case '-': return x - y;
    case '*': return x * y;
    default: return x / y;
    }
}

// The size of one axis after broadcasting, or nothing when the sizes clash.
std::optional<std::size_t> broadcast_dim(std::size_t x, std::size_t y) {
    if (x == y) return x;
    if (x == 1) return y;
    if (y == 1) return x;
    return std::nullopt;
}

// a op b, entry by entry; an axis of size 1 repeats along the other's (numpy's rule), which
// covers a scalar as [1, 1], a [1, d] row and an [n, 1] column.
std::optional<matrix> combine(char op, const matrix& a, const matrix& b) {
    auto r = broadcast_dim(a.rows, b.rows);
    auto c = broadcast_dim(a.cols, b.cols);
    if (!r || !c) return std::nullopt;
    matrix out(*r, *c);  // out: [r, c]
    for (std::size_t i = 0; i < *r; ++i)
        for (std::size_t j = 0; j < *c; ++j)
            out(i, j) = apply(op, a(a.rows == 1 ? 0 : i, a.cols == 1 ? 0 : j),
                              b(b.rows == 1 ? 0 : i, b.cols == 1 ? 0 : j));
    return out;
}

// a op= b in place when b broadcasts into a's shape (b as big, a [1, d] row, an [n, 1] column, or
// [1, 1]); false, a untouched, when the result would have another shape. Entries in the same
// order and arithmetic as combine's: the same floats, without a new matrix for each operator
// (lesson 8 builds each [512, 512] weight as (2 * rand(…) − 1) · bound: three fresh megabytes a
// weight, each page of them faulted in and zeroed, had been a third of its run).
template <typename F>
bool combine_into(matrix& a, const matrix& b, F f) {
    if ((b.rows != a.rows && b.rows != 1) || (b.cols != a.cols && b.cols != 1)) return false;
    if (b.rows == a.rows && b.cols == a.cols) {
        for (std::size_t k = 0; k < a.data.size(); ++k) a.data[k] = f(a.data[k], b.data[k]);
        return true;
    }
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t j = 0; j < a.cols; ++j) a(i, j) = f(a(i, j), b(b.rows == 1 ? 0 : i, b.cols == 1 ? 0 : j));
    return true;
}

// x op y for each entry, with x a scalar: into y's own matrix.
template <typename F>
void scalar_into(float x, matrix& b, F f) {
    for (float& y : b.data) y = f(x, y);
}

template <typename Body>
auto by_op(char op, Body&& body) {
    switch (op) {
    case '+': return body([](float x, float y) { return x + y; });
    case '-': return body([](float x, float y) { return x - y; });
    case '*': return body([](float x, float y) { return x * y; });
    default: return body([](float x, float y) { return x / y; });
    }
}

// Head i of v: a matrix serves every head; a scalar is the [1, 1] box the caller made.
const matrix& head(const value& v, std::size_t i, const matrix& scalar_box) {
    if (v.is_scalar()) return scalar_box;
    return v.is_stack() ? v.mats[i] : v.mat();
}

// The labels of one axis of an elementwise result: from an operand whose axis has the result's
// size, preferring named labels, then tagged ones, left before right.
labels pick_labels(const std::vector<std::pair<const labels*, std::size_t>>& axes, std::size_t n) {
    for (auto [l, size] : axes)
        if (size == n && !l->names.empty()) return *l;
    for (auto [l, size] : axes)
        if (size == n && !l->axis.empty()) return labels{{}, l->axis};
    return {};
}

// A value the expression holds while it computes the next one, counted in ctx.held_bytes for as
// long as it lives: Z + (Z + (Z + Z)) holds a copy of Z at every level before the first sum is made.
class held {
public:
    held(eval_context& ctx, const value& v) : ctx_(ctx), bytes_(bytes_of(v)) { ctx_.held_bytes += bytes_; }
    ~held() { ctx_.held_bytes -= bytes_; }
    held(const held&) = delete;
    held& operator=(const held&) = delete;

private:
    eval_context& ctx_;
    std::size_t bytes_;
};

class evaluator {
public:
    evaluator(const workspace& ws, eval_context& ctx) : ws_(ws), ctx_(ctx) {}
    value eval(const expr& e);

private:
    const workspace& ws_;
    eval_context& ctx_;

    [[noreturn]] void fail(const sentence& message) const { formula_error(ctx_, message); }
    value name(const expr& e);
    value call(const expr& e);
    value negate(const expr& e);
    value transpose(const expr& e);
    value index(const expr& e);
    std::size_t position(const expr& ie, std::size_t count, const expr& base, std::string_view what);
    std::size_t heads(const expr& e, const value& a, const value& b);
    void check_cells(std::size_t h, std::size_t r, std::size_t c, const expr& e) const;
    template <typename F>
    value metered(const expr& e, F&& run);
    value elementwise(const expr& e, const value& a, const value& b);
    // elementwise on operands the caller owns and drops: the result in the storage of one of them
    // when it has that one's shape and neither is a stack; else elementwise
    value elementwise_in_place(const expr& e, value a, value b);
    value matmul(const expr& e, const value& a, const value& b);
};

value evaluator::eval(const expr& e) {
    switch (e.k) {
    case expr::kind::number: return value::scalar(e.number);
    case expr::kind::name: return name(e);
    case expr::kind::call: return call(e);
    case expr::kind::negate: return negate(e);
    case expr::kind::transpose: return transpose(e);
    case expr::kind::index: return index(e);
    case expr::kind::binary: {
        value a = eval(*e.args[0]);
        const held hold_a(ctx_, a);
        value b = eval(*e.args[1]);
        const held hold_b(ctx_, b);
        // a and b stay counted while the result is written into one of them
        if (e.op != '@') return elementwise_in_place(e, std::move(a), std::move(b));
        return metered(e, [&] { return matmul(e, a, b); });
    }
    }
    fail(sentence::plain("internal error: unknown expression kind"));
}

value evaluator::name(const expr& e) {
    auto it = ws_.find(e.name);
    if (it != ws_.end()) {
        check_keep(ctx_, bytes_of(it->second));  // the copy the expression works on
        return it->second;
    }
    if (const builtin* b = find_builtin(e.name))
        fail(said("'{}' is a function: call it as {}", e.name, b->signature));
    std::vector<std::string> known;
    for (const auto& [n, v] : ws_) known.push_back(n);
    std::size_t values = known.size();
    for (const builtin& b : builtins()) known.push_back(b.name);
    if (std::string near = nearest_name(e.name, known); !near.empty())
        fail(said("unknown name '{}'; did you mean '{}'?", e.name, near));
    if (values > 0 && values <= 16) {
        known.resize(values);
        fail(said("unknown name '{}'; the names known here are {}", e.name, fmt::format("{}", fmt::join(known, ", "))));
    }
    fail(said("unknown name '{}'", e.name));
}

value evaluator::call(const expr& e) {
    const builtin* b = find_builtin(e.name);
    if (!b) {
        if (ws_.count(e.name))
            fail(said("'{}' is a value, not a function; only built-ins can be called", e.name));
        std::vector<std::string> known;
        for (const builtin& bi : builtins()) known.push_back(bi.name);
        if (std::string near = nearest_name(e.name, known); !near.empty())
            fail(said("unknown function '{}'; did you mean '{}'?", e.name, near));
        fail(said("unknown function '{}'; `qkv help formulas` lists the built-ins", e.name));
    }
    int n = static_cast<int>(e.args.size());
    if (n < b->min_args || n > b->max_args) {
        const sentence takes = b->min_args != b->max_args ? said("{} to {} arguments", b->min_args, b->max_args)
                               : b->min_args == 1           ? said("{} argument", b->min_args)
                                                            : said("{} arguments", b->min_args);
        fail(said("{} takes {}, as in {}; got {}", b->name, takes, b->signature, n));
    }
    // the arguments are copies beside the workspace's values, held as long as the call runs
    std::vector<value> args;
    std::vector<std::unique_ptr<held>> holds;
    args.reserve(e.args.size());
    for (const expr_ptr& a : e.args) {
        args.push_back(eval(*a));
        holds.push_back(std::make_unique<held>(ctx_, args.back()));
    }
    check_keep(ctx_, 0);
    value out = metered(e, [&] {
        state_work(b->work(args));  // refused here, before a loop or a product has started
        return b->fn(args, ctx_);
    });
    // a built-in that makes a value as large as its argument (softmax of a 1 GiB S) checked no
    // shape first: what it made is counted now, before the next value is made beside it
    check_keep(ctx_, bytes_of(out));
    return out;
}

// One operation (an @, a built-in) run within the work one operation may do (work_budget.hpp):
// the doors to BLAS and LAPACK refuse a call that would go over before it runs.
template <typename F>
value evaluator::metered(const expr& e, F&& run) {
    try {
        const operation_work op;
        return run();
    } catch (const work_exceeded& w) {
        fail(said("{} would do {:.0f} GFLOP of arithmetic or more, past the {:.0f} GFLOP one operation may do "
                  "(lessons are small by design)", e.text, w.flops() / 1e9, max_flops_per_operation / 1e9));
    }
}

value evaluator::negate(const expr& e) {
    value v = eval(*e.args[0]);
    v.number = -v.number;
    for (matrix& m : v.mats)
        for (float& x : m.data) x = -x;
    v.weights = false;
    return v;
}

value evaluator::transpose(const expr& e) {
    value v = eval(*e.args[0]);
    if (v.is_scalar()) return v;
    {
        const held hold(ctx_, v);
        check_keep(ctx_, bytes_of(v));  // each head's transposed copy is made beside it
    }
    for (matrix& m : v.mats) m = kernels::transpose(m);
    std::swap(v.rows, v.cols);
    v.weights = false;  // the columns of a distribution do not sum to 1
    return v;
}

// The 0-based position an index names; the lesson counts from 1, as in s_23.
std::size_t evaluator::position(const expr& ie, std::size_t count, const expr& base,
                                std::string_view what) {
    value v = eval(ie);
    if (!v.is_scalar()) fail(said("an index must be a number, and {}", described(ie, v)));
    float x = v.number;
    if (!(x == std::floor(x))) fail(said("index {} is not a whole number", x));
    if (x < 1 || x > static_cast<float>(count))
        fail(said("index {} is out of range: {} has {} {} (counted from 1)", x, base.text, count, said(what)));
    return static_cast<std::size_t>(x) - 1;
}

value evaluator::index(const expr& e) {
    const expr& base_e = *e.args[0];
    value base = eval(base_e);
    const held hold(ctx_, base);
    if (base.is_scalar())
        fail(said("{}; only a matrix or a stack can be indexed", described(base_e, base)));
    if (base.is_stack()) {
        if (e.args.size() == 3)
            fail(said("{} is a stack of heads and takes one index, the head: write {}[h][i] for row i of head h", base_e.text,
                      base_e.text));
        std::size_t h = position(*e.args[1], base.mats.size(), base_e, translatable("heads"));
        value out = value::of(base.mats[h], base.rows, base.cols);
        out.weights = base.weights;
        return out;
    }
    const matrix& M = base.mat();
    std::size_t i = position(*e.args[1], M.rows, base_e, translatable("rows"));
    if (e.args.size() == 3) {
        std::size_t j = position(*e.args[2], M.cols, base_e, translatable("columns"));
        return value::scalar(M(i, j));
    }
    matrix row(1, M.cols, std::vector<float>(M.row(i), M.row(i) + M.cols));  // row: [1, d]
    labels rows{{}, base.rows.axis};
    if (i < base.rows.names.size()) rows.names = {base.rows.names[i]};
    value out = value::of(std::move(row), std::move(rows), base.cols);
    out.weights = base.weights;  // one row of a distribution is still one
    return out;
}

// How many heads an operation on a and b runs: 1 for matrices; two stacks must agree.
std::size_t evaluator::heads(const expr& e, const value& a, const value& b) {
    if (a.is_stack() && b.is_stack() && a.mats.size() != b.mats.size())
        fail(said("'{}' on two stacks needs the same number of heads: {}, {}", e.op, described(*e.args[0], a),
                  described(*e.args[1], b)));
    if (a.is_stack()) return a.mats.size();
    if (b.is_stack()) return b.mats.size();
    return 1;
}

// A result of h heads of [r, c] must fit the limit every value has (matrix.hpp), or the product
// of a column and a row could ask for terabytes, and eight heads of it for eight times as much.
void evaluator::check_cells(std::size_t h, std::size_t r, std::size_t c, const expr& e) const {
    if (!within_cell_limit(r, c, h)) fail(said("{}: {}", e.text, cell_limit_said(r, c, h)));
    check_keep(ctx_, h * r * c * sizeof(float));
}

value evaluator::elementwise(const expr& e, const value& a, const value& b) {
    if (a.is_scalar() && b.is_scalar()) return value::scalar(apply(e.op, a.number, b.number));
    std::size_t h = heads(e, a, b);
    matrix box_a(1, 1, a.number), box_b(1, 1, b.number);
    std::vector<matrix> out;
    for (std::size_t i = 0; i < h; ++i) {
        const matrix &A = head(a, i, box_a), &B = head(b, i, box_b);
        // An [n, 1] column and a [1, m] row broadcast to [n, m]: refuse it before allocating.
        check_cells(h, std::max(A.rows, B.rows), std::max(A.cols, B.cols), e);
        auto m = combine(e.op, A, B);
        if (!m)
            fail(said("'{}' needs equal shapes, or a scalar, a [1, d] row or an [n, 1] column to broadcast: {}, {}", e.op,
                      described(*e.args[0], a), described(*e.args[1], b)));
        out.push_back(std::move(*m));
    }
    std::vector<std::pair<const labels*, std::size_t>> row_axes, col_axes;
    for (const value* v : {&a, &b}) {
        if (v->is_scalar()) continue;
        row_axes.push_back({&v->rows, v->mats.front().rows});
        col_axes.push_back({&v->cols, v->mats.front().cols});
    }
    std::size_t r = out.empty() ? 0 : out.front().rows, c = out.empty() ? 0 : out.front().cols;
    labels rows = pick_labels(row_axes, r), cols = pick_labels(col_axes, c);
    if (a.is_stack() || b.is_stack()) return stack_like(a, b, value::stack(std::move(out), rows, cols));
    return value::of(std::move(out.front()), rows, cols);
}

value evaluator::elementwise_in_place(const expr& e, value a, value b) {
    if (a.is_stack() || b.is_stack() || (a.is_scalar() && b.is_scalar())) return elementwise(e, a, b);
    value& m = a.is_scalar() ? b : a;  // the matrix the result is written into
    if (!a.is_scalar() && !b.is_scalar()) {
        const matrix &A = a.mat(), &B = b.mat();
        if ((B.rows != A.rows && B.rows != 1) || (B.cols != A.cols && B.cols != 1)) return elementwise(e, a, b);
    }
    // written into m's own storage: nothing new is made, and what m holds is counted already (held)
    const std::size_t r = m.mat().rows, c = m.mat().cols;
    // the labels as elementwise picks them, from the operands as they were
    std::vector<std::pair<const labels*, std::size_t>> row_axes, col_axes;
    for (const value* v : {&a, &b}) {
        if (v->is_scalar()) continue;
        row_axes.push_back({&v->rows, v->mat().rows});
        col_axes.push_back({&v->cols, v->mat().cols});
    }
    labels rows = pick_labels(row_axes, r), cols = pick_labels(col_axes, c);
    if (b.is_scalar()) {  // a op x, x as the [1, 1] it broadcasts as
        const matrix box(1, 1, b.number);
        by_op(e.op, [&](auto f) { return combine_into(a.mat(), box, f); });
    } else if (a.is_scalar()) {
        by_op(e.op, [&](auto f) {
            scalar_into(a.number, b.mat(), f);
            return true;
        });
    } else {
        by_op(e.op, [&](auto f) { return combine_into(a.mat(), b.mat(), f); });
    }
    // a new value, as elementwise makes (not weights, nothing marked), on the matrix written
    return value::of(std::move(m.mat()), std::move(rows), std::move(cols));
}

value evaluator::matmul(const expr& e, const value& a, const value& b) {
    const expr& le = *e.args[0];
    const expr& re = *e.args[1];
    if (a.is_scalar() || b.is_scalar())
        fail(said("@ multiplies matrices, and {}; use * to scale by a number", a.is_scalar() ? described(le, a) : described(re, b)));
    std::size_t h = heads(e, a, b);
    std::vector<matrix> out(h);
    for (std::size_t i = 0; i < h; ++i) {
        const matrix& A = head(a, i, a.mat());
        const matrix& B = head(b, i, b.mat());
        if (A.cols != B.rows)
            fail(said("@ needs the columns of the left side to equal the rows of the right side: {}, {}", described(le, a),
                      described(re, b)));
        check_cells(h, A.rows, B.cols, e);
        blas::gemm(out[i], A, blas::trans::no, B, blas::trans::no);  // out[i]: [A.rows, B.cols]
    }
    if (a.is_stack() || b.is_stack()) return stack_like(a, b, value::stack(std::move(out), a.rows, b.cols));
    return value::of(std::move(out.front()), a.rows, b.cols);
}

}  // namespace

value evaluate(const expr& e, const workspace& ws, eval_context& ctx) {
    ctx.ws = &ws;
    try {
        return evaluator(ws, ctx).eval(e);
    } catch (const std::bad_alloc&) {
        // past every count (a built-in's own temporaries, memory another process took meanwhile):
        // still this formula's line, not an anonymous one at the top
        formula_error(ctx, said("the memory ran out computing it (this run may keep {:.1f} GiB)",
                                double(keep_budget().bytes) / double(std::size_t{1} << 30)));
    }
}

void run_formula(const formula& f, workspace& ws, eval_context& ctx) {
    for (const statement& st : f.statements) {
        ctx.where = st.where;
        ctx.statement_text = st.text;
        value v = evaluate(*st.rhs, ws, ctx);
        ws[st.target] = std::move(v);
    }
}

}  // namespace qkv
