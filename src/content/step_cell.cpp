// A recorded sub-step's cell: the step before it, the tiled softmax's recurrences worked from the
// recorded S_j, m and l, and a KV-cache step's weights and output from its recorded query and
// caches (the numbers the built-in recorded as it ran).
#include "qkv/step_cell.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/error.hpp"

namespace qkv {
namespace {

const value* recorded(const sub_step& s, const std::string& name) {
    for (const auto& [n, v] : s.values)
        if (n == name) return &v;
    return nullptr;
}

float at_cell(const value& v, cell_index at) {
    return v.is_scalar() ? v.number : (v.is_stack() ? v.mats[at.head] : v.mat())(at.row, at.col);
}

bool inside(const value& v, cell_index at) {
    return v.is_scalar() ? at.head == 0 && at.row == 0 && at.col == 0
                         : at.head < v.mats.size() && at.row < v.mats.front().rows && at.col < v.mats.front().cols;
}

}  // namespace

step_cell explain_step_cell(const stage_trace& s, std::size_t step, const std::string& name, cell_index at) {
    if (step < 1 || step > s.steps.size())
        throw input_error(fmt::format("stage {} recorded {} steps, not {}", s.index, s.steps.size(), step));
    const sub_step& here = s.steps[step - 1];
    const value* v = recorded(here, name);
    if (!v) throw input_error(fmt::format("step “{}” of stage {} recorded no '{}'", here.label, s.index, name));
    if (!inside(*v, at)) throw input_error(fmt::format("{} {} has no cell [{}, {}]", name, v->shape_str(), at.row + 1, at.col + 1));
    step_cell c;
    c.name = name, c.label = here.label, c.step = step, c.at = at, c.cell = at_cell(*v, at);
    const sub_step* prev = step > 1 ? &s.steps[step - 2] : nullptr;
    const value* was = prev ? recorded(*prev, name) : nullptr;
    if (was && inside(*was, at)) c.before = at_cell(*was, at), c.before_label = prev->label;

    // a KV-cache step: the new query's weights over the cached keys, and its output
    const value* q_t = recorded(here, "q_t");
    const value* K_cache = recorded(here, "K_cache");
    const value* a_t = recorded(here, "a_t");
    const value* V_cache = recorded(here, "V_cache");
    if (q_t && K_cache && a_t && V_cache && !v->is_stack() && at.row == 0) {
        if (name == "a_t") {
            const matrix s_t = kv_scores(q_t->mat(), K_cache->mat());  // [1, t]
            c.r = step_cell::rule::kv_weight;
            c.terms.left = "s_t";
            add_softmax(c.terms, s_t.data, at.col);
        } else if (name == "z_t") {
            const matrix& a = a_t->mat();    // [1, t]
            const matrix& Vc = V_cache->mat();  // [t, d_v]
            std::vector<float> column(Vc.rows);
            for (std::size_t k = 0; k < Vc.rows; ++k) column[k] = Vc(k, at.col);
            c.r = step_cell::rule::kv_output;
            c.terms.left = "a_t", c.terms.right = "V_cache";
            add_product(c.terms, a.data, std::move(column));
        }
        return c;
    }

    // the tiled softmax's running statistics: a row's m, rescale and l beside its block's scores
    const value* S = recorded(here, "S_j");
    const value* m = recorded(here, "m");
    if (!S || !m || v->is_stack() || at.col != 0 || at.row >= S->mat().rows) return c;
    const float* row = S->mat().row(at.row);
    const std::size_t width = S->mat().cols;
    if (name == "m") {
        c.r = step_cell::rule::running_max;
        c.block_max = *std::max_element(row, row + width);
    } else if (name == "rescale" && prev && recorded(*prev, "m")) {
        c.r = step_cell::rule::rescale;
        c.m_before = at_cell(*recorded(*prev, "m"), at);
        c.m_now = at_cell(*m, at);
    } else if (name == "l") {
        c.r = step_cell::rule::running_sum;
        const float mm = at_cell(*m, at);
        for (std::size_t j = 0; j < width; ++j) c.block_sum += std::isinf(row[j]) ? 0.0 : std::exp(double(row[j]) - mm);
        if (const value* r = recorded(here, "rescale")) c.rescale = at_cell(*r, at);
    }
    return c;
}

}  // namespace qkv
