// The JSON trace: the keys in the order render_json.hpp documents, shapes and nesting depth, full float precision
// that round-trips, and non-finite numbers as strings.
#define BOOST_TEST_MODULE render_json
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "qkv/render_json.hpp"
#include "support/trace_fixture.hpp"

using namespace qkv;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// The shared stage, in Chinese, with a value of every kind and a recorded sub-step.
trace sample() {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<std::string> tok{"苹果", "很", "甜"};
    value S = value::of(matrix::of({{0.1f, -inf, 1.0f / 3.0f}, {inf, std::nanf(""), -2.0f}, {0, 0, 0}}),
                        labels{tok, "queries"}, labels{tok, "keys"});
    value A = value::of(matrix::of({{0.25f, 0.75f}}));
    A.weights = true;
    value Q_h = value::stack({matrix::of({{1, 2}, {3, 4}, {5, 6}}), matrix::of({{7, 8}, {9, 10}, {11, 12}})});
    trace t = test::one_stage({{"d_k", role::input, value::scalar(4.0f), std::nullopt},
                               {"S", role::output, S, std::nullopt},
                               {"A", role::output, A, value::of(matrix::of({{1.0f}}))},
                               {"Q_h", role::output, Q_h, std::nullopt}},
                              "S = Q @ K^T", "每个查询遇见每个键。");
    t.language = lang::zh;
    t.stages[0].title = "打分";
    t.stages[0].steps.push_back({"t = 1", {{"m", value::scalar(0.5f)}}});
    return t;
}

std::vector<std::string> keys(const ordered_json& j) {
    std::vector<std::string> out;
    for (auto it = j.begin(); it != j.end(); ++it) out.push_back(it.key());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(keys_in_the_documented_order) {
    ordered_json j = ordered_json::parse(render_json(sample()));
    BOOST_TEST((keys(j) == std::vector<std::string>{"lesson", "title", "lang", "scenario", "causal", "stages"}));
    const auto& st = j["stages"][0];
    BOOST_TEST((keys(st) == std::vector<std::string>{"index", "id", "title", "formula", "text", "values", "steps"}));
    BOOST_TEST((keys(st["values"][1]) ==
                std::vector<std::string>{"name", "role", "shape", "row_labels", "col_labels", "data"}));
    BOOST_TEST((keys(st["values"][2]) ==
                std::vector<std::string>{"name", "role", "shape", "row_labels", "col_labels", "data", "row_sums"}));
}

BOOST_AUTO_TEST_CASE(header_and_stage_fields) {
    json j = json::parse(render_json(sample()));
    BOOST_TEST(j["lesson"] == 3);
    BOOST_TEST(j["lang"] == "zh");
    BOOST_TEST(j["scenario"] == "苹果很甜");
    const auto& st = j["stages"][0];
    BOOST_TEST(st["index"] == 1);
    BOOST_TEST(st["id"] == "scores");
    BOOST_TEST(st["formula"] == "S = Q @ K^T");
    BOOST_TEST(st["text"] == "每个查询遇见每个键。");
    BOOST_TEST(st["values"].size() == 4u);
    BOOST_TEST(st["values"][0]["role"] == "input");
    BOOST_TEST(st["values"][1]["role"] == "output");
    trace en = sample();
    en.language = lang::en;
    BOOST_TEST(json::parse(render_json(en))["lang"] == "en");
}

BOOST_AUTO_TEST_CASE(shapes_and_nesting) {
    const json j = json::parse(render_json(sample()));
    const auto& v = j["stages"][0]["values"];
    // scalar: shape [], a number as data, no labels
    BOOST_TEST(v[0]["shape"] == json::array());
    BOOST_TEST(v[0]["data"].is_number());
    BOOST_TEST(v[0]["data"].get<double>() == 4.0);
    BOOST_TEST(v[0]["row_labels"] == json::array());
    // matrix: [3, 3], rows of numbers, token labels
    BOOST_TEST(v[1]["shape"] == json({3, 3}));
    BOOST_TEST(v[1]["data"].size() == 3u);
    BOOST_TEST(v[1]["data"][1][2].get<double>() == -2.0);
    BOOST_TEST(v[1]["row_labels"] == json({"苹果", "很", "甜"}));
    BOOST_TEST(v[1]["col_labels"][2] == "甜");
    // stack: [2, 3, 2], nested three deep; head 2, row 3, column 1 is 11
    BOOST_TEST(v[3]["shape"] == json({2, 3, 2}));
    BOOST_TEST(v[3]["data"][1][2][0].get<double>() == 11.0);
    BOOST_TEST(v[3]["data"][0][0].is_array());
    BOOST_TEST(v[3]["data"][0][0][1].is_number());
    // weights: their row sums after the documented keys
    BOOST_TEST(v[2]["row_sums"] == json({1.0}));
}

BOOST_AUTO_TEST_CASE(non_finite_numbers_are_strings) {
    const json j = json::parse(render_json(sample()));
    const auto& d = j["stages"][0]["values"][1]["data"];
    BOOST_TEST(d[0][1] == "-inf");
    BOOST_TEST(d[1][0] == "inf");
    BOOST_TEST(d[1][1] == "nan");
}

BOOST_AUTO_TEST_CASE(floats_in_full_precision_that_round_trip) {
    std::string out = render_json(sample(), -1);
    BOOST_TEST(out.find('\n') == std::string::npos);  // indent < 0: one line
    // 0.1f is 0.100000001490116…; its shortest float text is "0.1"
    BOOST_TEST(out.find("[0.1,") != std::string::npos);
    BOOST_TEST(out.find("0.10000000149011612") == std::string::npos);
    const json j = json::parse(out);
    const auto& d = j["stages"][0]["values"][1]["data"];
    BOOST_TEST(static_cast<float>(d[0][0].get<double>()) == 0.1f);
    BOOST_TEST(static_cast<float>(d[0][2].get<double>()) == 1.0f / 3.0f);  // all 9 digits kept
}

BOOST_AUTO_TEST_CASE(sub_steps_listed) {
    const json j = json::parse(render_json(sample()));
    const auto& steps = j["stages"][0]["steps"];
    BOOST_TEST(steps.size() == 1u);
    BOOST_TEST(steps[0]["label"] == "t = 1");
    BOOST_TEST(steps[0]["values"][0]["name"] == "m");
    BOOST_TEST(steps[0]["values"][0]["data"].get<double>() == 0.5);
    trace none = sample();
    none.stages[0].steps.clear();
    BOOST_TEST(!json::parse(render_json(none))["stages"][0].contains("steps"));
}

BOOST_AUTO_TEST_CASE(the_numbers_of_a_trace_are_counted_for_the_memory_check) {
    // json_of checks the memory before it builds anything; the count it uses covers every value,
    // its row sums and the sub-steps.
    trace t;
    t.lesson = 1;
    stage_trace s;
    s.index = 1;
    value A = value::of(matrix(3, 4, 0.5f));
    s.values.push_back({"A", role::output, A, value::of(matrix(3, 1, 2.0f))});
    s.values.push_back({"d", role::input, value::scalar(4.0f), std::nullopt});
    sub_step step;
    step.label = "tile 1";
    step.values.emplace_back("m", value::of(matrix(2, 5, 0.0f)));
    s.steps.push_back(step);
    t.stages.push_back(s);
    BOOST_TEST(json_cells(t) == 12u + 3u + 1u + 10u);
    BOOST_CHECK_NO_THROW(check_json_fits(t));
    BOOST_TEST(render_json(t).find("\"row_sums\"") != std::string::npos);
}
