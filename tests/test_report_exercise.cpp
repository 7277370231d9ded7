// The exercise reports (report_check.hpp, report_grade.hpp) on values built here by hand: a verdict
// and a graded class whose counts are worked out in the comments, so what the words and the JSON
// say is checked against figures that did not come from the program.
#define BOOST_TEST_MODULE report_exercise
#include <boost/test/unit_test.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "qkv/report_check.hpp"
#include "qkv/report_grade.hpp"

using namespace qkv;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

render_options plain_en() {
    render_options o;
    o.language = lang::en;
    o.color = false;
    o.width = 100;
    return o;
}

// 3.2 answered 0.145: s32 = q(甜)·k(很) where s23 = q(很)·k(甜) = -0.015 + 0 + 1.5 + 0.0819 = 1.5669 was asked.
check_verdict wrong_transpose() {
    check_verdict v;
    v.id = "3.2";
    v.lesson = 3;
    v.kind = answer_kind::number;
    v.scenario = "苹果很甜";
    v.answer = "0.145";
    v.correct = false;
    v.mistakes = {{"k_not_transposed", "put the transpose in the wrong place"}};
    v.explanation = {"0.145 is too low (tolerance ±0.01).", "This is what a common mistake gives: put the transpose in the wrong place."};
    v.expected.kind = answer_kind::number;
    v.expected.value = {"S[2, 3]", role::output, value::scalar(1.5669f), std::nullopt};
    v.solution = "Term by term, added up: s23 ≈ 1.567.";
    return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_wrong_verdict_names_its_mistake_and_keeps_the_answer_back) {
    const check_verdict v = wrong_transpose();
    const std::string text = verdict_text(v, plain_en());
    BOOST_TEST(text.starts_with("✗ Not right yet.\n"), text);
    BOOST_TEST(has(text, "0.145 is too low (tolerance ±0.01).\n"), text);
    BOOST_TEST(has(text, "put the transpose in the wrong place"), text);
    BOOST_TEST(text.ends_with("Try again, or ask for a hint: qkv hint 3.2\n"), text);
    BOOST_TEST(!has(text, "1.5669"), text);  // the right answer is not given away
    const json j = json::parse(verdict_json(v));
    BOOST_TEST(j["id"] == "3.2");
    BOOST_TEST(j["lesson"] == 3);
    BOOST_TEST(j["kind"] == "number");
    BOOST_TEST(j["lang"] == "en");
    BOOST_TEST(j["scenario"] == "苹果很甜");
    BOOST_TEST(j["student"].is_null());
    BOOST_TEST(j["answer"] == "0.145");
    BOOST_TEST(j["correct"] == false);
    BOOST_TEST_REQUIRE(j["mistakes"].size() == 1u);
    BOOST_TEST(j["mistakes"][0]["id"] == "k_not_transposed");
    BOOST_TEST(j["mistakes"][0]["text"] == "put the transpose in the wrong place");
    BOOST_TEST(j["explanation"].size() == 2u);
    BOOST_TEST(j["places"].empty());
    BOOST_TEST(j["expected"].is_null());
    BOOST_TEST(j["solution"].is_null());
}

BOOST_AUTO_TEST_CASE(a_right_verdict_gives_the_answer_and_the_solution) {
    check_verdict v = wrong_transpose();
    v.answer = "1.567";
    v.correct = true;  // |1.567 - 1.5669| = 0.0001 ≤ 0.01
    v.mistakes.clear();
    v.explanation.clear();
    render_options o = plain_en();
    o.precision = 2;  // 1.5669 to 2 decimals: 1.57
    const std::string text = verdict_text(v, o);
    BOOST_TEST(text == "✓ Right!\nS[2, 3] = 1.57\n\nWorked solution:\nTerm by term, added up: s23 ≈ 1.567.\n", text);
    const json j = json::parse(verdict_json(v));
    BOOST_TEST(j["correct"] == true);
    BOOST_TEST(j["expected"]["name"] == "S[2, 3]");
    BOOST_TEST(j["expected"]["shape"].empty());  // a number: shape []
    BOOST_TEST(j["expected"]["data"].get<double>() == 1.5669, boost::test_tools::tolerance(1e-6));  // a float's shortest text
    BOOST_TEST(!j["expected"].contains("role"));
    BOOST_TEST(j["solution"] == "Term by term, added up: s23 ≈ 1.567.");
}

