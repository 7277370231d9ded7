// What the suites of lessons 0 and 9–14 read a run with: its workspace and a sub-step's values by
// name, a built-in called as a formula calls it; and the reference attention and Frobenius norm
// their claims are held to (plain loops and the reference kernels, never the engine's path).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "qkv/builtins.hpp"
#include "qkv/kernels.hpp"
#include "qkv/lesson.hpp"
#include "support/lessons.hpp"

namespace qkv::test {

// A workspace entry of the run by name: any value, a matrix, a number (missing or of another kind:
// the test stops there).
inline const value& ws_value(const qkv::lesson_run& r, const std::string& name) {
    auto it = r.ws.find(name);
    BOOST_TEST_REQUIRE((it != r.ws.end()), "workspace lacks " << name);
    return it->second;
}
inline const matrix& ws_mat(const qkv::lesson_run& r, const std::string& name) {
    const value& v = ws_value(r, name);
    BOOST_TEST_REQUIRE(v.is_matrix(), name << " is not a matrix");
    return v.mat();
}
inline float ws_num(const qkv::lesson_run& r, const std::string& name) {
    const value& v = ws_value(r, name);
    BOOST_TEST_REQUIRE(v.is_scalar(), name << " is not a scalar");
    return v.number;
}

// A matrix a sub-step shows, by name.
inline const matrix& step_mat(const qkv::sub_step& s, const std::string& name) {
    for (const auto& [n, v] : s.values)
        if (n == name) return v.mat();
    BOOST_FAIL("sub-step '" << s.label << "' has no " << name);
    return s.values.front().second.mat();
}

// a − b entry by entry, and the Frobenius norm ‖m‖ the error claims are measured in.
inline matrix minus(matrix a, const matrix& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a.data[i] -= b.data[i];
    return a;
}
inline double fro(const matrix& m) {
    double s = 0;
    for (float x : m.data) s += double(x) * x;
    return std::sqrt(s);
}

// softmax(Q K^T / sqrt(d_k) [+ causal mask]) V by the reference kernels.
inline matrix attention_ref(const matrix& Q, const matrix& K, const matrix& V, bool causal = false) {
    matrix S = scaled(kernels::matmul_ref(Q, kernels::transpose(K)), 1.0f / std::sqrt(float(K.cols)));
    if (causal)
        for (std::size_t i = 0; i < S.rows; ++i)
            for (std::size_t j = i + 1; j < S.cols; ++j) S(i, j) = -INFINITY;
    return kernels::matmul_ref(kernels::softmax_rows(S), V);
}

// Call a built-in the way a formula does, recording its sub-steps.
inline value call(const std::string& name, std::vector<value> args, std::vector<qkv::sub_step>* steps = nullptr) {
    const qkv::builtin* b = qkv::find_builtin(name);
    BOOST_TEST_REQUIRE(b != nullptr, "no built-in " << name);
    qkv::eval_context ctx;
    ctx.steps = steps;
    return b->fn(args, ctx);
}
inline value num(float x) { return value::scalar(x); }

}  // namespace qkv::test
