// value: the factories, shapes as numbers and as text, finiteness; plus the matrix helpers
// and input_error's message, which every value-producing path leans on.
#define BOOST_TEST_MODULE value
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "qkv/error.hpp"
#include "qkv/value.hpp"

using qkv::matrix;
using qkv::value;
using shape = std::vector<std::size_t>;

BOOST_AUTO_TEST_CASE(scalar_shape) {
    const value v = value::scalar(2.5f);
    BOOST_TEST(v.is_scalar());
    BOOST_TEST(v.number == 2.5f);
    BOOST_TEST((v.shape() == shape{}));
    BOOST_TEST(v.shape_str() == "[]");
}

BOOST_AUTO_TEST_CASE(matrix_shape_and_labels) {
    const value v = value::of(matrix(3, 4), {{"a", "b", "c"}, "tokens"}, {{}, "features"});
    BOOST_TEST(v.is_matrix());
    BOOST_TEST((v.shape() == shape{3, 4}));
    BOOST_TEST(v.shape_str() == "[3, 4]");
    BOOST_TEST(v.rows.names.size() == 3u);
    BOOST_TEST(v.rows.axis == "tokens");
    BOOST_TEST(v.cols.axis == "features");
    BOOST_TEST(!v.weights);
}

BOOST_AUTO_TEST_CASE(stack_shape) {
    const value v = value::stack({matrix(3, 2), matrix(3, 2)});
    BOOST_TEST(v.is_stack());
    BOOST_TEST((v.shape() == shape{2, 3, 2}));
    BOOST_TEST(v.shape_str() == "[2, 3, 2]");
}

BOOST_AUTO_TEST_CASE(finiteness) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    BOOST_TEST(value::scalar(1).all_finite());
    BOOST_TEST(!value::scalar(nan).all_finite());
    BOOST_TEST(value::of(matrix::of({{1, 2}, {3, 4}})).all_finite());
    BOOST_TEST(!value::of(matrix::of({{1, -inf}})).all_finite());
    // The bad number hides in the second head.
    BOOST_TEST(!value::stack({matrix(2, 2), matrix::of({{0, 0}, {nan, 0}})}).all_finite());
}

BOOST_AUTO_TEST_CASE(matrix_construction) {
    const matrix m = matrix::of({{1, 2, 3}, {4, 5, 6}});
    BOOST_TEST(m.rows == 2u);
    BOOST_TEST(m.cols == 3u);
    BOOST_TEST(m(1, 0) == 4.0f);  // row-major: data[1 * 3 + 0]
    BOOST_TEST(qkv::shape_str(m) == "[2, 3]");
    BOOST_CHECK_THROW(matrix(2, 2, std::vector<float>{1, 2, 3}), std::invalid_argument);
    BOOST_CHECK_THROW(matrix::of({{1, 2}, {3}}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(max_abs_diff_by_hand) {
    // |1-1|, |2-2.5|, |3-1|, |4-4| -> max 2
    BOOST_TEST(qkv::max_abs_diff(matrix::of({{1, 2}, {3, 4}}), matrix::of({{1, 2.5f}, {1, 4}})) == 2.0f);
    BOOST_TEST(std::isinf(qkv::max_abs_diff(matrix(2, 3), matrix(3, 2))));
}

BOOST_AUTO_TEST_CASE(matrix_formats_per_cell) {
    BOOST_TEST(fmt::format("{:.1f}", matrix::of({{1, 2}, {3, 4}})) == "[[1.0, 2.0], [3.0, 4.0]]");
}

BOOST_AUTO_TEST_CASE(source_loc_text) {
    BOOST_TEST((qkv::source_loc{"a.toml", 3, 7}.str()) == "a.toml:3:7");
    BOOST_TEST((qkv::source_loc{"a.toml", 3, 0}.str()) == "a.toml:3");
    BOOST_TEST((qkv::source_loc{"a.toml", 0, 0}.str()) == "a.toml");
}

BOOST_AUTO_TEST_CASE(input_error_message) {
    const qkv::input_error e({"x.csv", 2, 0}, "row 2 has 3 cells, expected 4");
    BOOST_TEST(std::string(e.what()) == "x.csv:2: row 2 has 3 cells, expected 4");
    BOOST_TEST(e.message() == "row 2 has 3 cells, expected 4");
    BOOST_TEST(e.where().line == 2);
    BOOST_TEST(std::string(qkv::input_error("no file").what()) == "no file");
    BOOST_TEST(std::string(qkv::input_error(qkv::source_loc{}, "no file").what()) == "no file");
}

// The 2^28-cell limit holds for a whole value: one [16384, 16384] matrix is exactly 2^14 · 2^14 =
// 2^28 cells and fits; eight heads of it are 2^31 and do not, though each head alone would.
BOOST_AUTO_TEST_CASE(the_cell_limit_counts_every_head_of_a_stack) {
    BOOST_TEST(qkv::within_cell_limit(16384, 16384));
    BOOST_TEST(!qkv::within_cell_limit(16384, 16385));
    BOOST_TEST(!qkv::within_cell_limit(16384, 16384, 8));
    BOOST_TEST(qkv::within_cell_limit(8192, 4096, 8));  // 2^13 · 2^12 · 2^3 = 2^28
    BOOST_TEST(!qkv::within_cell_limit(8192, 4096, 9));
    BOOST_TEST(!qkv::within_cell_limit(std::size_t{1} << 40, std::size_t{1} << 40, 8));  // no overflow to a small number
    BOOST_TEST(qkv::cell_limit_message(16384, 16384, 8).find("[8, 16384, 16384]") != std::string::npos);
}
