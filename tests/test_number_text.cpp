// Numbers as quotes and table cells write them (number_text.hpp): each style, and no sign on a
// number printed as zero. Every expected string is the rounding worked out in the comment.
#define BOOST_TEST_MODULE number_text
#include <boost/test/unit_test.hpp>

#include "qkv/number_text.hpp"

using qkv::number_style;
using qkv::number_text;

BOOST_AUTO_TEST_CASE(each_style) {
    BOOST_TEST(number_text(0.53471, number_style::fixed, 4) == "0.5347");
    BOOST_TEST(number_text(-1.25, number_style::fixed, 2) == "-1.25");
    BOOST_TEST(number_text(0.00012, number_style::scientific, 1) == "1.2e-04");
    BOOST_TEST(number_text(0.5347, number_style::percent, 1) == "53.5%");     // 53.47 to one decimal
    BOOST_TEST(number_text(2.6, number_style::whole) == "3");
    BOOST_TEST(number_text(-1.5, number_style::whole) == "-2");              // half away from zero
}

BOOST_AUTO_TEST_CASE(a_number_shown_as_zero_has_no_sign) {
    BOOST_TEST(number_text(-0.0001, number_style::fixed, 2) == "0.00");
    BOOST_TEST(number_text(-0.0, number_style::fixed, 4) == "0.0000");
    BOOST_TEST(number_text(-0.0004, number_style::percent, 1) == "0.0%");    // -0.04 % to one decimal
    BOOST_TEST(number_text(-0.0, number_style::scientific, 1) == "0.0e+00");
    BOOST_TEST(number_text(-0.4, number_style::whole) == "0");
    BOOST_TEST(number_text(-0.004, number_style::percent, 1) == "-0.4%");    // not zero: the sign stays
    BOOST_TEST(number_text(-0.00001, number_style::scientific, 1) == "-1.0e-05");
}

// Issue 27, item 13: {x:d} of 1e30 printed -9223372036854775808 (llround past long long is
// undefined). Past 2^53 a double is a whole number already and is written as %.0f: 1e30 is
// 1000000000000000019884624838656 as a double (its nearest, 2^99.66…, exactly).
BOOST_AUTO_TEST_CASE(whole_numbers_past_long_long_are_written_whole) {
    BOOST_TEST(number_text(1e30, number_style::whole) == "1000000000000000019884624838656");
    BOOST_TEST(number_text(-1e30, number_style::whole) == "-1000000000000000019884624838656");
    BOOST_TEST(number_text(9007199254740993.0, number_style::whole) == "9007199254740992");  // 2^53 + 1 rounds to 2^53 as a double
    BOOST_TEST(number_text(123456789.6, number_style::whole) == "123456790");
}
