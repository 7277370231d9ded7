// The hand-built trace the renderer suites share: one stage of lesson 3 ("Scores", on the scenario
// 苹果很甜) around the values, formula and text a test gives, so that each test states only what
// it renders; and plain options to render it with (no colour, the default width).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "qkv/render.hpp"
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

// The default options at `precision` decimals: no colour, the default width.
inline render_options plain(int precision = 2) {
    render_options o;
    o.precision = precision;
    return o;
}

}  // namespace qkv::test
