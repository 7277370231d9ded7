// Log–log charts (loglog.hpp): where the points land, computed here from the logarithms by hand.
#define BOOST_TEST_MODULE loglog
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "qkv/loglog.hpp"

using namespace qkv;

namespace {

// The grid rows of a chart: the lines between the y-label line and the x axis, from the '│' on.
std::vector<std::string> grid_of(const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (std::size_t i = 1; i < lines.size() && lines[i].find("└") == std::string::npos; ++i)
        out.push_back(lines[i].substr(lines[i].find("│") + std::string("│").size()));
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(points_land_where_their_logarithms_say) {
    // x = 1, 10, 100; q = x² runs over y from 1 to 10⁴ (log 0 … 4), l = x over 1 … 100 (log 0 … 2).
    // With 9 rows, log y = 4 is row 0, 2 is row 4, 0 is row 8; with 60 columns, log x = 0, 1, 2
    // are columns 0, 30 (29.5 rounded up) and 59.
    std::vector<loglog_series> s{{"square", 'q', {1, 10, 100}, {1, 100, 10000}, 2.0}, {"line", 'l', {1, 10, 100}, {1, 10, 100}, 1.0}};
    auto lines = loglog_lines(s, "n", "time", lang::en, 200, 9);
    auto g = grid_of(lines);
    BOOST_REQUIRE(g.size() == 9u);
    BOOST_TEST(g[0].size() == 60u);
    BOOST_TEST(g[0][59] == 'q');  // (100, 10⁴): top right
    BOOST_TEST(g[4][30] == 'q');  // (10, 100)
    BOOST_TEST(g[4][59] == 'l');  // (100, 100): the line's end, halfway up
    BOOST_TEST(g[6][30] == 'l');  // (10, 10): log 1 of 4 from the bottom, row 8 − 2 = 6
    BOOST_TEST(g[8][0] == 'l');   // (1, 1), drawn last over q's
    BOOST_TEST(lines.back().find("q square (slope 2.00)") != std::string::npos);
    BOOST_TEST(lines.back().find("l line (slope 1.00)") != std::string::npos);
    BOOST_TEST(lines.back().find(". slope 2") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(nothing_to_draw_gives_no_chart) {
    BOOST_TEST(loglog_lines({{"one", 'o', {5}, {1}, {}}}, "n", "t", lang::en, 80).empty());         // one x
    BOOST_TEST(loglog_lines({{"bad", 'b', {0, -1}, {1, 2}, {}}}, "n", "t", lang::en, 80).empty());  // none positive
    auto zh = loglog_lines({{"甲", 'a', {1, 2}, {1, 4}, 2.0}}, "n", "时间", lang::zh, 80);
    BOOST_TEST(zh.back().find("斜率 2") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(time_labels_in_microseconds_stay_aligned) {
    // 290 µs and 15.7 ms: the µ is two bytes but one column, and the axis must not shift
    auto lines = loglog_lines({{"c", 'c', {64, 256}, {290e-6, 15.7e-3}, {}}}, "position", "t", lang::en, 80, 4);
    std::size_t first = lines[1].find("│"), last = lines[4].find("│");
    BOOST_TEST(lines[1].find("15.7 ms") == 0u);
    BOOST_TEST(lines[4].find("290 µs") == 1u);  // right-aligned under "15.7 ms"
    BOOST_TEST(first - std::string("15.7 ms ").size() == 0u);
    BOOST_TEST(last - std::string(" 290 µs ").size() == 0u);
}
