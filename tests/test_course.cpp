// The course as `qkv lesson` reads it for its what-next (course.hpp), and the lesson files' heads
// it is read from (lesson.hpp), held to the whole files as the full loaders read them: every
// shipped lesson's head must give the number and title load_lesson gives, a head whose first '['
// line is inside a value must fall back to the whole file, and the course read for the lessons
// shown must say of them what the whole course says.
#define BOOST_TEST_MODULE course
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "qkv/course.hpp"
#include "qkv/lesson.hpp"
#include "qkv/toml_file.hpp"
#include "support/scratch.hpp"

using namespace qkv;

namespace {

void write(const std::filesystem::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

std::string title_of(const toml_document& doc, lang l) {
    toml_reader rd(doc);
    return rd.text(*doc.table.get("title"), "title")->in(l);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_shipped_lessons_head_says_what_the_whole_file_says) {
    const auto files = lesson_files(lessons_dir());
    BOOST_TEST_REQUIRE(files.size() >= 20u);
    for (const auto& [n, path] : files) {
        const lesson whole = load_lesson(path);  // the reference: every key of the file read
        const course_entry e = read_course_entry(path);
        BOOST_TEST(e.number == whole.number, path);
        BOOST_TEST(e.title.in(lang::en) == whole.title.in(lang::en), path);
        BOOST_TEST(e.title.in(lang::zh) == whole.title.in(lang::zh), path);
        // and the head is the head: it holds no stage
        BOOST_TEST(!read_lesson_head(path).table.contains("stage"), path);
    }
}

BOOST_AUTO_TEST_CASE(a_head_cut_inside_a_value_is_read_whole) {
    // The first line starting with '[' is inside a multi-line string, then inside a multi-line
    // array: the head alone does not parse, and the whole file must be read instead, so the
    // title and number are the whole file's (toml++ on the full text, by read_toml_file).
    const test::scratch_dir dir("course");
    const std::string stage = "\n[[stage]]\nid = \"a\"\n";
    const std::vector<std::string> texts = {
        "number = 4\nnote = \"\"\"\n[not a table]\n\"\"\"\ntitle = { zh = \"四\", en = \"Four\" }\n" + stage,
        "number = 5\nrows = [\n[1, 2],\n[3, 4],\n]\ntitle = { zh = \"五\", en = \"Five\" }\n" + stage,
        "number = 6\ntitle = { zh = \"六\", en = \"Six\" }\n" + stage,  // cut at the stage: the head alone
    };
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const auto p = (dir / ("0" + std::to_string(i + 4) + "-x.toml")).string();
        write(p, texts[i]);
        const toml_document whole = read_toml_file(p, "lesson file"), head = read_lesson_head(p);
        BOOST_TEST(head.table.get("number")->value_or(std::int64_t{-1}) == whole.table.get("number")->value_or(std::int64_t{-2}));
        BOOST_TEST(title_of(head, lang::en) == title_of(whole, lang::en));
        BOOST_TEST(title_of(head, lang::zh) == title_of(whole, lang::zh));
    }
}

BOOST_AUTO_TEST_CASE(the_course_for_the_lessons_shown_agrees_with_the_whole_course) {
    // The whole course (every lesson and exercise file loaded) is the reference; read for lesson
    // 8 alone, every lesson's number and title and lesson 8's exercises must be its, and the
    // what-next added to a trace of lesson 8 the same.
    const std::vector<course_lesson> all = load_course(lang::en);
    std::vector<trace> shown(1), shown_all(1);
    shown[0].lesson = shown_all[0].lesson = 8;
    const std::vector<course_lesson> some = load_course(lang::en, shown);
    BOOST_TEST_REQUIRE(some.size() == all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        BOOST_TEST(some[i].number == all[i].number);
        BOOST_TEST(some[i].title == all[i].title);
        if (all[i].number == 8) {
            BOOST_TEST(!all[i].exercises.empty());
            BOOST_TEST(some[i].exercises == all[i].exercises);
        } else {
            BOOST_TEST(some[i].exercises.empty(), "lesson " << all[i].number << " was not shown");
        }
    }
    add_what_next(shown, some);
    add_what_next(shown_all, all);
    BOOST_TEST(shown[0].after.known);
    BOOST_TEST(shown[0].after.exercises == shown_all[0].after.exercises);
    BOOST_TEST(shown[0].after.lesson == shown_all[0].after.lesson);
    BOOST_TEST(shown[0].after.lesson_title == shown_all[0].after.lesson_title);
}
