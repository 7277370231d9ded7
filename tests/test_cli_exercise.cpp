// The exercise commands as a learner meets them one at a time: right answers in every spelling,
// wrong ones explained and the mistake named, unreadable ones refused with progress untouched,
// hints one at a time, the list and one exercise shown, help, and the solution when stuck.
#define BOOST_TEST_MODULE cli_exercise
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"
#include "support/progress.hpp"
#include "support/text.hpp"

using namespace qkv::test;

BOOST_AUTO_TEST_CASE(right_answers_in_every_spelling) {
    fresh f;
    for (const char* s : {"(100, 100)", "100x100", "100×100", "[100, 100]", "100 100", "100X100"}) {
        auto r = run_qkv({"check", "3.1", s});
        BOOST_TEST_CONTEXT(s) {
            BOOST_TEST(r.status == 0, r.err);
            BOOST_TEST(has(r.out, "Right!"));
            BOOST_TEST(has(r.out, "Worked solution:"));
            BOOST_TEST(has(r.out, "[100, 64]·[64, 100] → [100, 100]"));  // the worked solution itself
        }
    }
    BOOST_TEST(run_qkv({"check", "3.1", "100", "100"}).status == 0);  // unquoted words are joined
    // (0.93 + 0.16 + 0.38) / 3 = 0.49, in three spellings.
    for (const char* s : {"0.49", "49/100", "4.9e-1"}) BOOST_TEST(run_qkv({"check", "6.2", s}).status == 0, s);
    for (const char* s : {"b", "B"}) BOOST_TEST(run_qkv({"check", "8.2", s}).status == 0, s);
    // Row 很 of the causal weights: [e^0.249, e^0.0525] / (e^0.249 + e^0.0525), then 0.
    double e1 = std::exp(0.498 / 2), e2 = std::exp(0.105 / 2);
    std::string row = fmt::format("[{:.4f}, {:.4f}, 0]", e1 / (e1 + e2), e2 / (e1 + e2));  // [0.5490, 0.4510, 0]
    BOOST_TEST(run_qkv({"check", "7.1", row}).status == 0, row);
    // S = Q·Kᵀ worked by hand, e.g. s13 = 1.55×1.5 + 0.45×0.3 + 0×1.0 + 0.35×0.39 = 2.5965; as numpy.savetxt writes it.
    std::string csv = f.file("S.csv", "1.4825,0.1705,2.5965\n0.498,0.105,1.5669\n2.675,0.145,1.4748\n");
    auto r = run_qkv({"check", "3.3", "--file", csv});
    BOOST_TEST(r.status == 0, r.out + r.err);
    auto st = statuses();
    BOOST_TEST(st["3.1"] == "correct");
    BOOST_TEST(st["3.3"] == "correct");
    BOOST_TEST(st["3.2"] == "not tried");
}

BOOST_AUTO_TEST_CASE(wrong_answers_say_what_and_which_mistake) {
    fresh f;
    auto r = run_qkv({"check", "3.1", "(100, 64)"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "Dimension 1: 100 is right."));
    BOOST_TEST(has(r.out, "Dimension 2: 64 is not right."));
    r = run_qkv({"check", "3.1", "64x64"});  // Kᵀ·Q: [64, 100]·[100, 64]
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "put the transpose in the wrong place"));
    // Unscaled: e^2.5965 / (e^1.4825 + e^0.1705 + e^2.5965) = 13.415 / 19.004 ≈ 0.7059.
    r = run_qkv({"check", "4.2", "0.7059"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "too high"));
    BOOST_TEST(has(r.out, "forgot to divide by √d_k"));
    BOOST_TEST(has(r.out, "qkv hint 4.2"));
    // Row 1 of Z_cat, the heads side by side with no W_O: head 1 [0.514, 0.6659], head 2 [0.4934, 0.3787].
    r = run_qkv({"check", "8.5", "[0.514, 0.6659, 0.4934, 0.3787]"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "left out the final W_O"));
    BOOST_TEST(has(r.out, "3 of 4 cells are off"));  // column 4: 0.3787 vs 0.3695, inside ±0.01
    r = run_qkv({"check", "1.1", "-0.3"});  // a negative answer is an answer, not an option
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(has(r.out, "-0.3 is too low"));
    r = run_qkv({"check", "3.2", "0.145", "--lang", "zh"});  // s32 = q(甜)·k(很) = 1.5×(−0.01) + 0.32×0.5
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "还不对"));
    BOOST_TEST(has(r.out, "转置放错了地方"));
    r = run_qkv({"check", "8.2", "a"});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(has(r.out, "A is not right."));
    BOOST_TEST(!has(r.out, "B is"));  // the answer is not given away
    auto st = statuses();
    BOOST_TEST(st["3.1"] == "wrong");
    BOOST_TEST(st["4.2"] == "wrong");
}

