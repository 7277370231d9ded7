// The formula language: a lexer and recursive-descent parser to a small syntax tree, and the
// evaluator that runs the tree on a workspace. Every matrix product goes through blas::gemm;
// every error names the place, the stage, the statement and the shapes involved.
#include "qkv/formula.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "qkv/blas.hpp"
#include "qkv/builtins.hpp"
#include "qkv/suggest.hpp"
#include "qkv/kernels.hpp"

namespace qkv {

struct expr {
    enum class kind { number, name, call, negate, binary, transpose, index };

    kind k = kind::number;
    float number = 0.0f;          // kind::number
    std::string name;             // kind::name, kind::call (the function)
    char op = 0;                  // kind::binary: + - * / @
    std::vector<expr_ptr> args;   // operands; call arguments; [indexed, i] or [indexed, i, j]
    std::string text;             // the source text, so messages quote what the lesson wrote
    source_loc where;             // of the first character
    std::size_t begin = 0;        // byte offset of the first character in its line (parsing only)
    int depth = 1;                // nodes on the longest path down from here, this one included
};

namespace {

// ---------------------------------------------------------------------------------------------
// Lexer: one line at a time, since a statement never spans lines.

// One line of the formula and where it sits in the file.
struct line_source {
    std::string_view text;
    std::string file;
    int line = 0;
    int first_column = 1;  // column of text[0]

    // Columns count characters, not bytes: UTF-8 continuation bytes do not advance.
    int column_of(std::size_t byte) const {
        int col = first_column;
        for (std::size_t i = 0; i < byte && i < text.size(); ++i)
            if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++col;
        return col;
    }
    source_loc loc(std::size_t byte) const { return {file, line, column_of(byte)}; }
};

enum class tok { number, name, punct, transpose, end };

struct token {
    tok t = tok::end;
    std::string text;
    std::size_t begin = 0, end = 0;  // bytes in the line
    float number = 0.0f;
};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The whole UTF-8 character starting at byte i, so an error can quote it.
std::string char_at(std::string_view s, std::size_t i) {
    std::size_t n = 1;
    while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
    return std::string(s.substr(i, n));
}

// digits [. digits] [e [+-] digits], or . digits; the caller has seen a digit or ".digit".
token lex_number(const line_source& src, std::size_t i) {
    std::string_view s = src.text;
    std::size_t j = i;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j < s.size() && s[j] == '.') {
        ++j;
        while (j < s.size() && is_digit(s[j])) ++j;
    }
    if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && is_digit(s[k])) {
            j = k;
            while (j < s.size() && is_digit(s[j])) ++j;
        }
    }
    // "2e", "1.2.3", "3x": one malformed word rather than two confusing tokens.
    if (j < s.size() && (is_name_char(s[j]) || s[j] == '.')) {
        std::size_t k = j;
        while (k < s.size() && (is_name_char(s[k]) || s[k] == '.')) ++k;
        throw input_error(src.loc(i), fmt::format("malformed number '{}'", s.substr(i, k - i)));
    }
    token t{tok::number, std::string(s.substr(i, j - i)), i, j};
    t.number = std::strtof(t.text.c_str(), nullptr);
    if (!std::isfinite(t.number))
        throw input_error(src.loc(i), fmt::format("number '{}' is too large for a float", t.text));
    return t;
}

// The tokens of one line, ending with tok::end; '#' starts a comment.
std::vector<token> lex(const line_source& src) {
    std::string_view s = src.text;
    std::vector<token> out;
    std::size_t i = 0;
    while (i < s.size()) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
        } else if (c == '#') {
            break;
        } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
            out.push_back(lex_number(src, i));
            i = out.back().end;
        } else if (is_name_start(c)) {
            std::size_t j = i;
            while (j < s.size() && is_name_char(s[j])) ++j;
            out.push_back({tok::name, std::string(s.substr(i, j - i)), i, j});
            i = j;
        } else if (c == '^') {
            if (i + 1 >= s.size() || s[i + 1] != 'T')
                throw input_error(src.loc(i), "expected 'T' after '^' (A^T is the transpose; "
                                              "there is no power operator)");
            out.push_back({tok::transpose, "^T", i, i + 2});
            i += 2;
        } else if (std::string_view("()[],+-*/@=").find(c) != std::string_view::npos) {
            out.push_back({tok::punct, std::string(1, c), i, i + 1});
            ++i;
        } else {
            throw input_error(src.loc(i), fmt::format("unexpected character '{}'", char_at(s, i)));
        }
    }
    out.push_back({tok::end, "", s.size(), s.size()});
    return out;
}

