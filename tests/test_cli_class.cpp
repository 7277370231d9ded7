// The exercise commands as a teacher meets them: a graded sheet and a class of sheets, and each
// student's own numbers and own order of choices, graded on what that student was shown.
#define BOOST_TEST_MODULE cli_class
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/progress.hpp"
#include "support/text.hpp"

using namespace qkv::test;

BOOST_AUTO_TEST_CASE(grading_a_sheet) {
    fresh f;
    BOOST_REQUIRE(run_qkv({"check", "1.1", "0.3"}).status == 0);
    std::string before = read_file(progress_file());
    f.file("S.csv", "1.4825 0.1705 2.5965\n0.498 0.105 1.5669\n2.675 0.145 1.4748\n");
    std::string sheet = f.file("sheet.toml", "\"3.1\" = \"100x100\"\n\"3.2\" = \"0.145\"\n\"3.3\" = \"S.csv\"\n");
    auto r = run_qkv({"grade", sheet});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(has(r.out, "Total: 2/4"));  // 3.4 was not answered
    BOOST_TEST(has(r.out, "no answer"));
    BOOST_TEST(has(r.out, "put the transpose in the wrong place"));
    auto j = nlohmann::json::parse(run_qkv({"grade", sheet, "--format", "json"}).out);
    BOOST_TEST(j["correct"] == 2);
    BOOST_TEST(j["total"] == 4);
    std::map<std::string, std::string> result;
    for (auto& e : j["exercises"]) result[e["id"]] = e["result"];
    BOOST_TEST(result["3.1"] == "correct");
    BOOST_TEST(result["3.2"] == "wrong");
    BOOST_TEST(result["3.3"] == "correct");
    BOOST_TEST(result["3.4"] == "missing");
    BOOST_TEST(j["exercises"][1]["mistakes"][0] == "k_not_transposed");
    std::string full = f.file("full.toml", "\"3.1\" = \"(100, 100)\"\n\"3.2\" = 1.567\n\"3.3\" = \"S.csv\"\n\"3.4\" = \"c\"\n");
    BOOST_TEST(run_qkv({"grade", full}).status == 0);
    std::string bad = f.file("bad.toml", "\"3.1\" = \"100x100\"\n\"3.77\" = \"1\"\n");
    auto e = run_qkv({"grade", bad});  // the unknown id is reported, the rest still graded
    BOOST_TEST(e.status == 1);
    BOOST_TEST(has(e.out, "bad.toml:2"), e.out);
    BOOST_TEST(has(e.out, "3.77"));
    BOOST_TEST(has(e.out, "Total: 1/4"), e.out);  // 3.1 right; 3.2-3.4 not answered
    std::string unreadable = f.file("abc.toml", "\"3.2\" = \"abc\"\n");
    auto u = run_qkv({"grade", unreadable});
    BOOST_TEST(u.status == 1);
    BOOST_TEST(has(u.out, "unreadable"));
    BOOST_TEST(read_file(progress_file()) == before);  // grading is not the teacher's own progress
}

// The numbers of the row labelled `label` in the matrix printed under "NAME  [" in `out`.
std::vector<double> printed_row(const std::string& out, const std::string& name, const std::string& label) {
    std::istringstream in(out.substr(out.find(name + "  [")));
    std::vector<double> row;
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with(label + " ")) continue;
        std::istringstream cells(line.substr(label.size()));
        for (double x; cells >> x;) row.push_back(x);
        break;
    }
    return row;
}

