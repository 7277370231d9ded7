// display_width and pad: CJK characters take two terminal columns, everything else one.
#define BOOST_TEST_MODULE display_width
#include <boost/test/unit_test.hpp>

#include "qkv/display_width.hpp"

using qkv::display_width;
using qkv::pad;

BOOST_AUTO_TEST_CASE(cjk_counts_two_columns) {
    BOOST_TEST(display_width("苹果") == 4u);  // two ideographs × 2
    BOOST_TEST(display_width("很") == 2u);
    BOOST_TEST(display_width("甜") == 2u);
    BOOST_TEST(display_width("abc") == 3u);
    BOOST_TEST(display_width("") == 0u);
    BOOST_TEST(display_width("a苹b") == 4u);  // 1 + 2 + 1
    BOOST_TEST(display_width("-0.5000") == 7u);
}

BOOST_AUTO_TEST_CASE(symbols_used_in_tables_are_narrow) {
    BOOST_TEST(display_width("…") == 1u);
    BOOST_TEST(display_width("·") == 1u);
    BOOST_TEST(display_width("░▒▓█") == 4u);
    BOOST_TEST(display_width("（") == 2u);  // fullwidth parenthesis U+FF08
}

BOOST_AUTO_TEST_CASE(pad_fills_to_display_width) {
    BOOST_TEST(pad("很", 4) == "很  ");         // 2 columns + 2 spaces
    BOOST_TEST(pad("很", 4, false) == "  很");
    BOOST_TEST(pad("苹果", 4) == "苹果");        // already 4 wide
    BOOST_TEST(pad("abcdef", 3) == "abcdef");    // never cut
    BOOST_TEST(pad("ab", 5, false) == "   ab");
    BOOST_TEST(pad("", 2) == "  ");
}

// Issue 27, item 15: emoji with emoji presentation take two columns in a terminal (Unicode's
// EastAsianWidth "W"); fmt's measure counted 🚀 ⭐ ⚡ 🀄 as one and pushed a row out of line. A
// combining mark, a variation selector and a zero-width joiner take none.
BOOST_AUTO_TEST_CASE(emoji_take_two_columns_and_marks_none) {
    for (std::string_view e : {"🚀", "⭐", "⚡", "🀄", "😀", "🤖", "🫠"}) BOOST_TEST(display_width(e) == 2u, e);
    BOOST_TEST(display_width("e\xcc\x81") == 1u);      // e + U+0301 combining acute: é
    BOOST_TEST(display_width("\xe2\x9d\xa4\xef\xb8\x8f") == 1u);  // ❤ (narrow) + U+FE0F: the selector adds nothing
    BOOST_TEST(display_width("a\xe2\x80\x8d" "b") == 2u);  // U+200D joins, takes no column
    BOOST_TEST(display_width("\xff") == 1u);           // a stray byte shows as one replacement mark
    BOOST_TEST(display_width("🚀 rocket") == 9u);      // 2 + 1 + 6
    BOOST_TEST(pad("⭐", 4) == "⭐  ");
}

// elide cuts to a width, never inside a character, and says so with "…" (one column).
BOOST_AUTO_TEST_CASE(elide_cuts_by_columns_and_marks_the_cut) {
    using qkv::elide;
    BOOST_TEST(elide("abcdef", 6) == "abcdef");   // fits: as it is
    BOOST_TEST(elide("abcdef", 4) == "abc…");     // 3 + 1
    BOOST_TEST(elide("苹果很甜", 5) == "苹果…");  // 2 + 2 + 1; 很 would make 7
    BOOST_TEST(elide("苹果很甜", 6) == "苹果…");  // 2 + 2 + 2 + 1 = 7 > 6
    BOOST_TEST(elide("🚀🚀🚀", 4) == "🚀…");      // 2 + 1; a second 🚀 would make 5
    BOOST_TEST(elide("abc", 0) == "");
    BOOST_TEST(elide("abc", 1) == "…");
}