// ---------------------------------------------------------------------------------------------
// Parser: recursive descent over one line's tokens, following the grammar in formula.hpp.

class parser {
public:
    explicit parser(const line_source& src) : src_(src), toks_(lex(src)) {}

    bool blank() const { return toks_.front().t == tok::end; }
    statement parse_statement();
    expr_ptr parse_lone_expression();

private:
    const line_source& src_;
    std::vector<token> toks_;
    std::size_t pos_ = 0;
    std::size_t last_end_ = 0;  // end of the last token taken: where a node's text stops
    int depth_ = 0;             // unary()s open: how deep the parser has recursed

    // Parsing recurses once per parenthesis, call, index and minus sign (all pass through
    // unary()); evaluating and freeing a tree recurse once per level of it, and a chain of
    // operators is one level each. Both are bounded, so neither 5000 '(' (found by fuzzing) nor
    // 100000 '+1' can overflow the stack.
    static constexpr int max_depth = 200;
    input_error too_deep(std::size_t offset) const {
        return input_error(src_.loc(offset), fmt::format("the formula is more than {} levels deep (each operator, call, "
                                                         "index and parenthesis is a level)", max_depth));
    }

    const token& peek() const { return toks_[pos_]; }
    bool at(std::string_view punct) const {
        return peek().t == tok::punct && peek().text == punct;
    }
    const token& take() {
        last_end_ = toks_[pos_].end;
        return toks_[pos_++];
    }
    [[noreturn]] void fail(const token& at, const std::string& expected) const {
        std::string found = at.t == tok::end ? "the end of the line" : "'" + at.text + "'";
        throw input_error(src_.loc(at.begin),
                          fmt::format("expected {}, found {}", expected, found));
    }
    void expect(std::string_view punct, const std::string& expected) {
        if (!at(punct)) fail(peek(), expected);
        take();
    }

    std::shared_ptr<expr> make(expr::kind k, std::size_t begin) const {
        auto n = std::make_shared<expr>();
        n->k = k;
        n->begin = begin;
        n->where = src_.loc(begin);
        return n;
    }
    expr_ptr done(std::shared_ptr<expr> n) const {
        for (const expr_ptr& a : n->args) n->depth = std::max(n->depth, a->depth + 1);
        if (n->depth > max_depth) throw too_deep(n->begin);
        n->text = std::string(src_.text.substr(n->begin, last_end_ - n->begin));
        return n;
    }

    expr_ptr expression();
    expr_ptr term();
    expr_ptr unary();
    expr_ptr postfix();
    expr_ptr primary();
    expr_ptr call(const token& name);
    expr_ptr binary(char op, expr_ptr left, expr_ptr right);
};

statement parser::parse_statement() {
    const token& target = peek();
    if (target.t != tok::name) fail(target, "a name to assign to, as in `S = Q @ K^T`");
    take();
    if (!at("=")) fail(peek(), fmt::format("'=' after '{}'", target.text));
    take();
    statement st;
    st.target = target.text;
    st.rhs = expression();
    if (peek().t != tok::end) fail(peek(), "an operator or the end of the line");
    st.text = std::string(src_.text.substr(target.begin, last_end_ - target.begin));
    st.where = src_.loc(target.begin);
    return st;
}

expr_ptr parser::parse_lone_expression() {
    expr_ptr e = expression();
    if (peek().t != tok::end) fail(peek(), "an operator or the end of the expression");
    return e;
}

expr_ptr parser::binary(char op, expr_ptr left, expr_ptr right) {
    auto n = make(expr::kind::binary, left->begin);
    n->op = op;
    n->args = {std::move(left), std::move(right)};
    return done(n);
}

// expr := term (('+' | '-') term)*
expr_ptr parser::expression() {
    expr_ptr left = term();
    while (at("+") || at("-")) {
        char op = take().text[0];
        left = binary(op, left, term());
    }
    return left;
}

// term := unary (('*' | '/' | '@') unary)*
expr_ptr parser::term() {
    expr_ptr left = unary();
    while (at("*") || at("/") || at("@")) {
        char op = take().text[0];
        left = binary(op, left, unary());
    }
    return left;
}

// unary := '-' unary | postfix
expr_ptr parser::unary() {
    struct level {
        int& depth;
        explicit level(int& d) : depth(++d) {}
        ~level() { --depth; }
    } here(depth_);
    if (depth_ > max_depth) throw too_deep(peek().begin);
    if (!at("-")) return postfix();
    auto n = make(expr::kind::negate, take().begin);
    n->args = {unary()};
    return done(n);
}