BOOST_AUTO_TEST_CASE(a_right_choice_is_given_under_the_students_own_letter) {
    check_verdict v;
    v.id = "7.3";
    v.kind = answer_kind::choice;
    v.student = "alice";
    v.answer = "B";
    v.correct = true;
    v.expected.kind = answer_kind::choice;
    v.expected.letter = 'B';       // alice sees the file's C second
    v.expected.file_letter = 'C';
    v.expected.text = "Generation has only the tokens before.";
    v.expected.student = "alice";
    render_options wide = plain_en();
    wide.width = 200;  // the note on whose letter it is on one line
    const std::string text = verdict_text(v, wide);
    BOOST_TEST(has(text, "B. Generation has only the tokens before.\n"), text);
    BOOST_TEST(has(text, "(B is the letter in alice's order of the choices"), text);
    BOOST_TEST(has(text, "in the exercise file's order, it is C)"), text);
    const json j = json::parse(verdict_json(v));
    BOOST_TEST(j["student"] == "alice");
    BOOST_TEST(j["expected"]["letter"] == "B");
    BOOST_TEST(j["expected"]["file_letter"] == "C");
}

namespace {

// A class of three on 3.1 (a shape) and 3.2 (a number):
//   ann   3.1 correct                       3.2 correct              → 2 of 2
//   bob   3.1 wrong (k_not_transposed)      3.2 wrong (no_scale)     → 0 of 2
//   carl  3.1 unreadable                    3.2 not answered         → 0 of 2, and an unknown id
// so 3.1: 1 right of 3, answered by 3, k_not_transposed made by 1;
//    3.2: 1 right of 3, answered by 2 (carl's is missing), no_scale made by 1.
graded_class three_students() {
    auto row = [](const char* id, answer_kind k, const char* given, grade_result r, std::vector<std::string> mistakes = {}) {
        return graded_answer{id, 3, k, given, r, std::move(mistakes), {}};
    };
    graded_class c;
    c.language = lang::en;
    c.sheets.push_back({"class/ann.toml", "ann", false, {}, {},
                        {row("3.1", answer_kind::shape, "(100, 100)", grade_result::correct),
                         row("3.2", answer_kind::number, "1.567", grade_result::correct)}, ""});
    c.sheets.push_back({"class/bob.toml", "bob", false, {}, {},
                        {row("3.1", answer_kind::shape, "64x64", grade_result::wrong, {"k_not_transposed"}),
                         row("3.2", answer_kind::number, "3.134", grade_result::wrong, {"no_scale"})}, ""});
    c.sheets.push_back({"class/carl.toml", "carl", true, {}, {"class/carl.toml:3:1: no exercise '9.99'; not graded"},
                        {row("3.1", answer_kind::shape, "abc", grade_result::unreadable),
                         row("3.2", answer_kind::number, "", grade_result::missing)}, ""});
    c.sheets[2].rows[0].message = {"'abc' is not a shape"};
    c.questions.push_back({"3.1", answer_kind::shape, 1, 3, 3, {{"k_not_transposed", "put the transpose in the wrong place", 1}}});
    c.questions.push_back({"3.2", answer_kind::number, 1, 2, 3, {{"no_scale", "forgot to divide by √d_k", 1}}});
    return c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_class_in_words_gives_each_score_and_each_questions_counts) {
    const graded_class c = three_students();
    BOOST_TEST(!c.all_right());
    const std::string text = class_text(c, plain_en());
    BOOST_TEST(text.starts_with("Class: 3 sheets\n\n"), text);
    BOOST_TEST(has(text, "  ann      ██████████ 2/2\n"), text);  // names padded to 8; 2 of 2 fills the ten cells
    BOOST_TEST(has(text, "  bob      ░░░░░░░░░░ 0/2\n"), text);
    BOOST_TEST(has(text, "  carl     ░░░░░░░░░░ 0/2\n      ! class/carl.toml:3:1: no exercise '9.99'"), text);
    BOOST_TEST(has(text, "  3.1   shape   1/3 right (3 answered)\n          1 / 3: put the transpose in the wrong place\n"), text);
    BOOST_TEST(has(text, "  3.2   number  1/3 right (2 answered)\n          1 / 3: forgot to divide by √d_k\n"), text);
}

BOOST_AUTO_TEST_CASE(a_class_in_json_and_csv_holds_the_same_figures) {
    const graded_class c = three_students();
    const json j = json::parse(class_json(c));
    BOOST_TEST(j["lang"] == "en");
    BOOST_TEST_REQUIRE(j["sheets"].size() == 3u);
    const json& bob = j["sheets"][1];
    BOOST_TEST(bob["sheet"] == "class/bob.toml");
    BOOST_TEST(bob["student"] == "bob");
    BOOST_TEST(bob["own_numbers"] == false);
    BOOST_TEST(bob["correct"] == 0);
    BOOST_TEST(bob["total"] == 2);
    BOOST_TEST(bob["exercises"][0]["id"] == "3.1");
    BOOST_TEST(bob["exercises"][0]["kind"] == "shape");
    BOOST_TEST(bob["exercises"][0]["answer"] == "64x64");
    BOOST_TEST(bob["exercises"][0]["result"] == "wrong");
    BOOST_TEST(bob["exercises"][0]["mistakes"][0] == "k_not_transposed");
    BOOST_TEST(j["sheets"][2]["own_numbers"] == true);
    BOOST_TEST(j["sheets"][2]["problems"].size() == 1u);
    BOOST_TEST(j["sheets"][2]["exercises"][1]["result"] == "missing");
    BOOST_TEST_REQUIRE(j["questions"].size() == 2u);
    const json& q2 = j["questions"][1];
    BOOST_TEST(q2["id"] == "3.2");
    BOOST_TEST(q2["right"] == 1);
    BOOST_TEST(q2["answered"] == 2);
    BOOST_TEST(q2["students"] == 3);
    BOOST_TEST(q2["mistakes"][0]["id"] == "no_scale");
    BOOST_TEST(q2["mistakes"][0]["sheets"] == 1);
    BOOST_TEST(q2["mistakes"][0]["explanation"] == "forgot to divide by √d_k");
    // 1 right, 0 wrong or unreadable, empty not answered
    BOOST_TEST(class_csv(c) == "student,sheet,correct,total,3.1,3.2\n"
                               "ann,class/ann.toml,2,2,1,1\n"
                               "bob,class/bob.toml,0,2,0,0\n"
                               "carl,class/carl.toml,0,2,0,\n");
}

BOOST_AUTO_TEST_CASE(one_sheet_alone_is_shown_answer_by_answer) {
    graded_class one = three_students();
    one.sheets.erase(one.sheets.begin());  // bob, then carl: keep bob alone
    one.sheets.pop_back();
    const std::string text = grade_report(one, format::text, plain_en());
    BOOST_TEST(text.starts_with("Answer sheet: class/bob.toml\n"), text);
    BOOST_TEST(has(text, "  3.1   shape   64x64               wrong\n"), text);  // answers padded to 19
    BOOST_TEST(text.ends_with("Total: 0/2\n"), text);
    const json j = json::parse(grade_report(one, format::json, plain_en()));
    BOOST_TEST(j["student"] == "bob");  // a sheet alone, not a class
    BOOST_TEST(!j.contains("questions"));
}

// Exercise 18.3 runs on a lesson that makes its own data: its verdict had "scenario" "" in JSON,
// and the exercise's heading ended in "· scenario " with nothing after it.
BOOST_AUTO_TEST_CASE(a_verdict_on_a_lesson_that_made_its_own_data_names_no_scenario) {
    check_verdict v = wrong_transpose();
    v.scenario.clear();
    BOOST_TEST(json::parse(verdict_json(v))["scenario"].is_null());
}
