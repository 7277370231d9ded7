// Matrices compared as numbers, with a tolerance the caller names and explains. Two ways:
// entry by entry within an absolute tolerance (infinities must match exactly: a causal mask's −∞
// is a value, not an error), and the largest difference relative to the size of the expected
// values, for products whose entries grow with their inner dimension.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <boost/test/unit_test.hpp>

#include "qkv/matrix.hpp"

namespace qkv::test {

// The tolerance of float32 arithmetic on values of order one: epsilon is 1.19e-7, and a few dozen
// operations (a dot product of length d_model, a softmax row) lose a few dozen of those.
constexpr float float_rounding = 1e-5f;

// Entry by entry, |got - want| <= tol; infinities exactly. `what` names the matrix in a failure.
inline void check_close(const matrix& got, const matrix& want, float tol = float_rounding, const std::string& what = "") {
    BOOST_TEST_REQUIRE(got.rows == want.rows, what << ": rows");
    BOOST_TEST_REQUIRE(got.cols == want.cols, what << ": cols");
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::isinf(want.data[i]))
            BOOST_TEST(got.data[i] == want.data[i], what << " cell " << i << ": got " << got.data[i]);
        else
            BOOST_TEST(std::fabs(got.data[i] - want.data[i]) <= tol,
                       what << " cell " << i << ": got " << got.data[i] << ", want " << want.data[i]);
    }
}

// Largest |a - b| relative to the largest |b| (at least 1), so big products are judged fairly.
inline float rel_diff(const matrix& a, const matrix& b) {
    float scale = 1.0f;
    for (float x : b.data) scale = std::fmax(scale, std::fabs(x));
    return max_abs_diff(a, b) / scale;
}

}  // namespace qkv::test
