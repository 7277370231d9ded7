// No walls of numbers: a tall stack of heads shows its first head in full and a line of facts per
// other head, long sub-step lists and long matrices are cut, the generated scenario is cut before
// a lesson; --full shows everything. The facts are checked against the test's own computation.
#define BOOST_TEST_MODULE render_summary
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_text.hpp"
#include "qkv/scenario_preface.hpp"
#include "support/text.hpp"

using namespace qkv;

using qkv::test::lines_of;

namespace {

std::size_t count_of(const std::vector<std::string>& lines, const std::string& line) {
    return static_cast<std::size_t>(std::count(lines.begin(), lines.end(), line));
}

// A [rows, cols] matrix of numbers that differ from head to head (a small LCG, fixed seed).
matrix filled(std::size_t rows, std::size_t cols, unsigned seed) {
    matrix m(rows, cols);
    unsigned x = seed * 2654435761u + 1;
    for (float& v : m.data) x = x * 1664525u + 1013904223u, v = static_cast<float>(x >> 8) / 16777216.0f - 0.5f;
    return m;
}

// h heads of [rows, cols]; weights rows made positive and summing to 1 so they read as weights.
value stack_of(std::size_t h, std::size_t rows, std::size_t cols, bool weights) {
    std::vector<matrix> heads;
    for (std::size_t k = 0; k < h; ++k) {
        matrix m = filled(rows, cols, static_cast<unsigned>(k + 1));
        if (weights)
            for (std::size_t r = 0; r < rows; ++r) {
                float sum = 0;
                for (std::size_t c = 0; c < cols; ++c) sum += (m(r, c) += 1.0f);
                for (std::size_t c = 0; c < cols; ++c) m(r, c) /= sum;
            }
        heads.push_back(std::move(m));
    }
    value v = value::stack(std::move(heads));
    v.weights = weights;
    return v;
}

render_options with_width(std::size_t width, bool full = false) {
    render_options o;
    o.width = width;
    o.full = full;
    return o;
}

std::string head_label(std::size_t h) { return fmt::format("head {}", h); }

}  // namespace

BOOST_AUTO_TEST_CASE(eight_tall_heads_show_the_first_in_full_and_a_line_for_each_other) {
    value Q = stack_of(8, 10, 64, false);
    auto lines = render_value_lines({"Q_10", role::output, Q, std::nullopt}, with_width(100));
    BOOST_TEST(lines.front().starts_with("Q_10  [8, 10, 64]"));
    BOOST_TEST(count_of(lines, head_label(1)) == 1u);  // head 1 with its table under it
    BOOST_TEST(lines.at(2).find("64") != std::string::npos);
    for (std::size_t h = 2; h <= 8; ++h) {
        BOOST_TEST(count_of(lines, head_label(h)) == 0u);  // no table of its own
        const matrix& m = Q.mats[h - 1];
        auto [lo, hi] = std::minmax_element(m.data.begin(), m.data.end());
        std::string expected = fmt::format("head {}  [10, 64]  min {:.4f} · max {:.4f}", h, *lo, *hi);
        BOOST_TEST(count_of(lines, expected) == 1u, expected);
    }
    BOOST_TEST(lines.back() == "(--full shows every head in full)");
    // name, "head 1", header and 10 rows, a line for each of heads 2–8, the note
    BOOST_TEST(lines.size() == 1u + 1u + 11u + 7u + 1u);
}

BOOST_AUTO_TEST_CASE(full_shows_all_eight_heads) {
    value Q = stack_of(8, 10, 64, false);
    auto lines = render_value_lines({"Q_10", role::output, Q, std::nullopt}, with_width(100, true));
    for (std::size_t h = 1; h <= 8; ++h) BOOST_TEST(count_of(lines, head_label(h)) == 1u);
    BOOST_TEST(std::none_of(lines.begin(), lines.end(), [](const std::string& l) { return l.find("--full") != std::string::npos; }));
    BOOST_TEST(lines.size() == 1u + 8u * 12u + 7u);  // name; per head its label, header, 10 rows; blank lines between
}

