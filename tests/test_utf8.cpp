// UTF-8 boundaries, counts, decoding and validity (utf8.hpp), and trimming (trim.hpp), on bytes
// written out by hand: 苹 is U+82F9 = E8 8B B9, 果 is U+679C = E6 9E 9C, é is U+00E9 = C3 A9.
#define BOOST_TEST_MODULE utf8
#include <boost/test/unit_test.hpp>

#include <string_view>

#include "qkv/control_text.hpp"
#include "qkv/trim.hpp"
#include "qkv/utf8.hpp"

using namespace qkv;

namespace {
constexpr std::string_view apple = "\xE8\x8B\xB9\xE6\x9E\x9C";  // 苹果, 6 bytes
constexpr std::string_view mixed = "a\xC3\xA9\xE8\x8B\xB9";        // a é 苹: 1 + 2 + 3 bytes
}  // namespace

BOOST_AUTO_TEST_CASE(boundaries_fall_between_characters) {
    BOOST_TEST(utf8::next(apple, 0) == 3u);
    BOOST_TEST(utf8::next(apple, 3) == 6u);
    BOOST_TEST(utf8::next(mixed, 0) == 1u);
    BOOST_TEST(utf8::next(mixed, 1) == 3u);
    for (std::size_t i : {3u, 4u, 5u}) BOOST_TEST(utf8::start_of(apple, i) == 3u);
    BOOST_TEST(utf8::start_of(apple, 6) == 6u);  // the end is a boundary
    BOOST_TEST(utf8::boundary_from(apple, 1) == 3u);
    BOOST_TEST(utf8::boundary_from(apple, 3) == 3u);
    BOOST_TEST(utf8::head(apple, 4) == apple.substr(0, 3));  // not half of 果
    BOOST_TEST(utf8::head(apple, 2).empty());
    BOOST_TEST(utf8::head(apple, 99) == apple);
}

BOOST_AUTO_TEST_CASE(characters_are_counted_and_decoded) {
    BOOST_TEST(utf8::count(apple) == 2u);
    BOOST_TEST(utf8::count(mixed) == 3u);
    BOOST_TEST(utf8::count("") == 0u);
    utf8::decoded p = utf8::decode(apple, 0);
    BOOST_TEST((p.code == 0x82F9 && p.length == 3 && p.ok));
    utf8::decoded e = utf8::decode(mixed, 1);
    BOOST_TEST((e.code == 0xE9 && e.length == 2 && e.ok));
    utf8::decoded stray = utf8::decode(apple, 1);  // 8B continues, it starts nothing
    BOOST_TEST((stray.code == 0x8B && stray.length == 1 && !stray.ok));
}

BOOST_AUTO_TEST_CASE(only_well_formed_text_is_valid) {
    BOOST_TEST(utf8::valid(apple));
    BOOST_TEST(utf8::valid(mixed));
    BOOST_TEST(!utf8::valid("\xE8\x8B"));              // cut short
    BOOST_TEST(!utf8::valid("\xC0\x80"));              // U+0000 in two bytes: overlong
    BOOST_TEST(!utf8::valid("\xED\xA0\x80"));          // U+D800, a surrogate
    BOOST_TEST(!utf8::valid("\xF4\x90\x80\x80"));      // U+110000, past the last code point
    BOOST_TEST(!utf8::valid("\xFF"));                  // no lead byte at all
}

BOOST_AUTO_TEST_CASE(trim_takes_ascii_white_space_off_the_ends) {
    BOOST_TEST(trim(" \t a b \r\n") == "a b");
    BOOST_TEST(trim("\v\f") == "");
    BOOST_TEST(trim_end("  x \n") == "  x");
    BOOST_TEST(trim(apple) == apple);  // no byte of 苹果 is white space
}

// Issue 27, items 10 and 11: the one escaping function writes a byte that starts no character as
// \xNN (a file name in Latin-1), a control as before, and copies every well-formed character whole.
BOOST_AUTO_TEST_CASE(escape_controls_writes_out_bytes_that_are_no_character) {
    BOOST_TEST(qkv::escape_controls("苹果\xff\x1b[2J\xe2\x80\xae") == "苹果\\xff\\x1b[2J\\u202e");
    BOOST_TEST(qkv::escape_controls("a\x80" "b") == "a\\x80b");             // a stray continuation byte
    BOOST_TEST(qkv::escape_controls("\xe8\x8b") == "\\xe8\\x8b");           // 苹 cut short: two bytes, each escaped
    BOOST_TEST(qkv::escape_controls("\xc0\xaf") == "\\xc0\\xaf");           // an overlong '/'
    BOOST_TEST(qkv::escape_controls("Kᵀ · 🚀\ttab") == "Kᵀ · 🚀\ttab");    // well-formed: as it was
    BOOST_TEST(qkv::escape_controls("a\nb", true) == "a\nb");
    BOOST_TEST(qkv::escape_controls("a\nb") == "a\\x0ab");
}
