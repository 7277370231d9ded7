// The Markdown handout: headings, formula as code, GitHub tables with labels, row sums for
// weights and their heatmap, and what a file holds escaped ('|' cannot break the table, <script>
// stays text, no control character reaches the page).
#define BOOST_TEST_MODULE render_markdown
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <limits>
#include <sstream>

#include "qkv/render_markdown.hpp"
#include "support/text.hpp"
#include "support/trace_fixture.hpp"

using namespace qkv;
using qkv::test::check_has_each;

namespace {

// The shared stage, with a formula and a sentence for the handout to show.
trace one_stage(std::vector<shown_value> values) {
    return test::one_stage(std::move(values), "S = Q @ K^T\n", "Each query meets each key.\n");
}

render_options opts(int precision) {
    render_options o;
    o.precision = precision;
    return o;
}

// Unescaped '|' in a table line: the cell separators.
std::size_t separators(const std::string& line) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
        if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++n;
    return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(small_lesson_exact) {
    const float inf = std::numeric_limits<float>::infinity();
    value S = value::of(matrix::of({{1.0f, -2.5f}, {-0.0f, -inf}}), labels{{"苹果", "很"}, "queries"},
                        labels{{"a|b", "c"}, "keys"});
    std::string expected =
        "# Lesson 3 · Scores · scenario 苹果很甜\n"
        "\n"
        "## 1/1 · Scores\n"
        "\n"
        "```\n"
        "S = Q @ K^T\n"
        "```\n"
        "\n"
        "Each query meets each key.\n"
        "\n"
        "**S** `[2, 2]` — rows: queries · columns: keys *(output)*\n"
        "\n"
        "|  | a\\|b | c |\n"
        "| --- | ---: | ---: |\n"
        "| 苹果 | 1.00 | -2.50 |\n"
        "| 很 | 0.00 | -inf |\n";
    BOOST_TEST(render_markdown(one_stage({{"S", role::output, S, std::nullopt}}), opts(2)) == expected);
}

BOOST_AUTO_TEST_CASE(weights_get_a_row_sum_column) {
    value A = value::of(matrix::of({{0.25f, 0.75f}, {0.5f, 0.5f}}));
    A.weights = true;
    value sums = value::of(matrix::of({{1.0f}, {1.0f}}));
    std::string out = render_markdown(one_stage({{"A", role::output, A, sums}}), opts(2));
    check_has_each(out, {"|  | 1 | 2 | row sums |\n", "| 1 | 0.25 | 0.75 | 1.00 |\n", "| 2 | 0.50 | 0.50 | 1.00 |\n"});
}

BOOST_AUTO_TEST_CASE(every_table_line_has_the_same_cell_count) {
    value X = value::of(matrix::of({{1, 2, 3}, {4, 5, 6}}), labels{{"x|y", "z"}, "tokens"},
                        labels{{"|", "a", "b"}, "features"});
    std::istringstream in(render_markdown(one_stage({{"X", role::input, X, std::nullopt}}), opts(1)));
    std::size_t table_lines = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] != '|') continue;
        ++table_lines;
        BOOST_TEST(separators(line) == 5u);  // label + 3 columns → 5 separators
    }
    BOOST_TEST(table_lines == 4u);  // header, rule, 2 rows
}

BOOST_AUTO_TEST_CASE(scalars_stacks_and_steps) {
    value Q = value::stack({matrix::of({{1}}), matrix::of({{2}})});
    trace t = one_stage({{"d_k", role::input, value::scalar(2.0f), std::nullopt},
                         {"Q_h", role::output, Q, std::nullopt}});
    t.stages[0].steps.push_back({"t = 1", {{"m", value::scalar(0.5f)}}});
    std::string out = render_markdown(t, opts(1));
    check_has_each(out, {"**d_k** = 2 *(input)*\n", "**Q_h** `[2, 1, 1]` *(output)*\n",
                         "*head 1*\n\n|  | 1 |\n| --- | ---: |\n| 1 | 1.0 |\n",
                         "*head 2*\n\n|  | 1 |\n| --- | ---: |\n| 1 | 2.0 |\n", "**t = 1**\n\n**m** = 0.5\n"});
}

BOOST_AUTO_TEST_CASE(wide_tables_elided_unless_full) {
    matrix m(2, 30);
    for (std::size_t c = 0; c < 30; ++c) m(0, c) = m(1, c) = static_cast<float>(c + 1);
    trace t = one_stage({{"W", role::input, value::of(m), std::nullopt}});
    std::string out = render_markdown(t, opts(0));
    BOOST_TEST(out.find("| 1 | 1 | 2 | 3 | … | 28 | 29 | 30 |\n") != std::string::npos);
    render_options full = opts(0);
    full.full = true;
    BOOST_TEST(render_markdown(t, full).find("| 15 | 16 |") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(one_stage_of_seven_keeps_its_number) {
    trace t = one_stage({});
    t.stages[0].index = 3;
    t.stage_count = 7;
    BOOST_TEST(render_markdown(t, opts(2)).find("\n## 3/7 · Scores\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(html_and_markdown_marks_from_files_are_escaped) {
    value X = value::of(matrix::of({{1.0f}, {2.0f}, {3.0f}}),
                        labels{{"<script>alert(1)</script>", "*bold*", "a\x1b[31m"}, "tokens"}, labels{});
    trace t = one_stage({{"X", role::input, X, std::nullopt}});
    t.title = "<b>title</b>";
    t.stages[0].text = "<img src=x onerror=alert(1)> & text\x07\n";
    std::string out = render_markdown(t, opts(2));
    BOOST_TEST(out.find("<script>") == std::string::npos);
    BOOST_TEST(out.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    BOOST_TEST(out.find("\\*bold\\*") != std::string::npos);
    BOOST_TEST(out.find("&lt;b&gt;title&lt;/b&gt;") != std::string::npos);
    BOOST_TEST(out.find("&lt;img src=x onerror=alert(1)&gt; &amp; text\\x07") != std::string::npos);
    BOOST_TEST(out.find('\x1b') == std::string::npos);
    BOOST_TEST(out.find('\x07') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(weights_get_a_heatmap_of_shades_with_its_legend) {
    value A = value::of(matrix::of({{0.0f, 1.0f}, {0.5f, std::numeric_limits<float>::quiet_NaN()}}));
    A.weights = true;
    std::string out = render_markdown(one_stage({{"A", role::output, A, std::nullopt}}), opts(2));
    BOOST_TEST(out.find("| :-: | :-: |") != std::string::npos);
    BOOST_TEST(out.find("| 1 |   | █ |") != std::string::npos);
    BOOST_TEST(out.find("| 2 | ▒ | ! |") != std::string::npos);
    BOOST_TEST(out.find("`0  ░▒▓█ 1`") != std::string::npos);
    BOOST_TEST(out.find("not a number") != std::string::npos);
}
