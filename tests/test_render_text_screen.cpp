// The text renderer on a screen: prose reflowed to the width as each language breaks,
// heatmaps that say what they show, colour as deep as the terminal can show, and nothing from a
// file that drives the terminal.
#define BOOST_TEST_MODULE render_text_screen
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "qkv/display_width.hpp"
#include "qkv/render_text.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/wrap.hpp"
#include "support/text.hpp"
#include "support/trace_fixture.hpp"

using namespace qkv;

using test::lines_of;
using test::one_stage;
using test::plain;

namespace {

std::size_t widest(const std::string& out) {
    std::size_t w = 0;
    for (const auto& l : lines_of(out)) w = std::max(w, visible_width(l));
    return w;
}

trace weights_trace(matrix m) {
    value A = value::of(std::move(m));
    A.weights = true;
    return one_stage({{"A", role::output, A, std::nullopt}});
}

}  // namespace

BOOST_AUTO_TEST_CASE(prose_is_reflowed_to_the_width_at_word_boundaries) {
    std::string text =
        "Scores can be negative, and a negative score is still a score: softmax turns every one of them\n"
        "into a positive weight, the larger scores into the larger weights.\n"
        "\n"
        "    S = Q @ K^T   (a worked example keeps its line)\n"
        "1. first item that is long enough to need a second line when the screen is only forty wide\n"
        "   and its continuation\n";
    trace t = one_stage({}, "", text);
    render_options o = plain();
    o.width = 40;
    std::string out = render_text_stage(t, 0, o);
    BOOST_TEST(widest(out) <= 40u);
    BOOST_TEST(out.find("nega\n") == std::string::npos);  // never inside a word
    BOOST_TEST(out.find("\n    S = Q @ K^T   (a worked example keeps its line)\n") == std::string::npos);  // too wide: wrapped
    BOOST_TEST(out.find("\n    S = Q @ K^T") != std::string::npos);
    BOOST_TEST(out.find("\n1. first item") != std::string::npos);
    BOOST_TEST(out.find("\n   ") != std::string::npos);  // the item's second line hangs under its text
    o.width = 100;
    out = render_text_stage(t, 0, o);
    BOOST_TEST(out.find("\ninto a positive") == std::string::npos);  // the author's break is gone
    BOOST_TEST(out.find("\n    S = Q @ K^T   (a worked example keeps its line)\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(curly_quotes_join_lines_as_the_language_beside_them_does) {
    // an exercise's words come with tokens already quoted; a line that broke before “苹果” in
    // English joined as "most to“苹果”" (the quote was taken for Chinese punctuation)
    auto joined = [](std::string text) { return reflow(text, 100).at(0); };
    BOOST_TEST(joined("“甜” attends most to\n“苹果” (0.546).") == "“甜” attends most to “苹果” (0.546).");
    BOOST_TEST(joined("the weight on “the”\ngoes up") == "the weight on “the” goes up");
    BOOST_TEST(joined("我\n“爱”\n北京") == "我“爱”北京");  // against Chinese a quote carries its own space
    BOOST_TEST(joined("看“\n北京”\n的") == "看“北京”的");
}

BOOST_AUTO_TEST_CASE(a_number_in_groups_of_three_stays_on_one_line) {
    // lesson 3 broke "n = 10 000" after the 10, lesson 9 "524 288 bytes" after the 524
    for (std::size_t width = 20; width <= 40; ++width) {
        for (const std::string& line : wrap_paragraph("a hundred million at n = 10 000. Then 524 288 bytes, 512 KiB.", width)) {
            BOOST_TEST(!line.ends_with(" 10"), line);
            BOOST_TEST(!line.ends_with("524"), line);
            BOOST_TEST(!line.starts_with("000"), line);
            BOOST_TEST(!line.starts_with("288"), line);
        }
    }
    BOOST_TEST(wrap_paragraph("步骤 4 512 个", 100).at(0) == "步骤 4 512 个");  // nothing added or lost
}

BOOST_AUTO_TEST_CASE(an_opening_bracket_never_ends_a_line) {
    // ten zh lessons left "（" at a line's end, the bracket's content on the next line
    const std::string text = "机器翻译里有两个序列：编码器读入的源句（source），和解码器写出的目标句（“target”）。";
    const std::string joined = "机器翻译里有两个序列：编码器读入的源句（source），和解码器写出的目标句（“target”）。";
    for (std::size_t width = 10; width <= 60; ++width) {
        std::string all;
        for (const std::string& line : wrap_paragraph(text, width)) {
            BOOST_TEST(!line.ends_with("（"), width << ": " << line);
            BOOST_TEST(!line.ends_with("“"), width << ": " << line);
            all += line;
        }
        BOOST_TEST(all == joined, width);  // nothing added or lost (no spaces in this text)
    }
}

BOOST_AUTO_TEST_CASE(chinese_prose_breaks_between_characters_not_before_punctuation) {
    std::string text = "每一行查询带着三样东西走：到目前为止见过的最大分数，以它为基准的指数和，以及同样加权的值的和。";
    trace t = one_stage({}, "", text);
    render_options o = plain();
    o.width = 30;
    std::string out = render_text_stage(t, 0, o);
    BOOST_TEST(widest(out) <= 30u);
    for (const auto& l : lines_of(out)) {
        BOOST_TEST(!l.starts_with("，"));
        BOOST_TEST(!l.starts_with("。"));
    }
    BOOST_TEST(out.find("每一行查询") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_chinese_token_in_english_prose_is_never_split) {
    // "Replace 苹果's weights": at every width the token and its "'s" stay on one line
    std::string text = "But where the weight goes is another question. Replace 苹果's weights by the uniform 1/3 each.";
    for (std::size_t width = 20; width <= 60; ++width) {
        render_options o = plain();
        o.width = width;
        std::string out = render_text_stage(one_stage({}, "", text), 0, o);
        BOOST_TEST_CONTEXT("width " << width) {
            BOOST_TEST(out.find("苹果's") != std::string::npos);
            for (const auto& l : lines_of(out)) BOOST_TEST(!l.starts_with("果"));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_number_at_the_start_of_a_line_is_not_a_list_item) {
    // a quote filled in at the start of a source line: "d_k =\n4. The backward …" is one paragraph
    std::string text = "this time with the whole W_Q as one head, d_k =\n4. The backward pass needs what the forward pass left.";
    render_options o = plain();
    o.width = 100;
    std::string out = render_text_stage(one_stage({}, "", text), 0, o);
    BOOST_TEST(out.find("d_k = 4. The backward") != std::string::npos, out);
    // while a list that starts at 1 after a paragraph line is still a list
    std::string list = "Three steps:\n1. score\n2. scale\n3. softmax";
    std::string listed = render_text_stage(one_stage({}, "", list), 0, o);
    BOOST_TEST(listed.find("\n2. scale") != std::string::npos, listed);
}

BOOST_AUTO_TEST_CASE(nan_weights_are_marked_not_painted_like_zero) {
    trace t = weights_trace(matrix::of({{std::nanf(""), 0.0f, 1.0f}}));
    std::string out = render_text_stage(t, 0, plain());
    BOOST_TEST(out.find("!!!") != std::string::npos);
    BOOST_TEST(out.find("not a number") != std::string::npos);
    render_options o = plain();
    o.color = true;
    out = render_text_stage(t, 0, o);
    BOOST_TEST(out.find("\x1b[48;2;200;030;030m") != std::string::npos);  // red, off the viridis scale
}

BOOST_AUTO_TEST_CASE(many_tokens_use_a_per_row_scale_and_say_so) {
    matrix m(10, 10, 0.08f);  // ten tokens: on 0–1 every cell would be blank or faint
    for (std::size_t i = 0; i < 10; ++i) m(i, i) = 0.28f;
    std::string out = render_text_stage(weights_trace(m), 0, plain());
    BOOST_TEST(out.find("row max") != std::string::npos);
    BOOST_TEST(out.find("█") != std::string::npos);  // each row's largest weight is full
    std::string few = render_text_stage(weights_trace(matrix::of({{0.5f, 0.5f}, {0.25f, 0.75f}})), 0, plain());
    BOOST_TEST(few.find("row max") == std::string::npos);
    BOOST_TEST(few.find(" 1\n") != std::string::npos);  // "0 ░▒▓█ 1": the fixed scale
}

BOOST_AUTO_TEST_CASE(colour_depth_follows_what_the_terminal_can_show) {
    trace t = weights_trace(matrix::of({{0.0f, 1.0f}}));
    render_options o = plain();
    o.color = true;
    o.depth = color_depth::palette256;
    std::string out = render_text_stage(t, 0, o);
    BOOST_TEST(out.find("\x1b[48;5;") != std::string::npos);
    BOOST_TEST(out.find("\x1b[48;2;") == std::string::npos);
    o.depth = color_depth::basic16;
    out = render_text_stage(t, 0, o);
    BOOST_TEST(out.find("\x1b[48;") == std::string::npos);
    BOOST_TEST(out.find("█") != std::string::npos);  // shades on the Linux console
}

BOOST_AUTO_TEST_CASE(control_and_bidi_characters_are_shown_escaped) {
    value X = value::of(matrix::of({{1.0f}, {2.0f}, {3.0f}, {4.0f}, {5.0f}}),
                        labels{{"a\x1b[31m", std::string("b\r"), "c\x07", std::string("d\0", 2), "e\u202e"}, "tokens"},
                        labels{});
    trace t = one_stage({{"X\x08", role::input, X, std::nullopt}}, "X = X\x1b\n", "text\x07 here\n");
    t.title = "title\x1b]0;pwned\x07";
    t.scenario = "evil\x1b[2J";
    std::string out = render_text(t, plain());
    bool clean = std::none_of(out.begin(), out.end(), [](char ch) {
        return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n') || ch == 0x7F;
    });
    BOOST_TEST(clean);
    BOOST_TEST(out.find("\u202e") == std::string::npos);
    for (std::string_view shown : {"a\\x1b[31m", "b\\x0d", "c\\x07", "d\\x00", "e\\u202e", "X\\x08", "X = X\\x1b",
                                   "text\\x07 here", "title\\x1b]0;pwned\\x07", "evil\\x1b[2J"})
        BOOST_TEST(out.find(shown) != std::string::npos, shown);
}

BOOST_AUTO_TEST_CASE(weights_too_wide_for_their_table_keep_every_column_in_the_heatmap) {
    // 20 tokens, each looking one back: the table elides the middle columns, and with them the stripe
    matrix m(20, 20);
    m(0, 0) = 1;
    for (std::size_t i = 1; i < 20; ++i) m(i, i - 1) = 1;
    labels letters{{}, "queries"};
    for (char c = 'a'; c < 'a' + 20; ++c) letters.names.push_back(std::string(1, c));
    value v = value::of(m, letters, {letters.names, "keys"});
    v.weights = true;
    trace t = one_stage({{"A", role::output, v, row_sums_of(v)}});
    render_options o = plain(4);
    o.width = 80;
    const auto lines = lines_of(render_text_stage(t, 0, o));
    // the heatmap's header names all 20 keys, two-character cells a space apart: "  a  b  c … t  "
    auto head = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("  a  b  c  d", 0) == 0; });
    BOOST_TEST_REQUIRE((head != lines.end()));
    BOOST_TEST(head->find("s  t") != std::string::npos);
    // row k (from 0) is full in column k − 1: 2 + 3 (k − 1) characters in, after its name and a space
    for (std::size_t k = 1; k < 20; ++k) {
        const std::string& row = *(head + static_cast<long>(k) + 1);
        BOOST_TEST(row.rfind(letters.names[k] + " ", 0) == 0u);
        BOOST_TEST(row.find("██") == 2 + 3 * (k - 1), "row " << k << ": " << row);
    }
    for (const auto& line : lines) BOOST_TEST(display_width(line) <= 80u);
    // too narrow even for one-character cells: the heatmap elides as the table does
    o.width = 30;
    BOOST_TEST(render_text_stage(t, 0, o).find("  a  b  c  d") == std::string::npos);
}
