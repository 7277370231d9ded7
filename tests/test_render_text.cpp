// The text renderer: exact small tables, alignment at the decimal point with signs and CJK
// labels, numpy-style eliding, heatmap shades, no escape codes when colour is off, and a value or
// a sub-step as the lines the presenter and the exercises draw.
#define BOOST_TEST_MODULE render_text
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "qkv/display_width.hpp"
#include "qkv/render_text.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/scenario_gen.hpp"
#include "support/lessons.hpp"
#include "support/text.hpp"
#include "support/trace_fixture.hpp"

using namespace qkv;

namespace {

using test::lines_of;
using test::one_stage;
using test::plain;

const std::vector<std::string> tokens{"苹果", "很", "甜"};

}  // namespace

BOOST_AUTO_TEST_CASE(small_stage_exact) {
    // -0.001 rounds to 0.00 at two decimals and must lose its sign; so must -0.
    value X = value::of(matrix::of({{1.0f, -0.5f}, {-12.25f, -0.001f}}), labels{{"苹果", "很"}, "tokens"},
                        labels{{}, "features"});
    trace t = one_stage({{"X", role::input, X, std::nullopt}}, "X = X\n",
                        "Each token is a row.\nTwo lines, as the author wrapped them: one paragraph again.\n");
    // The author's line break goes (the paragraph is wrapped to the screen, 100 here); label column: max(width 苹果 = 4, 很 = 2) = 4; column 1: max("1", "1.00", "-12.25") = 6 wide;
    // column 2: max("2", "-0.50", "0.00") = 5 wide; two spaces between columns.
    std::string expected =
        "1/1  Scores\n"
        "    X = X\n"
        "\n"
        "Each token is a row. Two lines, as the author wrapped them: one paragraph again.\n"
        "\n"
        "X  [2, 2]  rows: tokens · columns: features  (input)\n"
        "           1      2\n"
        "苹果    1.00  -0.50\n"
        "很    -12.25   0.00\n";
    BOOST_TEST(render_text_stage(t, 0, plain()) == expected);
}

BOOST_AUTO_TEST_CASE(scalar_and_no_axes) {
    value d_k = value::scalar(4.0f);
    value eps = value::scalar(1.5e-7f);
    value M = value::of(matrix::of({{-0.0f, 2.5f}}));
    trace t = one_stage({{"d_k", role::input, d_k, std::nullopt}, {"eps", role::input, eps, std::nullopt},
                         {"M", role::output, M, std::nullopt}});
    // no labels: rows 1..n, columns 1..d; no axis tags: no axes phrase. A whole scalar has no
    // decimals; one below 10^-3 would read 0.000 and is shown as 1.50e-07 instead.
    std::string expected =
        "1/1  Scores\n"
        "\n"
        "d_k = 4  (input)\n"
        "\n"
        "eps = 1.50e-07  (input)\n"
        "\n"
        "M  [1, 2]  (output)\n"
        "       1      2\n"
        "1  0.000  2.500\n";
    BOOST_TEST(render_text_stage(t, 0, plain(3)) == expected);
}

BOOST_AUTO_TEST_CASE(weights_heatmap_shades_and_row_sums) {
    value A = value::of(matrix::of({{0.5f, 0.5f}, {0.25f, 0.75f}}), labels{{"很", "甜"}, "queries"},
                        labels{{"很", "甜"}, "keys"});
    A.weights = true;
    value sums = value::of(matrix::of({{1.0f}, {1.0f}}));
    trace t = one_stage({{"A", role::output, A, sums}});
    // shade = round(w * 4) into " ░▒▓█": 0.5 → 2 ▒, 0.25 → 1 ░, 0.75 → 3 ▓; each block as wide
    // as its column (4), the row sums right-aligned under "row sums" (8 wide).
    std::string expected =
        "1/1  Scores\n"
        "\n"
        "A  [2, 2]  rows: queries · columns: keys  (output)\n"
        "      很    甜\n"
        "很  0.50  0.50\n"
        "甜  0.25  0.75\n"
        "\n"
        "      很    甜  row sums\n"
        "很  ▒▒▒▒  ▒▒▒▒      1.00\n"
        "甜  ░░░░  ▓▓▓▓      1.00\n"
        "    0  ░▒▓█ 1\n";
    BOOST_TEST(render_text_stage(t, 0, plain()) == expected);
}

