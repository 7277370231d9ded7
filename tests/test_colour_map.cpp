// The one colour map (colour_map.hpp): viridis through matplotlib's published stops, straight
// lines between them, and what a weight outside [0, 1] or not a number is painted.
#define BOOST_TEST_MODULE colour_map
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "qkv/colour_map.hpp"

namespace {

void check(qkv::rgb8 c, int r, int g, int b) {
    BOOST_TEST(c.r == r);
    BOOST_TEST(c.g == g);
    BOOST_TEST(c.b == b);
}

}  // namespace

// matplotlib's viridis at 0, 0.25, 0.5, 0.75 and 1: #440154, #3b528b, #21918c, #5ec962, #fde725.
BOOST_AUTO_TEST_CASE(the_five_stops_are_matplotlibs) {
    check(qkv::viridis(0.0f), 0x44, 0x01, 0x54);
    check(qkv::viridis(0.25f), 0x3b, 0x52, 0x8b);
    check(qkv::viridis(0.5f), 0x21, 0x91, 0x8c);
    check(qkv::viridis(0.75f), 0x5e, 0xc9, 0x62);
    check(qkv::viridis(1.0f), 0xfd, 0xe7, 0x25);
}

// Halfway between the first two stops: (68 + 59) / 2 = 63.5 → 64, (1 + 82) / 2 = 41.5 → 42,
// (84 + 139) / 2 = 111.5 → 112 (rounded half away from zero); between the last two at 7/8:
// (94 + 253) / 2 = 173.5 → 174, (201 + 231) / 2 = 216, (98 + 37) / 2 = 67.5 → 68.
BOOST_AUTO_TEST_CASE(between_stops_a_straight_line) {
    check(qkv::viridis(0.125f), 64, 42, 112);
    check(qkv::viridis(0.875f), 174, 216, 68);
}

BOOST_AUTO_TEST_CASE(outside_the_range_and_not_a_number) {
    check(qkv::viridis(-3.0f), 0x44, 0x01, 0x54);
    check(qkv::viridis(7.0f), 0xfd, 0xe7, 0x25);
    check(qkv::viridis(std::numeric_limits<float>::quiet_NaN()), 0x44, 0x01, 0x54);
    check(qkv::viridis(std::numeric_limits<float>::infinity()), 0x44, 0x01, 0x54);
}