BOOST_AUTO_TEST_CASE(a_student_has_their_own_numbers_and_is_graded_on_them) {
    fresh f;
    // carl's Q and K as `qkv exercise 3.2 --student carl` prints them; s23 = q(2)·k(3), by the test
    auto shown = run_qkv({"exercise", "3.2", "--student", "carl"});
    BOOST_REQUIRE(shown.status == 0);
    std::vector<double> q2 = printed_row(shown.out, "Q", "很"), k3 = printed_row(shown.out, "K", "甜");
    BOOST_REQUIRE(q2.size() == 4u);
    BOOST_REQUIRE(k3.size() == 4u);
    double s23 = 0;
    for (int i = 0; i < 4; ++i) s23 += q2[i] * k3[i];
    BOOST_TEST(std::fabs(s23 - 1.5669) > 0.05, "carl's numbers are not the lesson's own");
    // printed to 4 decimals: 4 products of numbers up to ~2 carry under 1e-3 of rounding
    std::string answer = fmt::format("{:.4f}", s23);
    BOOST_TEST(run_qkv({"check", "3.2", answer, "--student", "carl"}).status == 0);
    BOOST_TEST(run_qkv({"check", "3.2", answer}).status == 1);  // not right on the lesson's own numbers
    auto again = run_qkv({"exercise", "3.2", "--student", "carl"}).out;  // the same name, the same numbers
    BOOST_TEST(printed_row(again, "Q", "很") == q2, boost::test_tools::per_element());

    // a class: four sheets in a folder, one of them not TOML at all, one naming its student
    fs::create_directories(f.dir / "class");
    f.file("class/ann.toml", "\"3.1\" = \"(100, 100)\"\n\"3.2\" = \"1.567\"\n");
    f.file("class/bob.toml", "\"3.2\" = \"0.145\"\n");  // K·Qᵀ: the transpose in the wrong place
    f.file("class/carl.toml", "student = \"carl\"\n\"3.2\" = \"" + answer + "\"\n\"9.99\" = \"1\"\n");
    f.file("class/dan.toml", "\"3.2\" = \n");
    std::string folder = (f.dir / "class").string();
    auto r = run_qkv({"grade", folder});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "Class: 4 sheets"), r.out);
    BOOST_TEST(has(r.out, "carl.toml:3"), r.out);  // the unknown id, reported for carl's sheet
    BOOST_TEST(has(r.out, "dan.toml:1"), r.out);   // the unreadable sheet, reported, the others graded
    BOOST_TEST(has(r.out, "2/4 right (3 answered)"), r.out);  // 3.2: ann and carl of the class of 4; dan's is unreadable
    BOOST_TEST(has(r.out, "1 / 4: put the transpose in the wrong place"), r.out);
    auto j = nlohmann::json::parse(run_qkv({"grade", folder, "--format", "json"}).out);
    BOOST_TEST(j["sheets"].size() == 4u);
    for (auto& q : j["questions"])
        if (q["id"] == "3.2") {
            BOOST_TEST(q["right"] == 2);
            BOOST_TEST(q["students"] == 4);
            BOOST_TEST(q["answered"] == 3);
            BOOST_TEST(q["mistakes"][0]["id"] == "k_not_transposed");
        }
    auto csv = run_qkv({"grade", folder, "--format", "csv"});
    BOOST_TEST(has(csv.out, "student,sheet,correct,total,3.1,3.2,3.3,3.4\n"), csv.out);
    BOOST_TEST(has(csv.out, "ann,"), csv.out);
    BOOST_TEST(has(csv.out, ",2,4,1,1,,\n"), csv.out);  // ann: 3.1 and 3.2 right, 3.3 and 3.4 not answered

    // one assignment for the class: lessons 3 and 5 for everyone, so a sheet that leaves out
    // lesson 5 loses its questions (the counts from the exercise files, as qkv exercises lists them)
    auto count_ids = [&](const char* lesson) {
        std::string ids = run_qkv({"exercises", "--ids", "--lesson", lesson}).out;
        return static_cast<std::size_t>(std::count(ids.begin(), ids.end(), '\n'));
    };
    const std::size_t assigned = count_ids("3") + count_ids("5");
    f.file("assignment.toml", "lessons = [3]\nexercises = [" + [&] {
        std::string ids = run_qkv({"exercises", "--ids", "--lesson", "5"}).out, list;
        std::istringstream in(ids);
        for (std::string id; std::getline(in, id);) list += (list.empty() ? "\"" : ", \"") + id + "\"";
        return list;
    }() + "]\n");
    for (const std::vector<std::string>& how : {std::vector<std::string>{"--assignment", (f.dir / "assignment.toml").string()},
                                                std::vector<std::string>{"--lesson", "3", "--lesson", "5"}}) {
        std::vector<std::string> args{"grade", folder, "--format", "json"};
        args.insert(args.end(), how.begin(), how.end());
        auto graded = nlohmann::json::parse(run_qkv(args).out);
        for (auto& sheet : graded["sheets"]) BOOST_TEST(sheet["total"] == assigned, sheet["student"]);
        for (auto& q : graded["questions"]) BOOST_TEST(q["students"] == 4);
    }
    auto other = run_qkv({"grade", folder, "--lesson", "5"});  // ann's 3.1 and 3.2 are outside it
    BOOST_TEST(has(other.out, "3.1 is not in the assignment; not graded"), other.out);
    auto bad = run_qkv({"grade", folder, "--assignment", (f.dir / "class/ann.toml").string()});
    BOOST_TEST(bad.status == 2);
    BOOST_TEST(has(bad.err, "ann.toml:1:"), bad.err);
}