// Mistakes that had no name: each made here as a student makes it, on the lesson's numbers and on a
// student's own (--student), is named in English and in Chinese.
BOOST_AUTO_TEST_CASE(the_common_slips_of_lessons_1_3_4_and_6_are_named) {
    fresh f;
    struct made {
        std::vector<std::string> args;
        const char* en;
        const char* zh;
    };
    const char* without_exp_en = "divided the scores by the row's sum without taking exp first";
    const char* without_exp_zh = "没有取 exp 就直接除以了这一行的和";
    const char* average_en = "took the plain average of the rows of V";
    const char* average_zh = "直接对 V 的各行取了平均";
    const char* x_shape_en = "gave the input X's shape [n, d_model] for the scores";
    const char* x_shape_zh = "给出的是输入 X 的形状 [n, d_model]";
    const char* once_en = "divided the variance by √d_k, as the scores are divided";
    const char* once_zh = "方差也跟分数一样只除以了 √d_k";
    const std::vector<made> cases = {
        // 1.2: row 1 of S = X·Xᵀ is [1.34, 0.3, 0.8]; each divided by their sum, 2.44, with no exp
        {{"check", "1.2", "[0.5492, 0.1230, 0.3279]"}, without_exp_en, without_exp_zh},
        // 3.1: X is [100, 512], and the scores are not
        {{"check", "3.1", "(100, 512)"}, x_shape_en, x_shape_zh},
        // 4.3: q·k has variance d_k = 256; ÷ √256 makes it 1, and 256 ÷ √256 = 16 divides the variance only once
        {{"check", "4.3", "256"}, "gave the variance of the unscaled q·k, about d_k", "给出的是没有缩放的 q·k 的方差，大约是 d_k"},
        {{"check", "4.3", "16"}, once_en, once_zh},
        // 6.1: (0.93 + 0.16 + 0.38) / 3 = 0.49, (0.37 + 0.01 + 0.92) / 3 = 0.4333, (0.05 + 1.04 + 0.36) / 3 = 0.4833, 0.38
        {{"check", "6.1", "[0.49, 0.4333, 0.4833, 0.38]"}, average_en, average_zh},
        // 6.1: 0.3063·x(苹果) + 0.159·x(很) + 0.5347·x(甜) with X's rows [1, 0.3, 0, 0.5], [0.1, 0, 1, 0.4], [0.2, 1, 0.3, 0.6]
        {{"check", "6.1", "[0.4291, 0.6266, 0.3194, 0.5376]"}, "took A·X instead of A·V", "算成了 A·X 而不是 A·V"},
    };
    auto check = [&](std::vector<std::string> args, const char* en, const char* zh) {
        BOOST_TEST_CONTEXT(fmt::format("{}", fmt::join(args, " "))) {
            auto r = run_qkv(args);
            BOOST_TEST(r.status == 1, r.err);
            BOOST_TEST(has(r.out, "This is what a common mistake gives: "), r.out);
            BOOST_TEST(has(r.out, en), r.out);
            args.insert(args.end(), {"--lang", "zh"});
            auto z = run_qkv(args);
            BOOST_TEST(z.status == 1, z.err);
            BOOST_TEST(has(z.out, zh), z.out);
        }
    };
    for (const made& m : cases) check(m.args, m.en, m.zh);

    // carl's own numbers, read off what `qkv exercise … --student carl` shows him
    auto shown = [](const char* id, const char* name) {
        auto j = nlohmann::json::parse(run_qkv({"exercise", id, "--student", "carl", "--format", "json"}).out);
        for (const auto& v : j["values"])
            if (v["name"] == name) return v["data"].get<std::vector<std::vector<double>>>();
        BOOST_FAIL(id << " shows no " << name);
        return std::vector<std::vector<double>>{};
    };
    auto as_row = [](const std::vector<double>& r) { return fmt::format("[{:.4f}]", fmt::join(r, ", ")); };
    std::vector<double> s1 = shown("1.2", "S").at(0);
    BOOST_REQUIRE(s1.size() == 3u);
    BOOST_TEST(std::fabs(s1[0] - 1.34) > 0.05, "carl's numbers are not the lesson's own");
    const double sum = s1[0] + s1[1] + s1[2];
    for (double& x : s1) x /= sum;
    check({"check", "1.2", as_row(s1), "--student", "carl"}, without_exp_en, without_exp_zh);
    const auto V = shown("6.1", "V");
    std::vector<double> mean(V.at(0).size(), 0.0);
    for (const auto& r : V)
        for (std::size_t c = 0; c < r.size(); ++c) mean[c] += r[c] / static_cast<double>(V.size());
    check({"check", "6.1", as_row(mean), "--student", "carl"}, average_en, average_zh);
    check({"check", "3.1", "100x512", "--student", "carl"}, x_shape_en, x_shape_zh);
    check({"check", "4.3", "16", "--student", "carl"}, once_en, once_zh);
}