// postfix := primary ('^T' | '[' expr (',' expr)? ']')*
expr_ptr parser::postfix() {
    expr_ptr base = primary();
    for (;;) {
        if (peek().t == tok::transpose) {
            take();
            auto n = make(expr::kind::transpose, base->begin);
            n->args = {base};
            base = done(n);
        } else if (at("[")) {
            const token& open = take();
            int open_col = src_.column_of(open.begin);
            auto n = make(expr::kind::index, base->begin);
            n->args = {base, expression()};
            if (at(",")) {
                take();
                n->args.push_back(expression());
            }
            expect("]", fmt::format("']' to close '[' opened at column {}", open_col));
            base = done(n);
        } else {
            return base;
        }
    }
}

// primary := NUMBER | NAME | NAME '(' args ')' | '(' expr ')'
expr_ptr parser::primary() {
    const token& t = peek();
    if (t.t == tok::number) {
        take();
        auto n = make(expr::kind::number, t.begin);
        n->number = t.number;
        return done(n);
    }
    if (t.t == tok::name) {
        take();
        if (at("(")) return call(t);
        auto n = make(expr::kind::name, t.begin);
        n->name = t.text;
        return done(n);
    }
    if (at("(")) {
        const token& open = take();
        int open_col = src_.column_of(open.begin);
        expr_ptr inner = expression();
        expect(")", fmt::format("')' to close '(' opened at column {}", open_col));
        // The same node, quoted with its parentheses.
        auto n = std::make_shared<expr>(*inner);
        n->begin = open.begin;
        n->where = src_.loc(open.begin);
        return done(n);
    }
    fail(t, "a number, a name or '('");
}

// NAME '(' (expr (',' expr)*)? ')'
expr_ptr parser::call(const token& name) {
    const token& open = take();
    int open_col = src_.column_of(open.begin);
    auto n = make(expr::kind::call, name.begin);
    n->name = name.text;
    if (at(")")) {
        take();
        return done(n);
    }
    for (;;) {
        n->args.push_back(expression());
        if (at(",")) {
            take();
            continue;
        }
        expect(")", fmt::format("',' or ')' to close '{}(' opened at column {}", name.text,
                                open_col));
        return done(n);
    }
}

// The lines of `text`, each placed in the file: the first starts at where's column, the
// others at column 1. An unknown line (0) counts from 1, so a message still says which line.
std::vector<line_source> split_lines(std::string_view text, const source_loc& where) {
    std::vector<line_source> lines;
    int first_line = where.line > 0 ? where.line : 1;
    std::size_t start = 0;
    for (int k = 0;; ++k) {
        std::size_t nl = text.find('\n', start);
        std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
        int first_column = k == 0 && where.column > 0 ? where.column : 1;
        lines.push_back({line, where.file, first_line + k, first_column});
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    return lines;
}

}  // namespace

formula parse_formula(std::string_view text, const source_loc& where) {
    formula f;
    f.source = std::string(text);
    for (const line_source& line : split_lines(text, where)) {
        parser p(line);
        if (!p.blank()) f.statements.push_back(p.parse_statement());
    }
    if (f.statements.empty())
        throw input_error(where, "expected a statement such as `S = Q @ K^T`, found none");
    return f;
}

expr_ptr parse_expression(std::string_view text, const source_loc& where) {
    expr_ptr result;
    for (const line_source& line : split_lines(text, where)) {
        parser p(line);
        if (p.blank()) continue;
        if (result)
            throw input_error(line.loc(line.text.find_first_not_of(" \t")),
                              "expected one expression, found a second line");
        result = p.parse_lone_expression();
    }
    if (!result) throw input_error(where, "expected an expression, found none");
    return result;
}

// ---------------------------------------------------------------------------------------------
// Evaluator.

