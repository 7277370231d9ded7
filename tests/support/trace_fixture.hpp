// The hand-built trace the renderer suites share: one stage of lesson 3 ("Scores", on the scenario
// 苹果很甜) around the values, formula and text a test gives, so that each test states only what
// it renders.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "qkv/trace.hpp"

namespace qkv::test {

inline trace one_stage(std::vector<shown_value> values, std::string formula = "", std::string text = "") {
    trace t;
    t.lesson = 3;
    t.title = "Scores";
    t.scenario = "苹果很甜";
    stage_trace s;
    s.index = 1;
    s.id = "scores";
    s.title = "Scores";
    s.formula = std::move(formula);
    s.text = std::move(text);
    s.values = std::move(values);
    t.stages.push_back(std::move(s));
    return t;
}

}  // namespace qkv::test
