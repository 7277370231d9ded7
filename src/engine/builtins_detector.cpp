// What a head does, read off its weights as TransformerLens's head detector reads it
// (transformer_lens/head_detector.py, error measure "mul"): a detection pattern P of 0s and 1s
// below or on the diagonal marks the cells a kind of head looks at, and a head's score is the
// share of its weight on them, sum(A ∘ P) / sum(A). The patterns come from the sentence's tokens,
// the row labels of X: previous-token (i → i − 1), duplicate-token (i → an earlier position
// holding the same token) and induction (i → the position after such an earlier occurrence).
#include "builtin_functions.hpp"

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// The tokens X's rows are labelled with, one per row.
const std::vector<std::string>& tokens_of(const value& X, const char* fn, const eval_context& ctx) {
    const matrix& M = need_matrix(X, fn, "X", ctx);
    if (X.rows.names.size() != M.rows)
        formula_error(ctx, said("{}(X): X's rows must be labelled with the sentence's tokens (the scenario's X is)", fn));
    return X.rows.names;
}

value pattern_of(matrix P, const std::vector<std::string>& tokens) {
    return value::of(std::move(P), {tokens, "queries"}, {tokens, "keys"});  // [n, n]
}

// duplicate[i, j] = 1 where token j is token i and j < i: the diagonal is left out, since a token
// is always a duplicate of itself.
matrix duplicates(const std::vector<std::string>& tokens) {
    const std::size_t n = tokens.size();
    matrix P(n, n);  // [n, n]
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j) P(i, j) = tokens[i] == tokens[j] ? 1.0f : 0.0f;
    return P;
}

}  // namespace

value previous_token_pattern_fn(const args_t& a, eval_context& ctx) {
    const std::size_t n = whole(a[0], 1, "previous_token_pattern", "n", ctx);
    need_cells(n, n, "previous_token_pattern", ctx);
    matrix P(n, n);  // [n, n]
    for (std::size_t i = 1; i < n; ++i) P(i, i - 1) = 1.0f;
    return value::of(std::move(P), {{}, "queries"}, {{}, "keys"});
}

value duplicate_token_pattern_fn(const args_t& a, eval_context& ctx) {
    const std::vector<std::string>& tokens = tokens_of(a[0], "duplicate_token_pattern", ctx);
    return pattern_of(duplicates(tokens), tokens);
}

// The duplicate pattern one column to the right: i looks at j + 1 when token j is token i (j < i),
// which is the position i itself when token i − 1 is token i.
value induction_pattern_fn(const args_t& a, eval_context& ctx) {
    const std::vector<std::string>& tokens = tokens_of(a[0], "induction_pattern", ctx);
    const matrix D = duplicates(tokens);
    const std::size_t n = tokens.size();
    matrix P(n, n);  // [n, n]
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 1; j <= i; ++j) P(i, j) = D(i, j - 1);
    return pattern_of(std::move(P), tokens);
}

// sum(A ∘ P) / sum(A) for a matrix of weights, or for each head of a stack ([h, 1]).
value head_score_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "head_score", "A", ctx);
    const matrix& P = need_matrix(a[1], "head_score", "P", ctx);
    for (const matrix& A : a[0].mats)
        if (A.rows != P.rows || A.cols != P.cols)
            formula_error(ctx, said("head_score(A, P): each head of A must have P's shape {}, got {}", a[1].shape_str(),
                                    a[0].shape_str()));
    auto score = [&](const matrix& A) {
        double on = 0, all = 0;
        for (std::size_t i = 0; i < A.rows; ++i)
            for (std::size_t j = 0; j < A.cols; ++j) on += double(A(i, j)) * P(i, j), all += A(i, j);
        return all == 0 ? 0.0f : static_cast<float>(on / all);
    };
    if (!a[0].is_stack()) return value::scalar(score(a[0].mats.front()));
    matrix out(a[0].mats.size(), 1);  // [h, 1]
    for (std::size_t h = 0; h < a[0].mats.size(); ++h) out(h, 0) = score(a[0].mats[h]);
    return value::of(std::move(out), {{}, "heads"}, {});
}

}  // namespace qkv::builtin_functions