BOOST_AUTO_TEST_CASE(shade_extremes) {
    value A = value::of(matrix::of({{1.0f, 0.0f, 0.1f}}));  // 0.1 * 4 = 0.4 rounds to level 0
    A.weights = true;
    std::string out = render_text_stage(one_stage({{"A", role::output, A, std::nullopt}}), 0, plain());
    auto lines = lines_of(out);
    // heatmap row: label "1", blocks of widths 4 (█), 4 (blank), 4 (blank)
    BOOST_TEST(lines.at(lines.size() - 2) == "1  ████" + std::string(12, ' '));  // two "  " + 4 blank
}

BOOST_AUTO_TEST_CASE(cjk_labels_and_signs_align_at_the_point) {
    const float inf = std::numeric_limits<float>::infinity();
    value S = value::of(matrix::of({{1.5f, -inf, 100.0f}, {-0.25f, 3.0f, std::nanf("")}, {-12.0f, 0.0f, -7.125f}}),
                        labels{tokens, "queries"}, labels{tokens, "keys"});
    std::string out = render_text_stage(one_stage({{"S", role::output, S, std::nullopt}}), 0, plain(4));
    BOOST_TEST(out.find("-inf") != std::string::npos);
    BOOST_TEST(out.find("nan") != std::string::npos);
    auto lines = lines_of(out);
    // lines 4..6 are the rows (after heading, blank, title, header)
    std::vector<std::string> rows(lines.begin() + 4, lines.begin() + 7);
    std::size_t row_width = display_width(rows[0]);
    for (const auto& line : rows) BOOST_TEST(display_width(line) == row_width);
    BOOST_TEST(display_width(lines[3]) == row_width);  // the header ends where the rows end
    // first column: every '.' at the same display column
    auto point_col = [](const std::string& line) { return display_width(line.substr(0, line.find('.'))); };
    BOOST_TEST(point_col(rows[0]) == point_col(rows[1]));
    BOOST_TEST(point_col(rows[1]) == point_col(rows[2]));
    BOOST_TEST(rows[0].rfind("苹果", 0) == 0);
    BOOST_TEST(rows[1].rfind("很    ", 0) == 0);  // 很 (2) padded to 苹果's 4, then 2 spaces
}

