// Issue 15: what a file or a student gives is shown, never obeyed. Each hostile text is run in
// every format a terminal may show; the output holds no raw control byte (ESC, BEL, CR, BS, NUL,
// DEL) and no bidi override, and shows the escaped form instead. validate names each one.
#define BOOST_TEST_MODULE shown_escaped
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <string_view>

#include "support/cli_suite.hpp"

namespace {

bool has_raw_control(const std::string& s) {
    bool c0 = std::any_of(s.begin(), s.end(), [](char ch) {
        return (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7F;
    });
    return c0 || s.find("\u202e") != std::string::npos;
}

// Markdown with its inline code spans (`…`, ``…``) taken out: what a reader parses as markup.
std::string without_code_spans(std::string_view md) {
    std::string out;
    for (std::size_t i = 0; i < md.size();) {
        if (md[i] != '`') {
            out += md[i++];
            continue;
        }
        std::size_t run = std::min(md.find_first_not_of('`', i), md.size()) - i;
        std::size_t close = md.find(std::string(run, '`'), i + run);
        if (close == std::string_view::npos) return out + std::string(md.substr(i));
        i = close + run;
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(control_characters_in_a_scenario_are_shown_escaped) {
    qkv::test::scratch_dir dir{"hostile"};
    write_file(dir / "s.toml",
               "name = \"evil\\u001b[2J\"\n"
               "tokens = [\"a\\u001b[31m\", \"b\\r\", \"c\\u0007\", \"d\\u0000\", \"e\\u202e\", \"<script>x</script>\"]\n"
               "[matrices]\nX = { randn = [6, 4], seed = 1 }\n");
    const std::string data = (dir / "s.toml").string();
    for (std::string format : {"text", "markdown", "html"}) {
        auto r = run_qkv({"lesson", "1", "--data", data, "--color", "never", "--format", format});
        BOOST_TEST_CONTEXT(format) {
            BOOST_TEST(r.status == 0, r.err);
            BOOST_TEST(!has_raw_control(r.out));
            // a page shows it as text: html escaped, markdown as a token in a code span, where nothing is markup
            if (format == "html") BOOST_TEST(r.out.find("<script>") == std::string::npos);
            if (format == "markdown") BOOST_TEST(without_code_spans(r.out).find("<script>") == std::string::npos);
            // Markdown escapes the backslash itself (and '['): "a\\x1b\[31m" shows as a\x1b[31m.
            for (std::string_view shown : {"a\\", "x1b", "b\\", "x0d", "x07", "x00", "u202e", "evil\\"})
                BOOST_TEST(r.out.find(shown) != std::string::npos, shown);
        }
    }
    auto v = run_qkv({"validate", data});
    BOOST_TEST(v.status == 1);
    BOOST_TEST(!has_raw_control(v.out));
    for (std::string_view said : {"s.toml:1:", "s.toml:2:", "(\\x1b)", "(\\x0d)", "(\\x07)", "(\\x00)", "(\\u202e)"})
        BOOST_TEST(v.out.find(said) != std::string::npos, said);
}

BOOST_AUTO_TEST_CASE(an_escape_in_a_lesson_title_is_shown_escaped) {
    qkv::test::scratch_dir dir{"hostile"};
    std::string one = read_file("lessons/01-simplified.toml");
    const std::string title = "en = \"Simplified self-attention: no weights\"";
    BOOST_REQUIRE(one.find(title) != std::string::npos);
    one.replace(one.find(title), title.size(), "en = \"Simplified\\u001b]0;pwned\\u0007 \\u202eattention\"");
    write_file(dir / "01-evil.toml", one);
    auto r = run_qkv({"run", (dir / "01-evil.toml").string(), "--color", "never"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(!has_raw_control(r.out));
    BOOST_TEST(r.out.find("Simplified\\x1b]0;pwned\\x07 \\u202eattention") != std::string::npos);
    auto v = run_qkv({"validate", (dir / "01-evil.toml").string()});
    BOOST_TEST(v.status == 1);
    BOOST_TEST(v.out.find("01-evil.toml:3:") != std::string::npos);
    // the same title in `qkv list`, on the full screen of --step/--present (a pipe: line mode),
    // and in an error message that quotes it
    auto list = run_qkv({"list"}, "", {{"QKV_LESSONS", dir.path.string()}});
    BOOST_TEST(list.status == 0, list.err);
    BOOST_TEST(!has_raw_control(list.out));
    BOOST_TEST(list.out.find("Simplified\\x1b]0;pwned\\x07 \\u202eattention") != std::string::npos, list.out);
    auto unknown = run_qkv({"lesson", "Simplified\x1b]0;\xe2\x80\xae"}, "", {{"QKV_LESSONS", dir.path.string()}});
    BOOST_TEST(unknown.status == 2);
    BOOST_TEST(!has_raw_control(unknown.err));
    BOOST_TEST(unknown.err.find("\\u202e") != std::string::npos, unknown.err);
}

BOOST_AUTO_TEST_CASE(an_answer_with_control_characters_is_echoed_escaped) {
    qkv::test::scratch_dir dir{"hostile"};
    write_file(dir / "sheet.toml", "\"3.1\" = \"(3, 3)\\u001b[2J\\r\"\n");
    auto r = run_qkv({"grade", (dir / "sheet.toml").string()}, "", {{"XDG_STATE_HOME", dir.path.string()}});
    BOOST_TEST(!has_raw_control(r.out + r.err));
    BOOST_TEST((r.out + r.err).find("\\x1b[2J") != std::string::npos, r.out + r.err);
}