// 8.3's two wrong scalings, which agreed on d_model = 4, are two numbers on its d_model = 8: head 1's
// s13 = 1.55×1.5 + 0.45×0.3 + 0.8×0.9 + 0.2×0.1 = 3.2, right ÷ √4 = 1.6, wrong ÷ 4 = 0.8 and ÷ √8 ≈ 1.1314.
BOOST_AUTO_TEST_CASE(exercise_8_3_names_each_wrong_scaling_alone) {
    fresh f;
    BOOST_TEST(run_qkv({"check", "8.3", "1.6"}).status == 0);
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"0.8", "divided by d_k instead of √d_k", "除以了 d_k，而不是 √d_k"},
        {"1.1314", "divided by √d_model instead of the head's √d_k", "除以了 √d_model，而不是每个头的 √d_k"},
    };
    for (const auto& [answer, en, zh] : cases) {
        BOOST_TEST_CONTEXT(answer) {
            auto r = run_qkv({"check", "8.3", answer});
            BOOST_TEST(r.status == 1, r.err);
            BOOST_TEST(has(r.out, "This is what a common mistake gives: " + en), r.out);
            BOOST_TEST(!has(r.out, "they agree"), r.out);
            auto z = run_qkv({"check", "8.3", answer, "--lang", "zh"});
            BOOST_TEST(has(z.out, "这正是一个常见错误的结果：" + zh), z.out);
            BOOST_TEST(!has(z.out, "给出同样的数"), z.out);
        }
    }
    auto shown = run_qkv({"exercise", "8.3", "--lang", "zh"});
    BOOST_TEST(has(shown.out, "这里 d_model = 8，分成 h = 2 个头。"), shown.out);
}