BOOST_AUTO_TEST_CASE(wide_matrix_elided_numpy_style) {
    matrix m(3, 40);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 40; ++c) m(r, c) = static_cast<float>(c + 1);  // the column number
    trace t = one_stage({{"W", role::input, value::of(m), std::nullopt}});
    render_options o = plain(4);
    o.width = 100;
    auto lines = lines_of(render_text_stage(t, 0, o));
    // columns 1..3, the gap, 38..40: widths 6, 6, 6, 1, 7, 7, 7
    BOOST_TEST(lines.at(4) == "1  1.0000  2.0000  3.0000  …  38.0000  39.0000  40.0000");
    BOOST_TEST(lines.at(3) == "        1       2       3  …       38       39       40");
    for (const auto& line : lines) BOOST_TEST(display_width(line) <= 100u);

    o.full = true;
    std::string full = render_text_stage(t, 0, o);
    BOOST_TEST(full.find("20.0000") != std::string::npos);
    BOOST_TEST(full.find("…") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(long_matrix_elides_rows) {
    matrix m(20, 2, 0.5f);
    auto lines = lines_of(render_text_stage(one_stage({{"H", role::output, value::of(m), std::nullopt}}), 0, plain()));
    // heading, blank, title, header, 5 rows, "…", 5 rows
    BOOST_TEST(lines.size() == 4u + 11u);
    BOOST_TEST(lines.at(8).rfind("5 ", 0) == 0);
    BOOST_TEST(lines.at(9) == "…      …     …");  // "… " (label width 2), then "  " + "   …" twice
    BOOST_TEST(lines.at(10).rfind("16", 0) == 0);
    BOOST_TEST(lines.back().rfind("20", 0) == 0);
}

BOOST_AUTO_TEST_CASE(large_matrix_stays_tidy) {
    matrix m(10, 512, -1.2345f);
    render_options o = plain(4);
    auto lines = lines_of(render_text_stage(one_stage({{"X", role::input, value::of(m), std::nullopt}}), 0, o));
    BOOST_TEST(lines.size() == 4u + 10u);  // ten rows are not elided
    for (const auto& line : lines) BOOST_TEST(display_width(line) <= o.width);
    BOOST_TEST(lines.at(3).find("512") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(stack_shows_each_head) {
    value Q = value::stack({matrix::of({{1, 2}}), matrix::of({{3, 4}})}, labels{{"甜"}, "tokens"});
    std::string out = render_text_stage(one_stage({{"Q_h", role::output, Q, std::nullopt}}), 0, plain(1));
    std::string expected =
        "1/1  Scores\n"
        "\n"
        "Q_h  [2, 1, 2]  rows: tokens  (output)\n"
        "head 1\n"
        "      1    2\n"
        "甜  1.0  2.0\n"
        "\n"
        "head 2\n"
        "      1    2\n"
        "甜  3.0  4.0\n";
    BOOST_TEST(out == expected);
}

BOOST_AUTO_TEST_CASE(sub_steps_follow_the_values) {
    trace t = one_stage({{"d_k", role::input, value::scalar(2.0f), std::nullopt}});
    t.stages[0].steps.push_back({"t = 1", {{"m", value::scalar(0.5f)}}});
    t.stages[0].steps.push_back({"t = 2", {{"m", value::scalar(0.75f)}}});
    std::string expected =
        "1/1  Scores\n"
        "\n"
        "d_k = 2  (input)\n"
        "\n"
        "t = 1\n"
        "m = 0.50\n"
        "\n"
        "t = 2\n"
        "m = 0.75\n";
    BOOST_TEST(render_text_stage(t, 0, plain()) == expected);
}

BOOST_AUTO_TEST_CASE(lesson_heading_and_every_stage) {
    trace t = one_stage({{"d_k", role::input, value::scalar(2.0f), std::nullopt}});
    t.stages.push_back(t.stages[0]);
    t.stages[1].index = 2;
    t.stages[1].title = "Weights";
    std::string out = render_text(t, plain());
    BOOST_TEST(out.rfind("Lesson 3 · Scores · scenario 苹果很甜\n", 0) == 0);
    BOOST_TEST(out.find("1/2  Scores\n") != std::string::npos);
    BOOST_TEST(out.find("2/2  Weights\n") != std::string::npos);
    BOOST_TEST(out.find("1/2") < out.find("2/2"));
}

namespace {
trace everything() {
    value A = value::of(matrix::of({{0.2f, 0.8f}, {1.0f, 0.0f}}), labels{{"很", "甜"}, "queries"},
                        labels{{"很", "甜"}, "keys"});
    A.weights = true;
    value A_h = value::stack({A.mat(), A.mat()});
    A_h.weights = true;
    value sums = value::of(matrix::of({{1.0f}, {1.0f}}));
    value sums_h = value::stack({sums.mat(), sums.mat()});
    trace t = one_stage({{"A", role::output, A, sums}, {"A_h", role::output, A_h, sums_h},
                         {"d_k", role::input, value::scalar(2.0f), std::nullopt}},
                        "A = softmax(S)", "text");
    t.stages[0].steps.push_back({"t = 1", {{"A", A}}});
    return t;
}
}  // namespace

BOOST_AUTO_TEST_CASE(no_escape_codes_without_colour) {
    render_options o = plain();
    std::string out = render_text(everything(), o);
    BOOST_TEST(out.find('\x1b') == std::string::npos);
    BOOST_TEST(out.find("█") != std::string::npos);  // the shades stand in for colour
}

BOOST_AUTO_TEST_CASE(colour_heatmap_uses_backgrounds) {
    render_options o = plain();
    o.color = true;
    std::string out = render_text(everything(), o);
    // weight 1 → the bright end of viridis (253, 231, 37); weight 0 → the dark end (68, 1, 84)
    BOOST_TEST(out.find("\x1b[48;2;253;231;037m") != std::string::npos);
    BOOST_TEST(out.find("\x1b[48;2;068;001;084m") != std::string::npos);
    BOOST_TEST(out.find("\x1b[1m") != std::string::npos);  // bold headings
    BOOST_TEST(out.find("█") == std::string::npos);        // colour replaces the shades
}

BOOST_AUTO_TEST_CASE(one_stage_of_seven_keeps_its_number) {
    // --stage 3 keeps only stage 3 of 7 in the trace; the heading still says 3/7.
    trace t = one_stage({{"d_k", role::input, value::scalar(2.0f), std::nullopt}});
    t.stages[0].index = 3;
    t.stage_count = 7;
    BOOST_TEST(render_text_stage(t, 0, plain()).rfind("3/7  Scores\n", 0) == 0);
}

// --- a value as lines: what the presenter and the exercises draw -------------------------------

BOOST_AUTO_TEST_CASE(a_value_as_lines_is_its_block_of_the_stage) {
    value A = value::of(matrix::of({{0.5f, 0.5f}, {0.25f, 0.75f}}), labels{{"很", "甜"}, "queries"},
                        labels{{"很", "甜"}, "keys"});
    A.weights = true;
    shown_value sv{"A", role::output, A, value::of(matrix::of({{1.0f}, {1.0f}}))};
    // The same lines as in weights_heatmap_shades_and_row_sums, without line ends.
    std::vector<std::string> expected{"A  [2, 2]  rows: queries · columns: keys  (output)",
                                      "      很    甜",
                                      "很  0.50  0.50",
                                      "甜  0.25  0.75",
                                      "",
                                      "      很    甜  row sums",
                                      "很  ▒▒▒▒  ▒▒▒▒      1.00",
                                      "甜  ░░░░  ▓▓▓▓      1.00",
                                      "    0  ░▒▓█ 1"};
    BOOST_TEST(render_value_lines(sv, plain()) == expected, boost::test_tools::per_element());
    // On a line of its own, the axes phrase no longer widens the name line.
    auto own = render_value_lines(sv, plain(), axes_place::own_line);
    BOOST_REQUIRE(own.size() == expected.size() + 1);
    BOOST_TEST(own[0] == "A  [2, 2]  (output)");
    BOOST_TEST(own[1] == "rows: queries · columns: keys");
    BOOST_TEST(std::vector<std::string>(own.begin() + 2, own.end()) ==
               std::vector<std::string>(expected.begin() + 1, expected.end()), boost::test_tools::per_element());
    // The stage is its heading and a blank line, then these lines.
    std::string stage = render_text_stage(one_stage({sv}), 0, plain());
    BOOST_TEST(stage == "1/1  Scores\n\n" + [&] {
        std::string s;
        for (const auto& l : expected) s += l + "\n";
        return s;
    }());
}

BOOST_AUTO_TEST_CASE(a_sub_step_as_lines_and_values_as_text) {
    sub_step step{"t = 1", {{"m", value::scalar(0.5f)}, {"k", value::scalar(0.25f)}}};
    std::vector<std::string> expected{"t = 1", "m = 0.50", "", "k = 0.25"};
    BOOST_TEST(render_step_lines(step, plain()) == expected, boost::test_tools::per_element());
    std::vector<shown_value> values{{"d_k", role::input, value::scalar(2.0f), std::nullopt},
                                    {"x", role::input, value::scalar(0.5f), std::nullopt}};
    BOOST_TEST(render_values_text(values, plain()) == "\nd_k = 2  (input)\n\nx = 0.50  (input)\n");
}

BOOST_AUTO_TEST_CASE(styled_lines_are_measured_without_their_escapes) {
    render_options o = plain();
    o.color = true;
    shown_value sv = everything().stages[0].values[0];  // weights with their row sums
    auto coloured = render_value_lines(sv, o);
    auto bare = render_value_lines(sv, plain());
    BOOST_REQUIRE(coloured.size() == bare.size());
    BOOST_TEST(coloured[0].find('\x1b') != std::string::npos);
    // Heat blocks are spaces on a colour where the bare lines have shade glyphs: the same width,
    // except in the legend, whose coloured steps are two columns wide (one shade glyph each without).
    for (std::size_t i = 0; i + 1 < bare.size(); ++i)
        BOOST_TEST(visible_width(coloured[i]) == display_width(bare[i]), "line " << i);
    BOOST_TEST(visible_width(coloured.back()) == display_width(bare.back()) + 5);
    BOOST_TEST(qkv::plain("\x1b[1mA\x1b[0m  [2, 2]") == "A  [2, 2]");
    BOOST_TEST(visible_width("\x1b[2m苹果\x1b[0m") == 4u);
}


// Issue 40: a token that comes twice is “the”₁ and “the”₅ in the prose, and its rows and columns
// were labelled "the" twice. The labels carry the same subscript, the token's place in the
// sentence (counted here from the sentence itself), and no label is a bare "the".
BOOST_AUTO_TEST_CASE(a_repeated_token_has_its_place_in_the_labels_as_in_the_prose) {
    const std::vector<std::string> words{"the", "cat", "sat", "on", "the", "mat"};
    const lesson_run r = run_lesson(load_lesson(test::lesson_path(1)), generate_scenario(scenario_spec{words}), lang::en);
    std::size_t weights = 0;
    for (std::size_t i = 0; i < r.t.stages.size(); ++i)
        if (r.t.stages[i].id == "weights") weights = i;
    const std::string out = plain(render_text_stage(r.t, weights, render_options{}));
    const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::vector<std::string> marked;
    for (std::size_t i = 0; i < words.size(); ++i)
        if (words[i] == "the") marked.push_back("the" + std::string(digits[i + 1]));
    BOOST_TEST_REQUIRE(marked.size() == 2u);
    for (const std::string& label : marked) {
        BOOST_TEST(out.find("\n" + label + " ") != std::string::npos, label << " labels a row\n" << out);  // a row
        BOOST_TEST(out.find(" " + label + " ") != std::string::npos, label << " labels a column\n" << out);
    }
    BOOST_TEST(out.find("“the”" + std::string(digits[1])) != std::string::npos, "the prose writes “the”₁");
    for (const std::string& line : lines_of(out)) BOOST_TEST(line.rfind("the ", 0) != 0, "a bare “the” labels a row: " << line);
}

// Issue 40: lesson 8 on the cat sentence says "the strongest weight of head 2 is mat → sat 0.35",
// and head 2 was summarised to one line. A number the text quotes is on the screen. The place is
// found here from the trace's own A_h (its largest weight in head 2), then looked for in the text:
// under "head 2" of A_h, the row of that place holding the number at four decimals.
BOOST_AUTO_TEST_CASE(a_number_the_text_quotes_is_on_the_screen) {
    const std::vector<std::string> words{"the", "cat", "sat", "on", "the", "mat"};
    for (lang l : {lang::en, lang::zh}) {
        const lesson_run r = run_lesson(load_lesson(test::lesson_path(8)), generate_scenario(scenario_spec{words}), l);
        std::size_t stage = 0;
        for (std::size_t i = 0; i < r.t.stages.size(); ++i)
            if (r.t.stages[i].id == "head-weights") stage = i;
        const value& A = test::shown(r.t, "head-weights", "A_h");
        BOOST_TEST_REQUIRE(A.mats.size() >= 2u);
        const matrix& m = A.mats[1];
        // the strongest weight of head 2, and the most even row's largest weight ("none above …")
        std::size_t best_r = 0, best_c = 0, even_r = 0;
        std::vector<std::size_t> row_best(m.rows, 0);
        for (std::size_t i = 0; i < m.rows; ++i)
            for (std::size_t j = 0; j < m.cols; ++j) {
                if (m(i, j) > m(best_r, best_c)) best_r = i, best_c = j;
                if (m(i, j) > m(i, row_best[i])) row_best[i] = j;
            }
        for (std::size_t i = 0; i < m.rows; ++i)
            if (m(i, row_best[i]) < m(even_r, row_best[even_r])) even_r = i;
        for (auto [row, col] : {std::pair{best_r, best_c}, std::pair{even_r, row_best[even_r]}}) {
            const std::string two = fmt::format("{:.2f}", m(row, col)), four = fmt::format("{:.4f}", m(row, col));
            BOOST_TEST_REQUIRE(r.t.stages[stage].text.find(two) != std::string::npos, "the prose quotes " << two);
            for (std::size_t width : {std::size_t{80}, std::size_t{100}}) {
                render_options o;
                o.language = l;
                o.width = width;
                const std::vector<std::string> lines = lines_of(plain(render_text_stage(r.t, stage, o)));
                std::size_t at = 0;
                while (at < lines.size() && lines[at].rfind("A_h ", 0) != 0) ++at;
                const std::string head2 = l == lang::zh ? "头 2" : "head 2";
                while (at < lines.size() && lines[at] != head2) ++at;
                BOOST_TEST_REQUIRE(at < lines.size(), "A_h shows " << head2 << " at width " << width);
                bool found = false;
                for (std::size_t i = at + 1; i < lines.size() && !lines[i].empty() && !found; ++i)
                    found = lines[i].rfind(A.rows.names[row], 0) == 0 && lines[i].find(four) != std::string::npos;
                BOOST_TEST(found, "row " << A.rows.names[row] << " of head 2 shows " << four << " at width " << width);
            }
        }
    }
}

namespace {

// h heads of [rows, cols], every entry different: head k row r column c is k + r / 100 + c / 10000.
value numbered_stack(std::size_t h, std::size_t rows, std::size_t cols) {
    std::vector<matrix> heads;
    for (std::size_t k = 0; k < h; ++k) {
        matrix m(rows, cols);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) m(r, c) = static_cast<float>(k + 1) + static_cast<float>(r) / 100 + static_cast<float>(c) / 10000;
        heads.push_back(std::move(m));
    }
    return value::stack(std::move(heads), labels{});
}

}  // namespace

// The renderer's side: a quoted number in a summarised head brings that head with the quoted row
// alone (a line, not another wall), up to two such heads; a quoted row of a tall matrix is shown
// among its elided rows. Where the screen cannot (a third head, a stack of tall heads, a column a
// wide table leaves out), a note says where --full shows it.
BOOST_AUTO_TEST_CASE(a_quoted_number_brings_its_head_and_row_or_a_note) {
    trace t = one_stage({{"V", role::output, numbered_stack(5, 10, 3), std::nullopt}});
    // quotes 0, 1, 2 in heads 2, 3, 4 (from 1), row 10, columns 1, 2, 3
    t.stages[0].text_sources = {{0, "V", 1, 9, 0}, {1, "V", 2, 9, 1}, {2, "V", 3, 9, 2}};
    const std::vector<std::string> lines = lines_of(render_text_stage(t, 0, plain()));
    auto has = [&](const std::string& s) { return std::find(lines.begin(), lines.end(), s) != lines.end(); };
    auto table_of = [&](const std::string& head) {
        std::vector<std::string> out;
        for (auto at = std::find(lines.begin(), lines.end(), head); at != lines.end() && !at->empty(); ++at) out.push_back(*at);
        return out;
    };
    const std::vector<std::string> two{"head 2", "       1     2     3", "…      …     …     …", "10  2.09  2.09  2.09"};
    BOOST_TEST(table_of("head 2") == two, fmt::format("{}", fmt::join(table_of("head 2"), "\n")));
    const std::vector<std::string> three = table_of("head 3");  // the summary lines follow it
    BOOST_TEST_REQUIRE(three.size() >= 5u);
    BOOST_TEST(three[3] == "10  3.09  3.09  3.09");
    BOOST_TEST(three[4].rfind("head 4  [10, 3]", 0) == 0u);
    BOOST_TEST(table_of("head 1").size() == 12u);  // shown in full as before: label, header, 10 rows
    BOOST_TEST(!has("head 4"));                      // a third head: summarised, and noted
    BOOST_TEST(has("(--full shows a number the text quotes: head 4, row 10 “10”, column 3 “3”)"));
    BOOST_TEST(!has("(--full shows a number the text quotes: head 2, row 10 “10”, column 1 “1”)"));

    render_options zh = plain();
    zh.language = lang::zh;
    const std::string z = render_text_stage(t, 0, zh);
    BOOST_TEST(z.find("（正文引用的一个数在头 4 的第 10 行“10”、第 3 列“3”：--full 可以看到）") != std::string::npos, z);

    // one tall matrix: row 10 of 20 between rows 1–5 and 16–20
    trace tall = one_stage({{"M", role::output, value::of(numbered_stack(1, 20, 3).mats[0]), std::nullopt}});
    tall.stages[0].text_sources = {{0, "M", 0, 9, 0}};
    const std::vector<std::string> m = lines_of(render_text_stage(tall, 0, plain()));
    BOOST_TEST(std::count(m.begin(), m.end(), "10  1.09  1.09  1.09") == 1);
    BOOST_TEST(std::count(m.begin(), m.end(), "9   1.08  1.08  1.08") == 0);

    // a stack of tall heads is a wall already: head 2 is noted, not drawn
    trace walls = one_stage({{"V", role::output, numbered_stack(3, 20, 3), std::nullopt}});
    walls.stages[0].text_sources = {{0, "V", 1, 9, 0}};
    const std::string w3 = render_text_stage(walls, 0, plain());
    BOOST_TEST(w3.find("\nhead 2\n") == std::string::npos);
    BOOST_TEST(w3.find("(--full shows a number the text quotes: head 2, row 10 “10”, column 1 “1”)") != std::string::npos, w3);

    // 40 columns at width 70: the middle ones are left out, but not column 21, which the text quotes;
    // at width 20 not even that fits beside the first and the last: a note says where it is
    trace wide = one_stage({{"W", role::output, value::of(numbered_stack(1, 2, 40).mats[0]), std::nullopt}});
    wide.stages[0].text_sources = {{0, "W", 0, 1, 20}};
    render_options narrow = plain();
    narrow.width = 70;
    const std::string w = render_text_stage(wide, 0, narrow);
    BOOST_TEST(w.find("\n      1     2     3  …    21  …    38    39    40\n") != std::string::npos, w);
    BOOST_TEST(w.find("--full shows a number") == std::string::npos, w);
    narrow.width = 20;
    std::string n20 = render_text_stage(wide, 0, narrow);
    BOOST_TEST(n20.find("\n      1  …    40\n") != std::string::npos, n20);  // column 21 left out
    std::replace(n20.begin(), n20.end(), '\n', ' ');            // the note is wrapped to 20 columns
    BOOST_TEST(n20.find("(--full shows a number the text quotes: row 2 “2”, column 21 “21”)") != std::string::npos, n20);
    narrow.full = true;
    BOOST_TEST(render_text_stage(wide, 0, narrow).find("--full shows a number") == std::string::npos);
}