BOOST_AUTO_TEST_CASE(a_student_has_their_own_order_of_choices) {
    fresh f;
    // 7.3's choices as the exercise file orders them, and the right one's text (qkv solution)
    auto choices_of = [](const std::string& out) {
        std::map<char, std::string> by_letter;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);)
            if (line.size() > 4 && line[0] == ' ' && line[1] == ' ' && line[2] >= 'A' && line[2] <= 'D' && line[3] == '.')
                by_letter[line[2]] = line.substr(5);
        return by_letter;
    };
    const auto file = choices_of(run_qkv({"exercise", "7.3"}).out);
    BOOST_REQUIRE(file.size() == 4u);
    char file_letter = 0;  // the one letter check accepts without a student
    for (char c : {'A', 'B', 'C', 'D'})
        if (run_qkv({"check", "7.3", std::string(1, c)}).status == 0) file_letter = c;
    BOOST_REQUIRE(file_letter != 0);
    std::set<std::string> orders;
    for (std::string student : {"alice", "bob", "carol", "dave", "erin"}) {
        const auto mine = choices_of(run_qkv({"exercise", "7.3", "--student", student}).out);
        BOOST_REQUIRE(mine.size() == 4u);
        std::string order;
        char shown = 0;
        for (auto& [letter, text] : mine) {
            auto it = std::find_if(file.begin(), file.end(), [&](auto& p) { return p.second == text; });
            BOOST_REQUIRE(it != file.end());  // the same choices, in another order
            order += it->first;
            if (it->first == file_letter) shown = letter;
        }
        orders.insert(order);
        BOOST_TEST(mine == choices_of(run_qkv({"exercise", "7.3", "--student", student}).out));  // the same every time
        // graded against the order the student saw: the letter they see beside the right text
        BOOST_TEST(run_qkv({"check", "7.3", std::string(1, shown), "--student", student}).status == 0, student);
        if (shown != file_letter)
            BOOST_TEST(run_qkv({"check", "7.3", std::string(1, file_letter), "--student", student}).status == 1, student);
        // the solution gives the right choice under this student's letter, says whose letter it is,
        // and names none of its own (its prose once began "C." for everyone)
        std::string says = run_qkv({"solution", "7.3", "--student", student}).out;
        std::replace(says.begin(), says.end(), '\n', ' ');
        BOOST_TEST(says.find(std::string(1, shown) + ". " + file.at(file_letter).substr(0, 30)) != std::string::npos, says);
        BOOST_TEST(says.find("(" + std::string(1, shown) + " is the letter in " + student + "'s order of the choices") != std::string::npos, says);
        BOOST_TEST(says.find("in the exercise file's order, it is " + std::string(1, file_letter) + ")") != std::string::npos, says);
        for (char c : {'A', 'B', 'C', 'D'})
            BOOST_TEST(says.find(std::string("  ") + c + ". ") == std::string::npos, says);
    }
    BOOST_TEST(orders.size() >= 3u, "five students, " << orders.size() << " orders");  // 24 orders to draw from
}
