// The HTML handout without a browser: the escape function on every special character, a page
// that cannot be broken by a title or label, weights painted with their numbers and a legend, and
// nothing that would reach the network. (tests/test_browser.cpp renders real pages in Chromium.)
#define BOOST_TEST_MODULE html
#include <boost/test/unit_test.hpp>

#include <regex>

#include "qkv/render_html.hpp"
#include "support/text.hpp"

using namespace qkv;
using qkv::test::check_has_each;
using qkv::test::count_of;

namespace {

trace one_stage(std::vector<shown_value> values, std::string title = "Weights") {
    trace t;
    t.lesson = 5;
    t.title = "Softmax";
    t.scenario = "苹果很甜";
    t.stage_count = 3;
    stage_trace s;
    s.index = 2;
    s.id = "weights";
    s.title = std::move(title);
    s.formula = "A = softmax(S)\n";
    s.text = "First line of a paragraph\nthat goes on.\n\n第二段：苹果\n很甜。\n";
    s.values = std::move(values);
    t.stages.push_back(std::move(s));
    return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(escape_turns_every_special_character_into_an_entity) {
    BOOST_TEST(html_escape("") == "");
    BOOST_TEST(html_escape("plain 苹果") == "plain 苹果");
    BOOST_TEST(html_escape("a < b && c > d") == "a &lt; b &amp;&amp; c &gt; d");
    BOOST_TEST(html_escape("\"q\" 'a'") == "&quot;q&quot; &#39;a&#39;");
    BOOST_TEST(html_escape("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;");
    BOOST_TEST(html_escape("&amp;") == "&amp;amp;");  // escaped again: the text "&amp;" stays visible as typed
}

BOOST_AUTO_TEST_CASE(what_comes_from_files_cannot_make_markup) {
    value v = value::of(matrix::of({{1, 2}}), labels{{"<b>"}, "tokens"}, labels{{"a&b", "\"c\""}, ""});
    trace t = one_stage({{"X<", role::input, v, std::nullopt}}, "<img src=x onerror=alert(1)>");
    std::string page = render_html({t}, render_options{});
    BOOST_TEST(page.find("<img") == std::string::npos);
    check_has_each(page, {"&lt;img src=x onerror=alert(1)&gt;", "<th scope=\"row\">&lt;b&gt;</th>",
                          "<th scope=\"col\">a&amp;b</th>", "<th scope=\"col\">&quot;c&quot;</th>",
                          "data-name=\"X&lt;\""});
    // Every tag opened is closed: as many <table and </table>, <section and </section>.
    BOOST_TEST(count_of(page, "<table") == count_of(page, "</table>"));
    BOOST_TEST(count_of(page, "<section") == count_of(page, "</section>"));
}

BOOST_AUTO_TEST_CASE(a_page_loads_nothing_from_anywhere) {
    value A = value::of(matrix::of({{0.25f, 0.75f}, {1.0f, 0.0f}}));
    A.weights = true;
    std::string page = render_html({one_stage({{"A", role::output, A, value::of(matrix::of({{1}, {1}}))}})}, render_options{});
    BOOST_TEST(page.starts_with("<!DOCTYPE html>"));
    BOOST_TEST(page.find("<meta charset=\"utf-8\">") != std::string::npos);
    for (const char* net : {"http:", "https:", "//", "src=", "<link", "@import", "url(", "<script"})
        BOOST_TEST(page.find(net) == std::string::npos, "the page contains " << net);
}

BOOST_AUTO_TEST_CASE(weights_are_painted_with_their_number_and_a_legend) {
    // viridis ends: 0 is #440154 (68, 1, 84), 1 is #fde725 (253, 231, 37); the middle stop, 0.5,
    // is #21918c (33, 145, 140). 0.25 is the second stop exactly, #3b528b (59, 82, 139).
    value A = value::of(matrix::of({{0.0f, 1.0f}, {0.5f, 0.25f}}), labels{{"苹果", "甜"}, "queries"},
                        labels{{"苹果", "甜"}, "keys"});
    A.weights = true;
    value sums = value::of(matrix::of({{1.0f}, {0.75f}}));
    std::string page = render_html({one_stage({{"A", role::output, A, sums}})}, render_options{});
    // each cell says where it is (data-i, data-j from 1), for qkv serve's page to ask how it was made
    check_has_each(page, {"<td class=\"heat\" style=\"background:#440154;color:#fff\" data-i=\"1\" data-j=\"1\">0.0000</td>",
                          "<td class=\"heat\" style=\"background:#fde725;color:#000\" data-i=\"1\" data-j=\"2\">1.0000</td>",
                          "<td class=\"heat\" style=\"background:#21918c;color:#fff\" data-i=\"2\" data-j=\"1\">0.5000</td>",
                          "<td class=\"heat\" style=\"background:#3b528b;color:#fff\" data-i=\"2\" data-j=\"2\">0.2500</td>",
                          "<td class=\"sum\">0.7500</td>", "row sums"});
    BOOST_TEST(count_of(page, "class=\"legend\"") == 1u);
    BOOST_TEST(count_of(page, "class=\"swatch\"") == 5u);
}

BOOST_AUTO_TEST_CASE(stage_heading_formula_and_paragraphs) {
    std::string page = render_html({one_stage({})}, render_options{});
    check_has_each(page, {"<h1>Lesson 5 · Softmax</h1>", "<h2><span class=\"index\">2/3</span>Weights</h2>",
                          "<pre class=\"formula\"><code>A = softmax(S)</code></pre>",
                          // An English line break is a space; between two Chinese characters it is nothing.
                          "<p class=\"text\">First line of a paragraph that goes on.</p>",
                          "<p class=\"text\">第二段：苹果很甜。</p>"});
}

BOOST_AUTO_TEST_CASE(chinese_pages_say_so_and_wide_matrices_are_elided) {
    render_options o;
    o.language = lang::zh;
    matrix wide(2, 20);
    for (std::size_t c = 0; c < 20; ++c) wide(0, c) = static_cast<float>(c);
    std::string page = render_html({one_stage({{"W", role::input, value::of(wide), std::nullopt}})}, o);
    BOOST_TEST(page.find("<html lang=\"zh-Hans\">") != std::string::npos);
    BOOST_TEST(page.find("<h1>第 5 课 · Softmax</h1>") != std::string::npos);
    // 20 columns: the first 3 and the last 3 around a "…" (as the Markdown handout does).
    BOOST_TEST(page.find("<td data-i=\"1\" data-j=\"3\">2.0000</td><td>…</td><td data-i=\"1\" data-j=\"18\">17.0000</td>") !=
               std::string::npos);
    o.full = true;
    std::string full = render_html({one_stage({{"W", role::input, value::of(wide), std::nullopt}})}, o);
    BOOST_TEST(full.find("<td data-i=\"1\" data-j=\"10\">9.0000</td>") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_preface_is_shown_first_and_escaped) {
    render_options o;
    o.preface = "name = \"<me>\"\n";
    std::string page = render_html({one_stage({})}, o);
    auto pre = page.find("<pre class=\"preface\">name = &quot;&lt;me&gt;&quot;\n</pre>");
    BOOST_TEST(pre != std::string::npos);
    BOOST_TEST(pre < page.find("<article"));
}

BOOST_AUTO_TEST_CASE(escape_writes_out_control_and_bidi_characters) {
    BOOST_TEST(html_escape("a\x1b[31mb") == "a\\x1b[31mb");
    BOOST_TEST(html_escape("right\u202eleft") == "right\\u202eleft");
    BOOST_TEST(html_escape("two\nlines\ttab") == "two\nlines\ttab");  // line ends and tabs stay
}