namespace {

// "Q is [3, 4]", "d_k is a scalar": an operand as the lesson wrote it, with its shape.
std::string described(const expr& e, const value& v) {
    if (v.is_scalar()) return fmt::format("{} is a scalar", e.text);
    return fmt::format("{} is {}", e.text, v.shape_str());
}

std::string lowered(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}


// The candidate nearest to `name` when it is close enough to be a typo. Case is free (W_q for
// W_Q); names of one or two letters must match up to case, since 'Z' is no typo of 'A'.
std::optional<std::string> nearest(const std::string& name,
                                   const std::vector<std::string>& candidates) {
    std::size_t limit = name.size() <= 2 ? 0 : std::max<std::size_t>(1, name.size() / 3);
    std::optional<std::string> best;
    std::size_t best_folded = limit + 1, best_exact = 0;
    for (const std::string& c : candidates) {
        std::size_t folded = edit_distance(lowered(name), lowered(c));
        std::size_t exact = edit_distance(name, c);
        if (folded < best_folded || (folded == best_folded && best && exact < best_exact)) {
            best = c;
            best_folded = folded;
            best_exact = exact;
        }
    }
    return best;
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

std::string count_text(int n) { return fmt::format("{} argument{}", n, n == 1 ? "" : "s"); }

class evaluator {
public:
    evaluator(const workspace& ws, eval_context& ctx) : ws_(ws), ctx_(ctx) {}
    value eval(const expr& e);

private:
    const workspace& ws_;
    eval_context& ctx_;

    [[noreturn]] void fail(const std::string& message) const { formula_error(ctx_, message); }
    value name(const expr& e);
    value call(const expr& e);
    value negate(const expr& e);
    value transpose(const expr& e);
    value index(const expr& e);
    std::size_t position(const expr& ie, std::size_t count, const expr& base, const char* what);
    std::size_t heads(const expr& e, const value& a, const value& b);
    void check_cells(std::size_t r, std::size_t c, const expr& e) const;
    value elementwise(const expr& e, const value& a, const value& b);
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
        value b = eval(*e.args[1]);
        return e.op == '@' ? matmul(e, a, b) : elementwise(e, a, b);
    }
    }
    fail("internal error: unknown expression kind");
}

value evaluator::name(const expr& e) {
    auto it = ws_.find(e.name);
    if (it != ws_.end()) return it->second;
    if (const builtin* b = find_builtin(e.name))
        fail(fmt::format("'{}' is a function: call it as {}", e.name, b->signature));
    std::vector<std::string> known;
    for (const auto& [n, v] : ws_) known.push_back(n);
    std::size_t values = known.size();
    for (const builtin& b : builtins()) known.push_back(b.name);
    if (auto near = nearest(e.name, known))
        fail(fmt::format("unknown name '{}'; did you mean '{}'?", e.name, *near));
    std::string msg = fmt::format("unknown name '{}'", e.name);
    if (values > 0 && values <= 16) {
        known.resize(values);
        msg += fmt::format("; the names known here are {}", fmt::join(known, ", "));
    }
    fail(msg);
}

value evaluator::call(const expr& e) {
    const builtin* b = find_builtin(e.name);
    if (!b) {
        if (ws_.count(e.name))
            fail(fmt::format("'{}' is a value, not a function; only built-ins can be called",
                             e.name));
        std::vector<std::string> known;
        for (const builtin& bi : builtins()) known.push_back(bi.name);
        if (auto near = nearest(e.name, known))
            fail(fmt::format("unknown function '{}'; did you mean '{}'?", e.name, *near));
        fail(fmt::format("unknown function '{}'; `qkv help formulas` lists the built-ins", e.name));
    }
    int n = static_cast<int>(e.args.size());
    if (n < b->min_args || n > b->max_args) {
        std::string takes = b->min_args == b->max_args
                                ? count_text(b->min_args)
                                : fmt::format("{} to {}", b->min_args, count_text(b->max_args));
        fail(fmt::format("{} takes {}, as in {}; got {}", b->name, takes, b->signature, n));
    }
    std::vector<value> args;
    for (const expr_ptr& a : e.args) args.push_back(eval(*a));
    return b->fn(args, ctx_);
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
    for (matrix& m : v.mats) m = kernels::transpose(m);
    std::swap(v.rows, v.cols);
    v.weights = false;  // the columns of a distribution do not sum to 1
    return v;
}

// The 0-based position an index names; the lesson counts from 1, as in s_23.
std::size_t evaluator::position(const expr& ie, std::size_t count, const expr& base,
                                const char* what) {
    value v = eval(ie);
    if (!v.is_scalar()) fail(fmt::format("an index must be a number, and {}", described(ie, v)));
    float x = v.number;
    if (!(x == std::floor(x))) fail(fmt::format("index {} is not a whole number", x));
    if (x < 1 || x > static_cast<float>(count))
        fail(fmt::format("index {} is out of range: {} has {} {} (counted from 1)", x, base.text,
                         count, what));
    return static_cast<std::size_t>(x) - 1;
}

