// Exercise files: a malformed one says file:line, a choice is never named by its letter, a reader
// given a list collects every problem (for `qkv validate`), and an expected value suits its kind.
#define BOOST_TEST_MODULE exercise_files
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <regex>

#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "qkv/toml_file.hpp"
#include "support/shipped_exercises.hpp"
#include "support/training.hpp"

using namespace qkv;
using namespace qkv::test;

namespace {

// The error reading an exercise file (as x.toml) gives, or "no error".
std::string exercise_file_error(const std::string& text, const mistake_book& book) {
    try {
        parse_exercises(text, "x.toml", book);
    } catch (const input_error& e) {
        return std::string(e.what());
    }
    return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(malformed_files_say_where) {
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    auto error_of = [&](const std::string& text) { return exercise_file_error(text, book); };
    const std::string head = "lesson = 3\n[[exercise]]\nid = \"3.1\"\nkind = \"number\"\n"
                             "question = { zh = \"问\", en = \"q\" }\nsolution = { zh = \"解\", en = \"s\" }\n"
                             "hints = [{ zh = \"提示\", en = \"h\" }]\n";
    BOOST_TEST(error_of(head + "expected = \"S[2, 3]\"\n") == "no error");
    std::string e = error_of(head + "expected = \"S[2, 3]\"\ncolour = 1\n");
    BOOST_TEST(e.find("x.toml:9:") == 0u, e);
    BOOST_TEST(e.find("unknown key 'colour'") != std::string::npos, e);
    e = error_of(head + "expected = \"S[2, 3]\"\nmistakes = { forgot_everything = \"S\" }\n");
    BOOST_TEST(e.find("x.toml:9:") == 0u, e);
    BOOST_TEST(e.find("'forgot_everything' is not in mistakes.toml") != std::string::npos, e);
    e = error_of(head + "expected = \"S[2, \"\n");
    BOOST_TEST(e.find("x.toml:8:") == 0u, e);  // the formula's own position
    e = error_of(head + "expected = \"S\"\nanswer = \"B\"\n");
    BOOST_TEST(e.find("only a choice has 'answer'") != std::string::npos, e);
    e = error_of(head);
    BOOST_TEST(e.find("missing 'expected'") != std::string::npos, e);
    e = error_of("lesson = 4\n" + head.substr(head.find('\n') + 1) + "expected = \"S\"\n");
    BOOST_TEST(e.find("id '3.1' must be 4.K") != std::string::npos, e);
    // lesson 0 (why attention) has exercises too; a negative lesson is no lesson
    std::string zero = head;
    zero.replace(zero.find("lesson = 3"), 10, "lesson = 0");
    zero.replace(zero.find("3.1"), 3, "0.1");
    BOOST_TEST(error_of(zero + "expected = \"S\"\n") == "no error");
    e = error_of("lesson = -1\n" + head.substr(head.find('\n') + 1) + "expected = \"S\"\n");
    BOOST_TEST(e.find("lesson must be a lesson number") != std::string::npos, e);
    e = error_of("lesson = 3\n[[exercise]]\nid = \"3.1\"\nkind = \"choice\"\nquestion = { zh = \"问\", en = \"q\" }\n"
                 "solution = { zh = \"解\", en = \"\" }\nhints = [{ zh = \"提示\", en = \"h\" }]\n");
    BOOST_TEST(e.find("zh and en must both be written") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(a_choice_names_no_choice_by_its_letter) {
    // --student shuffles the choices, so "C. Generation moves…" in a solution is wrong for most of
    // the room; qkv prints the right letter for whoever asks, the file's prose names none
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    auto choice = [&](const std::string& solution_en, const std::string& why_not_zh) {
        return exercise_file_error("lesson = 3\n[[exercise]]\nid = \"3.1\"\nkind = \"choice\"\nquestion = { zh = \"问\", en = \"q\" }\n"
                                   "choices = [{ zh = \"甲\", en = \"a\" }, { zh = \"乙\", en = \"b\" }]\nanswer = \"B\"\n"
                                   "why_not.A = { zh = \"" + why_not_zh + "\", en = \"no\" }\n"
                                   "solution = { zh = \"解\", en = \"" + solution_en + "\" }\nhints = [{ zh = \"提示\", en = \"h\" }]\n",
                                   book);
    };
    BOOST_TEST(choice("Because b.", "不对") == "no error");
    BOOST_TEST(choice("A model that peeks learns nothing.", "A 的行和为 1") == "no error");  // A the article, A the matrix
    std::string e = choice("B. Because b.", "不对");
    BOOST_TEST(e.find("x.toml:9:") == 0u, e);
    BOOST_TEST(e.find("the solution names a choice by its letter") != std::string::npos, e);
    e = choice("Because b.", "选项 B 才对");
    BOOST_TEST(e.find("why_not.A names a choice by its letter") != std::string::npos, e);
    // and no shipped exercise does
    for (const exercise& x : shipped().all)
        for (lang l : {lang::zh, lang::en})
            if (x.kind == answer_kind::choice) BOOST_TEST(!std::regex_search(x.solution.in(l), std::regex(R"(^\s*[A-D]\s*[.。])")), x.id);
}

// For `qkv validate`: the same reader lists every problem, each at its line, and returns the
// exercises that read cleanly.
BOOST_AUTO_TEST_CASE(a_wrong_shape_written_out_is_a_mistake_too) {
    // PyTorch's per-head weights are [1, 8, 10, 10]: four dimensions, which no formula value has,
    // so 8.6 names that mistake with shape(1, 8, 10, 10)
    verdict v = judged("8.6", shape({1, 8, 10, 10}));
    BOOST_TEST(!v.correct);
    BOOST_TEST((std::find(v.mistakes.begin(), v.mistakes.end(), "per_head_weights") != v.mistakes.end()));
    BOOST_TEST(judged("8.6", shape({1, 10, 10})).correct);
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    const std::string head = "lesson = 3\n[[exercise]]\nid = \"3.1\"\nquestion = { zh = \"问\", en = \"q\" }\n"
                             "solution = { zh = \"解\", en = \"s\" }\nhints = [{ zh = \"提示\", en = \"h\" }]\nexpected = \"S\"\n";
    auto error_of = [&](const std::string& text) { return exercise_file_error(text, book); };
    BOOST_TEST(error_of(head + "kind = \"shape\"\nmistakes = { no_scale = \"shape(3, 4)\" }\n") == "no error");
    BOOST_TEST(error_of(head + "kind = \"shape\"\nmistakes = { no_scale = \"shape(3, y)\" }\n").find("x.toml:9:") == 0u);
    BOOST_TEST(error_of(head + "kind = \"number\"\nmistakes = { no_scale = \"shape(3, 4)\" }\n").find("only a shape exercise") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_reader_given_a_list_collects_every_problem) {
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    const std::string text = "lesson = 3\n"
                             "[[exercise]]\n"
                             "id = \"3.1\"\n"
                             "kind = \"numbr\"\n"                          // line 4: no such kind
                             "colour = 1\n"                                // line 5: no such key
                             "question = { zh = \"问\", en = \"q\" }\n"
                             "solution = { zh = \"解\", en = \"\" }\n"       // line 7: no English
                             "hints = [{ zh = \"提示\", en = \"h\" }]\n"
                             "[[exercise]]\n"
                             "id = \"3.2\"\n"
                             "kind = \"number\"\n"
                             "expected = \"S[2, 3]\"\n"
                             "question = { zh = \"问\", en = \"q\" }\n"
                             "solution = { zh = \"解\", en = \"s\" }\n"
                             "hints = [{ zh = \"提示\", en = \"h\" }]\n";
    std::vector<problem> problems;
    auto read = read_exercises(read_toml_text(text, "x.toml"), book, &problems);
    BOOST_REQUIRE_EQUAL(read.size(), 1u);
    BOOST_TEST(read[0].id == "3.2");
    BOOST_REQUIRE_EQUAL(problems.size(), 3u);
    BOOST_TEST(problems[0].str().find("x.toml:5:") == 0u, problems[0].str());  // keys first, then in order
    BOOST_TEST(problems[0].str().find("unknown key 'colour'") != std::string::npos);
    BOOST_TEST(problems[1].str().find("x.toml:4:") == 0u, problems[1].str());
    BOOST_TEST(problems[1].str().find("kind must be") != std::string::npos);
    BOOST_TEST(problems[2].str().find("x.toml:7:") == 0u, problems[2].str());
    BOOST_TEST(problems[2].str().find("zh and en must both be written") != std::string::npos);
    // Without a list, the first of them is thrown.
    try {
        parse_exercises(text, "x.toml", book);
        BOOST_FAIL("no error");
    } catch (const input_error& e) {
        BOOST_TEST(std::string(e.what()) == problems[0].str());
    }
}

BOOST_AUTO_TEST_CASE(expected_value_must_suit_the_kind) {
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    auto list = parse_exercises("lesson = 1\n[[exercise]]\nid = \"1.9\"\nkind = \"number\"\nexpected = \"S\"\n"
                                "question = { zh = \"问\", en = \"q\" }\nsolution = { zh = \"解\", en = \"s\" }\n"
                                "hints = [{ zh = \"提示\", en = \"h\" }]\n",
                                "x.toml", book);
    BOOST_CHECK_THROW(run_exercise(list.front(), lang::en), input_error);  // S is [3, 3], not a number
}
