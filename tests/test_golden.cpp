// The golden comparison itself (tests/support/golden.hpp): what it forgives — the last printed
// digit, the rounding noise of an error figure, one heatmap shade — and what it must not.
#define BOOST_TEST_MODULE golden
#include <boost/test/unit_test.hpp>

#include "support/golden.hpp"

using qkv::test::golden_difference;

BOOST_AUTO_TEST_CASE(identical_text_agrees) {
    BOOST_TEST(!golden_difference("a 1.5\nb\n", "a 1.5\nb\n"));
}

BOOST_AUTO_TEST_CASE(numbers_agree_within_one_unit_of_the_last_decimal) {
    // -0.1775 − (−0.1774) = −0.0001: one unit of the fourth decimal
    BOOST_TEST(!golden_difference("2    0.0790  -0.1775  …\n", "2    0.0790  -0.1774  …\n"));
    BOOST_TEST(!golden_difference("x 3.6838\n", "x 3.6839\n"));
    // 0.0002 apart is two units: a real change
    BOOST_TEST(!!golden_difference("x 3.6837\n", "x 3.6839\n"));
    // two decimals: 0.72 against 0.73 is one unit, 0.72 against 0.74 two
    BOOST_TEST(!golden_difference("gives 0.72;\n", "gives 0.73;\n"));
    BOOST_TEST(!!golden_difference("gives 0.72;\n", "gives 0.74;\n"));
    // a sign that flips at zero keeps the column: the spaces before it shift by one
    BOOST_TEST(!golden_difference("a   0.0000  1\n", "a  -0.0000  1\n"));
    BOOST_TEST(!!golden_difference("a   0.0000   1\n", "a  -0.0000  1\n"));
}

BOOST_AUTO_TEST_CASE(rounding_error_figures_agree_within_their_order_of_magnitude) {
    // 1.76e-07 / 1.68e-07: log10 ratio 0.02
    BOOST_TEST(!golden_difference("error_full = 1.76e-07  (output)\n", "error_full = 1.68e-07  (output)\n"));
    // 5.96e-08 / 1.2e-07: log10 ratio 0.3, still the same order
    BOOST_TEST(!golden_difference("e 5.96e-08\n", "e 1.2e-07\n"));
    // exactly 0 on one kernel, 5.96e-08 on another: both below 1e-5, rounding noise
    BOOST_TEST(!golden_difference("same = 0  (output)\n", "same = 5.96e-08  (output)\n"));
    BOOST_TEST(!!golden_difference("same = 0  (output)\n", "same = 2.5e-03  (output)\n"));
    // 1e-07 against 3e-05: 2.5 orders apart
    BOOST_TEST(!!golden_difference("e 1.00e-07\n", "e 3.00e-05\n"));
    // 2e-03 against 1.5e-03: the same order, not noise
    BOOST_TEST(!golden_difference("e 2.0e-03\n", "e 1.5e-03\n"));
}

BOOST_AUTO_TEST_CASE(words_labels_and_digits_in_names_are_exact) {
    BOOST_TEST(!!golden_difference("Row 苹果\n", "Row 甜\n"));
    BOOST_TEST(!!golden_difference("d_k = 4 W_Q\n", "d_k = 4 W_K\n"));
    // a digit inside a name is text, not a number one unit away
    BOOST_TEST(!!golden_difference("s23\n", "s24\n"));
    // an integer is a count (a shape, a stage number, a token index): exact
    BOOST_TEST(!!golden_difference("[3, 4]\n", "[3, 5]\n"));
    BOOST_TEST(!!golden_difference("2/5\n", "3/5\n"));
}

BOOST_AUTO_TEST_CASE(a_heatmap_cell_may_move_one_shade) {
    BOOST_TEST(!golden_difference("苹果  ░░░░░░  ▒▒▒▒▒▒\n", "苹果  ▒▒▒▒▒▒  ▒▒▒▒▒▒\n"));
    BOOST_TEST(!!golden_difference("苹果  ░░░░░░  ▒▒▒▒▒▒\n", "苹果  ▓▓▓▓▓▓  ▒▒▒▒▒▒\n"));
}

BOOST_AUTO_TEST_CASE(a_difference_names_the_line_and_both_versions) {
    const auto d = golden_difference("a\nb 1.0\nc\n", "a\nb 2.0\nc\n");
    BOOST_TEST_REQUIRE(!!d);
    BOOST_TEST(d->find("line 2") != std::string::npos);
    BOOST_TEST(d->find("got:    b 1.0") != std::string::npos);
    BOOST_TEST(d->find("golden: b 2.0") != std::string::npos);
    BOOST_TEST(!!golden_difference("a\nb\n", "a\nb\nc\n"));
    BOOST_TEST(!!golden_difference("a\nb", "a\nb\n"));
}
