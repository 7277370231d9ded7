// The formula language's front end: a lexer and a recursive-descent parser from the lines of a
// formula to the syntax tree (formula_tree.hpp), with file:line:column on every error; and the
// names a tree reads. formula_eval.cpp runs the tree.
#include "qkv/formula.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "qkv/utf8.hpp"
#include "formula_tree.hpp"

namespace qkv {

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
        return first_column + static_cast<int>(utf8::count(text.substr(0, std::min(byte, text.size()))));
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
std::string char_at(std::string_view s, std::size_t i) { return std::string(s.substr(i, utf8::next(s, i) - i)); }

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
        throw input_error(src.loc(i), said("malformed number '{}'", s.substr(i, k - i)));
    }
    token t{tok::number, std::string(s.substr(i, j - i)), i, j};
    t.number = std::strtof(t.text.c_str(), nullptr);
    if (!std::isfinite(t.number))
        throw input_error(src.loc(i), said("number '{}' is too large for a float", t.text));
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
                throw input_error(src.loc(i), said("expected 'T' after '^' (A^T is the transpose; there is no power operator)"));
            out.push_back({tok::transpose, "^T", i, i + 2});
            i += 2;
        } else if (std::string_view("()[],+-*/@=").find(c) != std::string_view::npos) {
            out.push_back({tok::punct, std::string(1, c), i, i + 1});
            ++i;
        } else {
            throw input_error(src.loc(i), said("unexpected character '{}'", char_at(s, i)));
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
        return input_error(src_.loc(offset), said("the formula is more than {} levels deep (each operator, call, index and "
                                                  "parenthesis is a level)", max_depth));
    }

    const token& peek() const { return toks_[pos_]; }
    bool at(std::string_view punct) const {
        return peek().t == tok::punct && peek().text == punct;
    }
    const token& take() {
        last_end_ = toks_[pos_].end;
        return toks_[pos_++];
    }
    [[noreturn]] void fail(const token& at, const sentence& expected) const {
        const sentence found = at.t == tok::end ? said("the end of the line") : sentence::plain("'" + at.text + "'");
        throw input_error(src_.loc(at.begin), said("expected {}, found {}", expected, found));
    }
    void expect(std::string_view punct, const sentence& expected) {
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
    if (target.t != tok::name) fail(target, said("a name to assign to, as in `S = Q @ K^T`"));
    take();
    if (!at("=")) fail(peek(), said("'=' after '{}'", target.text));
    take();
    statement st;
    st.target = target.text;
    st.rhs = expression();
    if (peek().t != tok::end) fail(peek(), said("an operator or the end of the line"));
    st.text = std::string(src_.text.substr(target.begin, last_end_ - target.begin));
    st.where = src_.loc(target.begin);
    return st;
}

expr_ptr parser::parse_lone_expression() {
    expr_ptr e = expression();
    if (peek().t != tok::end) fail(peek(), said("an operator or the end of the expression"));
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
            expect("]", said("']' to close '[' opened at column {}", open_col));
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
        expect(")", said("')' to close '(' opened at column {}", open_col));
        // The same node, quoted with its parentheses.
        auto n = std::make_shared<expr>(*inner);
        n->begin = open.begin;
        n->where = src_.loc(open.begin);
        return done(n);
    }
    fail(t, said("a number, a name or '('"));
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
        expect(")", said("',' or ')' to close '{}(' opened at column {}", name.text, open_col));
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
        throw input_error(where, said("expected a statement such as `S = Q @ K^T`, found none"));
    return f;
}

expr_ptr parse_expression(std::string_view text, const source_loc& where) {
    expr_ptr result;
    for (const line_source& line : split_lines(text, where)) {
        parser p(line);
        if (p.blank()) continue;
        if (result)
            throw input_error(line.loc(line.text.find_first_not_of(" \t")),
                              said("expected one expression, found a second line"));
        result = p.parse_lone_expression();
    }
    if (!result) throw input_error(where, said("expected an expression, found none"));
    return result;
}

namespace {

void collect_names(const expr& e, std::vector<std::string>& out) {
    if (e.k == expr::kind::name && std::find(out.begin(), out.end(), e.name) == out.end())
        out.push_back(e.name);
    for (const expr_ptr& a : e.args) collect_names(*a, out);
}

}  // namespace

std::vector<std::string> names_read(const expr& e) {
    std::vector<std::string> out;
    collect_names(e, out);
    return out;
}

}  // namespace qkv