// The verdict as JSON: the same judgement, status and record as the text, its fields for a program.
BOOST_AUTO_TEST_CASE(a_verdict_in_json_names_the_mistake_and_keeps_the_answer_back) {
    fresh f;
    // s32 = q(甜)·k(很) = 0.145: the transpose in the wrong place, not s23
    auto wrong = run_qkv({"check", "3.2", "0.145", "--format", "json"});
    BOOST_TEST(wrong.status == 1, wrong.err);
    auto w = nlohmann::json::parse(wrong.out);
    BOOST_TEST(w["id"] == "3.2");
    BOOST_TEST(w["kind"] == "number");
    BOOST_TEST(w["answer"] == "0.145");
    BOOST_TEST(w["correct"] == false);
    BOOST_TEST(w["student"].is_null());
    BOOST_TEST_REQUIRE(w["mistakes"].size() == 1u);
    BOOST_TEST(w["mistakes"][0]["id"] == "k_not_transposed");
    BOOST_TEST(has(w["mistakes"][0]["text"].get<std::string>(), "put the transpose in the wrong place"));
    BOOST_TEST(has(w["explanation"][0].get<std::string>(), "0.145 is too low"));
    BOOST_TEST(w["expected"].is_null());  // as in the text, a wrong answer does not give the right one away
    BOOST_TEST(w["solution"].is_null());
    BOOST_TEST(statuses()["3.2"] == "wrong");  // recorded as a text check is
    // s23 = q(很)·k(甜) = -0.01×1.5 + 0×0.3 + 1.5×1.0 + 0.21×0.39 = -0.015 + 1.5 + 0.0819 = 1.5669
    auto right = run_qkv({"check", "3.2", "1.567", "--format", "json"});
    BOOST_TEST(right.status == 0, right.err);
    auto r = nlohmann::json::parse(right.out);
    BOOST_TEST(r["correct"] == true);
    BOOST_TEST(r["mistakes"].empty());
    BOOST_TEST(r["expected"]["name"] == "S[2, 3]");
    BOOST_TEST(r["expected"]["data"].get<double>() == 1.5669, boost::test_tools::tolerance(1e-4));
    BOOST_TEST(has(r["solution"].get<std::string>(), "s23"));
    BOOST_TEST(statuses()["3.2"] == "correct");
    // a shape: Q·Kᵀ of [100, 64] and [64, 100] is [100, 100]
    auto shape = nlohmann::json::parse(run_qkv({"check", "3.1", "100x100", "--format", "json"}).out);
    BOOST_TEST(shape["expected"]["shape"] == nlohmann::json::array({100, 100}));
    BOOST_TEST(run_qkv({"check", "3.2", "1", "--format", "markdown"}).status == 2);
}

BOOST_AUTO_TEST_CASE(unreadable_answers_exit_2_and_leave_progress_alone) {
    fresh f;
    BOOST_REQUIRE(run_qkv({"check", "3.2", "1"}).status == 1);  // progress now has something in it
    std::string before = read_file(progress_file());
    BOOST_REQUIRE(!before.empty());
    std::string wrong_shape = f.file("wrong.csv", "1,2\n3,4\n");
    std::string empty = f.file("empty.csv", "");
    const std::vector<std::vector<std::string>> cases = {
        {"check", "3.2", "abc"},
        {"check", "3.1", "abc"},
        {"check", "3.3", "abc"},
        {"check", "8.2", "E"},
        {"check", "3.3", "--file", wrong_shape},
        {"check", "3.3", "--file", empty},
        {"check", "3.2", "--file", empty},
        {"check", "3.3", "--file", (f.dir / "missing.csv").string()},
        {"check", "3.2", "1", "--file", empty},
        {"check", "3.9", "1"},
        {"check", "3.2"},
    };
    for (const auto& args : cases) {
        auto r = run_qkv(args);
        BOOST_TEST_CONTEXT(fmt::format("{}", fmt::join(args, " ")) << " → " << r.err) {
            BOOST_TEST(r.status == 2);
            BOOST_TEST(r.out.empty());
            BOOST_TEST(count_lines(r.err) == 1u);
        }
    }
    BOOST_TEST(has(run_qkv({"check", "3.3", "--file", wrong_shape}).err, "wants a [3, 3] matrix, and the answer is [2, 2]"));
    BOOST_TEST(has(run_qkv({"check", "3.2", "abc"}).err, "'abc' is not a number"));
    BOOST_TEST(has(run_qkv({"check", "3.9", "1"}).err, "did you mean"));
    BOOST_TEST(read_file(progress_file()) == before);
}

