// The interface's catalogues as the program reads them (catalogue.hpp, tr): po/zh.po compiled in,
// read with no locale installed (the tests run under C.UTF-8), the English for en and for a
// message no catalogue has, and nothing for a language without a catalogue.
#define BOOST_TEST_MODULE catalogue
#include <boost/test/unit_test.hpp>

#include <string>

#include <fmt/format.h>

#include "qkv/catalogue.hpp"
#include "qkv/i18n.hpp"

using qkv::lang;

BOOST_AUTO_TEST_CASE(chinese_comes_from_po_zh_po) {
    // the translations as po/zh.po writes them
    BOOST_TEST(qkv::tr(lang::zh, "rows") == "行");
    BOOST_TEST(qkv::tr(lang::zh, "row sums") == "行和");
    BOOST_TEST(qkv::tr(lang::zh, "queries") == "查询");
    // a message with a placeholder stays a format string: "第 {} 课"
    BOOST_TEST(fmt::format(fmt::runtime(qkv::tr(lang::zh, "Lesson {}")), 7) == "第 7 课");
    BOOST_TEST(fmt::format(fmt::runtime(qkv::tr(lang::zh, "{} stages")), 6) == "6 个阶段");
}

BOOST_AUTO_TEST_CASE(english_is_the_message_itself) {
    BOOST_TEST(qkv::tr(lang::en, "rows") == "rows");
    BOOST_TEST(qkv::tr(lang::en, "{} stages") == "{} stages");
    // a message the catalogue lacks comes back as it was (the catalogues test fails on it)
    BOOST_TEST(qkv::tr(lang::zh, "no such message") == "no such message");
}

BOOST_AUTO_TEST_CASE(a_language_without_a_catalogue_has_no_words) {
    BOOST_TEST(qkv::catalogue_lookup("xx", "rows") == nullptr);
    BOOST_TEST(qkv::catalogue_lookup("zh", "no such message") == nullptr);
    BOOST_TEST(std::string(qkv::catalogue_lookup("zh", "columns")) == "列");
}