BOOST_AUTO_TEST_CASE(a_summary_line_names_the_key_each_query_weighs_most) {
    value A = stack_of(8, 6, 6, true);
    A.rows = A.cols = labels{{"a", "b", "c", "d", "e", "f"}, ""};
    auto lines = render_value_lines({"A", role::output, A, std::nullopt}, with_width(100));
    for (std::size_t h = 2; h <= 8; ++h) {
        const matrix& m = A.mats[h - 1];
        std::string expected = fmt::format("head {}  [6, 6]  looks most at: ", h);
        for (std::size_t r = 0; r < 6; ++r) {
            std::size_t best = 0;
            for (std::size_t c = 1; c < 6; ++c)
                if (m(r, c) > m(r, best)) best = c;
            expected += fmt::format("{}{}→{}", r ? " · " : "", A.rows.names[r], A.cols.names[best]);
        }
        BOOST_TEST(count_of(lines, expected) == 1u, expected);
    }
    render_options zh = with_width(100);
    zh.language = lang::zh;
    auto zh_lines = render_value_lines({"A", role::output, A, std::nullopt}, zh);
    BOOST_TEST(std::any_of(zh_lines.begin(), zh_lines.end(), [](const std::string& l) { return l.starts_with("头 8  [6, 6]  最看重：a→"); }));
    BOOST_TEST(zh_lines.back() == "（--full 显示每个头的全部数值）");
}

BOOST_AUTO_TEST_CASE(a_long_summary_line_stops_at_the_screen_with_an_ellipsis) {
    value A = stack_of(3, 64, 64, true);
    auto lines = render_value_lines({"A", role::output, A, std::nullopt}, with_width(80));
    for (const auto& l : lines) BOOST_TEST(display_width(l) <= 80u, l);
    BOOST_TEST(std::any_of(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("head 3  [64, 64]  looks most at: 1→") && l.ends_with(" · …"); }));
}

BOOST_AUTO_TEST_CASE(two_small_heads_stay_whole) {
    value A = stack_of(2, 3, 3, true);
    auto lines = render_value_lines({"A_h", role::output, A, std::nullopt}, with_width(100));
    BOOST_TEST(count_of(lines, head_label(1)) == 1u);
    BOOST_TEST(count_of(lines, head_label(2)) == 1u);
    BOOST_TEST(std::none_of(lines.begin(), lines.end(), [](const std::string& l) { return l.find("--full") != std::string::npos; }));
}

BOOST_AUTO_TEST_CASE(a_300_row_matrix_is_elided_and_full_shows_every_row) {
    value X = value::of(filled(300, 3, 7));
    auto lines = render_value_lines({"X", role::input, X, std::nullopt}, with_width(100));
    // name, header, rows 1–4, "…", rows 297–300
    BOOST_TEST(lines.size() == 2u + 9u);
    BOOST_TEST(lines.at(5).starts_with("4 "));
    BOOST_TEST(lines.at(6).starts_with("…"));
    BOOST_TEST(lines.at(7).starts_with("297"));
    BOOST_TEST(lines.back().starts_with("300"));
    BOOST_TEST(render_value_lines({"X", role::input, X, std::nullopt}, with_width(100, true)).size() == 2u + 300u);
}

BOOST_AUTO_TEST_CASE(many_recorded_steps_show_the_first_and_a_line_each_for_at_most_eight) {
    trace t;
    t.lesson = 9;
    stage_trace s;
    s.index = 1;
    s.title = "Decoding";
    for (std::size_t k = 1; k <= 64; ++k) {
        value a = value::of(filled(1, k, static_cast<unsigned>(k)));
        a.weights = true;
        s.steps.push_back({fmt::format("t = {}", k), {{"q_t", value::of(filled(1, 4, 1))}, {"k_t", value::of(filled(1, 4, 2))},
                                                       {"K_cache", value::of(filled(k, 4, 3))}, {"a_t", a}}});
    }
    t.stages.push_back(s);
    auto lines = lines_of(render_text_stage(t, 0, with_width(100)));
    BOOST_TEST(steps_in_full(s.steps, with_width(100)) == 1u);
    BOOST_TEST(count_of(lines, "t = 1") == 1u);  // in full: its label on a line of its own
    BOOST_TEST(count_of(lines, "t = 2  q_t, k_t [1, 4] · K_cache [2, 4] · a_t = [" +
                                   fmt::format("{:.4f}, {:.4f}", s.steps[1].values[3].second.mat()(0, 0),
                                               s.steps[1].values[3].second.mat()(0, 1)) + "]") == 1u);
    BOOST_TEST(count_of(lines, "… 56 more steps") == 1u);
    const matrix& last = s.steps.back().values[3].second.mat();
    std::size_t best = 0;
    for (std::size_t c = 1; c < last.cols; ++c)
        if (last(0, c) > last(0, best)) best = c;
    BOOST_TEST(count_of(lines, fmt::format("t = 64  q_t, k_t [1, 4] · K_cache [64, 4] · a_t [1, 64] 1→{}", best + 1)) == 1u);
    BOOST_TEST(lines.back() == "(--full shows every step in full)");
    BOOST_TEST(lines.size() < 40u);

    auto full = lines_of(render_text_stage(t, 0, with_width(100, true)));
    for (std::size_t k = 1; k <= 64; ++k) BOOST_TEST(count_of(full, fmt::format("t = {}", k)) == 1u);
}