BOOST_AUTO_TEST_CASE(hints_come_one_at_a_time) {
    fresh f;
    auto h1 = run_qkv({"hint", "3.2"});
    auto h2 = run_qkv({"hint", "3.2"});
    auto h3 = run_qkv({"hint", "3.2"});
    BOOST_TEST(h1.status == 0);
    BOOST_TEST(has(h1.out, "Hint 1/2"));
    BOOST_TEST(has(h1.out, "s_ij = q(i)·k(j)"));
    BOOST_TEST(!has(h1.out, "Hint 2/2"));
    BOOST_TEST(has(h2.out, "Hint 1/2"));  // every hint so far, not only the newest
    BOOST_TEST(has(h2.out, "Hint 2/2"));
    BOOST_TEST(has(h2.out, "row 3 of K"));
    BOOST_TEST(has(h3.out, "Hint 2/2"));
    BOOST_TEST(has(h3.out, "last hint"));
    BOOST_TEST(has(h3.out, "qkv solution 3.2"));  // where a stuck student goes next
    BOOST_TEST(has(run_qkv({"hint", "3.2", "--lang", "zh"}).out, "提示 2/2"));
    auto p = nlohmann::json::parse(run_qkv({"progress", "--format", "json"}).out);
    for (auto& e : p["exercises"])
        if (e["id"] == "3.2") BOOST_TEST(e["hints"] == 2);
    BOOST_TEST(has(run_qkv({"exercise", "3.2"}).out, "(2/2)"));
}

BOOST_AUTO_TEST_CASE(listing_and_showing_exercises) {
    fresh f;
    auto r = run_qkv({"exercises", "--format", "json"});
    BOOST_TEST(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    std::map<int, int> per_lesson;
    for (auto& e : j["exercises"]) {
        per_lesson[e["lesson"].get<int>()]++;
        for (const char* key : {"id", "lesson", "kind", "question", "status"}) BOOST_TEST(e.contains(key));
        BOOST_TEST(e["status"] == "not tried");
    }
    for (int l = 1; l <= 8; ++l) BOOST_TEST(per_lesson[l] >= 3, "lesson " << l);
    auto zh = nlohmann::json::parse(run_qkv({"exercises", "--format", "json", "--lang", "zh"}).out);
    BOOST_TEST(zh["exercises"][0]["question"] != j["exercises"][0]["question"]);
    auto three = run_qkv({"exercises", "--lesson", "3"});
    BOOST_TEST(three.status == 0);
    BOOST_TEST(has(three.out, "3.1"));
    BOOST_TEST(!has(three.out, "4.1"));
    BOOST_TEST(has(three.out, "0/4"));
    BOOST_TEST(run_qkv({"exercises", "--lesson", "99"}).status == 2);
    auto show = run_qkv({"exercise", "3.2"});
    BOOST_TEST(show.status == 0, show.err);
    BOOST_TEST(has(show.out, "Exercise 3.2"));
    BOOST_TEST(has(show.out, "Q  [3, 4]"));  // the matrices it refers to, as the lesson shows them
    BOOST_TEST(has(show.out, "K  [3, 4]"));
    BOOST_TEST(has(show.out, "qkv check 3.2"));
    auto choice = run_qkv({"exercise", "8.2", "--lang", "zh"});
    BOOST_TEST(has(choice.out, "练习 8.2"));
    BOOST_TEST(has(choice.out, "B. 让模型能并行地从不同的表示子空间里学习信息。"));
}

BOOST_AUTO_TEST_CASE(every_command_has_help) {
    for (const char* cmd : {"exercises", "exercise", "check", "hint", "grade", "progress"}) {
        auto r = run_qkv({cmd, "--help"});
        BOOST_TEST_CONTEXT(cmd) {
            BOOST_TEST(r.status == 0);
            BOOST_TEST(has(r.out, std::string("Usage: qkv ") + cmd));
            BOOST_TEST(has(r.out, "--lang"));
        }
    }
    BOOST_TEST(run_qkv({"check", "3.1", "100x100", "--lang", "fr"}).status == 2);
    BOOST_TEST(run_qkv({"exercises", "--format", "markdown"}).status == 2);
}

BOOST_AUTO_TEST_CASE(the_solution_when_stuck_recorded_once_seen) {
    fresh f;
    auto r = run_qkv({"solution", "3.1"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(has(r.out, "Worked solution"));
    auto p = nlohmann::json::parse(read_file(progress_file()));
    BOOST_TEST(p["exercises"]["3.1"]["solution_seen"] == true);
    BOOST_TEST(has(run_qkv({"solution", "3.1", "--lang", "zh"}).out, "解题过程"));
}
