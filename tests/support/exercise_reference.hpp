// The plain reference the exercise suites hold answers to, independent of the formula language and
// of BLAS: double-precision loops, and the pipeline of a scenario (苹果很甜) worked out with them.
#pragma once

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "qkv/lesson.hpp"
#include "qkv/matrix.hpp"
#include "qkv/scenario.hpp"

namespace qkv::test {

using mat = std::vector<std::vector<double>>;

inline mat of(const matrix& m) {
    mat out(m.rows, std::vector<double>(m.cols));
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t j = 0; j < m.cols; ++j) out[i][j] = m(i, j);
    return out;
}
inline mat mul(const mat& a, const mat& b) {
    mat out(a.size(), std::vector<double>(b[0].size(), 0.0));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t k = 0; k < b.size(); ++k)
            for (std::size_t j = 0; j < b[0].size(); ++j) out[i][j] += a[i][k] * b[k][j];
    return out;
}
inline mat tr(const mat& a) {
    mat out(a[0].size(), std::vector<double>(a.size()));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a[0].size(); ++j) out[j][i] = a[i][j];
    return out;
}
// The square root of the sum of every entry squared.
inline double frobenius(const mat& a) {
    double sum = 0;
    for (const auto& r : a)
        for (double x : r) sum += x * x;
    return std::sqrt(sum);
}
inline mat scaled(mat a, double by) {
    for (auto& r : a)
        for (double& x : r) x /= by;
    return a;
}
inline mat exp_of(mat a) {
    for (auto& r : a)
        for (double& x : r) x = std::exp(x);
    return a;
}
inline mat softmax_rows(const mat& a) {
    mat e = exp_of(a);  // small scores here: no overflow, no max needed
    for (auto& r : e) {
        double sum = 0;
        for (double x : r) sum += x;
        for (double& x : r) x /= sum;
    }
    return e;
}
inline mat softmax_columns(const mat& a) { return tr(softmax_rows(tr(a))); }
inline mat columns(const mat& a, std::size_t from, std::size_t count) {
    mat out;
    for (auto& r : a) out.emplace_back(r.begin() + from, r.begin() + from + count);
    return out;
}
// −∞ where keep(i, j) is false: exp gives exactly 0 there.
template <class F>
mat masked(mat a, F keep) {
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a[i].size(); ++j)
            if (!keep(i, j)) a[i][j] = -INFINITY;
    return a;
}

struct pipeline {  // 苹果很甜, one head
    mat X, W_Q, W_K, W_V, W_O, Q, K, V, S, S_scaled;
    explicit pipeline(const std::string& file) : pipeline(load_scenario((std::filesystem::path(data_dir()) / file).string())) {}
    explicit pipeline(const scenario& s) {  // a scenario's own numbers, a student's variant among them
        X = of(s.matrices.at("X")), W_Q = of(s.matrices.at("W_Q")), W_K = of(s.matrices.at("W_K"));
        W_V = of(s.matrices.at("W_V")), W_O = of(s.matrices.at("W_O"));
        Q = mul(X, W_Q), K = mul(X, W_K), V = mul(X, W_V);
        S = mul(Q, tr(K));                                            // S: [n, n]
        S_scaled = scaled(S, std::sqrt(static_cast<double>(K[0].size())));
    }
    // Head h (from 0) of width d_k: its slice of the projections.
    mat head(const mat& W, std::size_t h, std::size_t d_k) const { return mul(X, columns(W, h * d_k, d_k)); }
};

}  // namespace qkv::test