value evaluator::index(const expr& e) {
    const expr& base_e = *e.args[0];
    value base = eval(base_e);
    if (base.is_scalar())
        fail(fmt::format("{}; only a matrix or a stack can be indexed", described(base_e, base)));
    if (base.is_stack()) {
        if (e.args.size() == 3)
            fail(fmt::format("{} is a stack of heads and takes one index, the head: write "
                             "{}[h][i] for row i of head h", base_e.text, base_e.text));
        std::size_t h = position(*e.args[1], base.mats.size(), base_e, "heads");
        value out = value::of(base.mats[h], base.rows, base.cols);
        out.weights = base.weights;
        return out;
    }
    const matrix& M = base.mat();
    std::size_t i = position(*e.args[1], M.rows, base_e, "rows");
    if (e.args.size() == 3) {
        std::size_t j = position(*e.args[2], M.cols, base_e, "columns");
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
        fail(fmt::format("'{}' on two stacks needs the same number of heads: {}, {}", e.op,
                         described(*e.args[0], a), described(*e.args[1], b)));
    if (a.is_stack()) return a.mats.size();
    if (b.is_stack()) return b.mats.size();
    return 1;
}

// A result of [r, cols] must fit the limit every value has (matrix.hpp), or the product of a
// column and a row could ask for terabytes.
void evaluator::check_cells(std::size_t r, std::size_t c, const expr& e) const {
    if (r != 0 && c > max_cells / r)
        fail(fmt::format("{} would be [{}, {}], {} cells, more than the limit of 2^28 = {}", e.text,
                         r, c, static_cast<double>(r) * static_cast<double>(c), max_cells));
}

value evaluator::elementwise(const expr& e, const value& a, const value& b) {
    if (a.is_scalar() && b.is_scalar()) return value::scalar(apply(e.op, a.number, b.number));
    std::size_t h = heads(e, a, b);
    matrix box_a(1, 1, a.number), box_b(1, 1, b.number);
    std::vector<matrix> out;
    for (std::size_t i = 0; i < h; ++i) {
        const matrix &A = head(a, i, box_a), &B = head(b, i, box_b);
        // An [n, 1] column and a [1, m] row broadcast to [n, m]: refuse it before allocating.
        check_cells(std::max(A.rows, B.rows), std::max(A.cols, B.cols), e);
        auto m = combine(e.op, A, B);
        if (!m)
            fail(fmt::format("'{}' needs equal shapes, or a scalar, a [1, d] row or an [n, 1] "
                             "column to broadcast: {}, {}",
                             e.op, described(*e.args[0], a), described(*e.args[1], b)));
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
    if (a.is_stack() || b.is_stack()) return value::stack(std::move(out), rows, cols);
    return value::of(std::move(out.front()), rows, cols);
}

value evaluator::matmul(const expr& e, const value& a, const value& b) {
    const expr& le = *e.args[0];
    const expr& re = *e.args[1];
    if (a.is_scalar() || b.is_scalar())
        fail(fmt::format("@ multiplies matrices, and {}; use * to scale by a number",
                         a.is_scalar() ? described(le, a) : described(re, b)));
    std::size_t h = heads(e, a, b);
    std::vector<matrix> out(h);
    for (std::size_t i = 0; i < h; ++i) {
        const matrix& A = head(a, i, a.mat());
        const matrix& B = head(b, i, b.mat());
        if (A.cols != B.rows)
            fail(fmt::format("@ needs the columns of the left side to equal the rows of the "
                             "right side: {}, {}", described(le, a), described(re, b)));
        check_cells(A.rows, B.cols, e);
        blas::gemm(out[i], A, blas::trans::no, B, blas::trans::no);  // out[i]: [A.rows, B.cols]
    }
    if (a.is_stack() || b.is_stack()) return value::stack(std::move(out), a.rows, b.cols);
    return value::of(std::move(out.front()), a.rows, b.cols);
}

void collect_names(const expr& e, std::vector<std::string>& out) {
    if (e.k == expr::kind::name && std::find(out.begin(), out.end(), e.name) == out.end())
        out.push_back(e.name);
    for (const expr_ptr& a : e.args) collect_names(*a, out);
}

}  // namespace

value evaluate(const expr& e, const workspace& ws, eval_context& ctx) {
    return evaluator(ws, ctx).eval(e);
}

void run_formula(const formula& f, workspace& ws, eval_context& ctx) {
    for (const statement& st : f.statements) {
        ctx.where = st.where;
        ctx.statement_text = st.text;
        value v = evaluate(*st.rhs, ws, ctx);
        ws[st.target] = std::move(v);
    }
}

std::vector<std::string> names_read(const expr& e) {
    std::vector<std::string> out;
    collect_names(e, out);
    return out;
}

}  // namespace qkv