BOOST_AUTO_TEST_CASE(html_folds_the_summarised_heads_and_keeps_them) {
    trace t;
    t.lesson = 8;
    stage_trace s;
    s.index = 7;
    s.values.push_back({"A_10", role::output, stack_of(8, 10, 10, true), std::nullopt});
    t.stages.push_back(s);
    std::string page = render_html({t}, with_width(100));
    BOOST_TEST(page.find("<details class=\"more\"><summary>heads 2–8 (open to see them)</summary>") != std::string::npos);
    BOOST_TEST(page.find("<h4 class=\"head\">head 1</h4>") < page.find("<details"));
    for (std::size_t h = 2; h <= 8; ++h) BOOST_TEST(page.find(fmt::format("<h4 class=\"head\">head {}</h4>", h)) > page.find("<details"));
    BOOST_TEST(render_html({t}, with_width(100, true)).find("<details") == std::string::npos);
}

// Issue 40: a head the stage's text quotes a number from stays open between two folds; a quoted
// row of a tall matrix is among its elided rows (row 10 of 20: rows 1–5 and 16–20 otherwise).
BOOST_AUTO_TEST_CASE(html_keeps_a_quoted_head_and_row_out_of_the_folds) {
    trace t;
    t.lesson = 8;
    stage_trace s;
    s.index = 7;
    s.values.push_back({"A_10", role::output, stack_of(8, 10, 10, true), std::nullopt});
    s.values.push_back({"M", role::output, value::of(filled(20, 4, 9)), std::nullopt});
    s.text_sources = {{0, "A_10", 4, 2, 2}, {1, "M", 0, 9, 1}};
    t.stages.push_back(s);
    std::string page = render_html({t}, with_width(100));
    const std::size_t first = page.find("<summary>heads 2–4 (open to see them)</summary>");
    const std::size_t five = page.find("<h4 class=\"head\">head 5</h4>");
    const std::size_t second = page.find("<summary>heads 6–8 (open to see them)</summary>");
    BOOST_TEST_REQUIRE(first != std::string::npos, page);
    BOOST_TEST_REQUIRE(second != std::string::npos, page);
    BOOST_TEST(first < five);
    BOOST_TEST(five < second);
    BOOST_TEST(page.rfind("</details>", five) > first);  // the first fold closes before head 5
    const std::size_t m = page.find("data-name=\"M\"");
    const std::size_t table_end = page.find("</table>", m);
    BOOST_TEST(page.find("<th scope=\"row\">10</th>", m) < table_end);
    BOOST_TEST(page.find("<th scope=\"row\">9</th>", m) > table_end);  // not quoted: elided as before
}

BOOST_AUTO_TEST_CASE(the_generated_scenario_is_cut_to_a_screen_unless_full) {
    std::string toml = "# qkv scenario --tokens 'w1 … w20'\nname = \"w\"\n\n[matrices]\nX = [  # [20, 2]\n";
    for (int r = 1; r <= 20; ++r) toml += fmt::format("  [{}.00, 0.00],\n", r);
    toml += "]\nW_Q = [  # [2, 2]\n  [1.00, 0.00],\n  [0.00, 1.00],\n]\n";
    auto lines = lines_of(scenario_preface(toml, with_width(100)));
    BOOST_TEST(lines.at(5) == "  [1.00, 0.00],");
    BOOST_TEST(lines.at(7) == "  [3.00, 0.00],");
    BOOST_TEST(lines.at(8) == "  # … 15 more rows (--full shows them, -o FILE keeps them)");
    BOOST_TEST(lines.at(9) == "  [19.00, 0.00],");
    BOOST_TEST(lines.at(10) == "  [20.00, 0.00],");
    BOOST_TEST(lines.at(11) == "]");
    BOOST_TEST(lines.size() == 16u);  // W_Q, two rows: whole
    BOOST_TEST(scenario_preface(toml, with_width(100, true)) == toml);
}
