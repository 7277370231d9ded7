// The lines a pointed-at cell shows. Every number is one the engine computed (cell_terms); this
// file only writes them, at the precision the reader chose.
#include "qkv/cell_words.hpp"

#include <fmt/format.h>

#include "qkv/i18n.hpp"
#include "render_cells.hpp"

namespace qkv {
namespace {

std::string num(double x, const render_options& o) { return detail::format_number(static_cast<float>(x), o.precision); }

// "S[2, 3]", with the labels when there are any: "S[2, 3]  “很” → “甜”".
std::string cell_name(const cell_origin& c, bool stack, lang l) {
    std::string head = stack ? fmt::format(fmt::runtime(tr(l, "head {}")), c.at.head + 1) + " · " : "";
    std::string out = fmt::format("{}{}[{}, {}]", head, c.name, c.at.row + 1, c.at.col + 1);
    // the labels of its row and column, as the table's margins show them ("很" → "甜" for S)
    if (!c.row_label.empty()) out += fmt::format("  “{}”", c.row_label);
    if (!c.col_label.empty()) out += fmt::format("{}“{}”", c.row_label.empty() ? "  " : " · ", c.col_label);
    return out;
}

// "0.12 × 0.34 + 0.56 × 0.78 + … (60 more)"
std::string written_sum(const cell_terms& t, const render_options& o) {
    std::string out;
    const std::size_t n = std::min(t.parts.size(), cell_terms_written);
    for (std::size_t k = 0; k < n; ++k) out += fmt::format("{}{} × {}", k ? " + " : "", num(t.a[k], o), num(t.b[k], o));
    if (n < t.parts.size()) out += fmt::format(fmt::runtime(tr(o.language, " + … ({} more)")), t.parts.size() - n);
    return out;
}

void product(cell_index at, const cell_terms& t, const render_options& o, std::vector<std::string>& out) {
    out.push_back(fmt::format("= {}[{}, :] · {}[:, {}]", t.left, at.row + 1, t.right, at.col + 1));
    out.push_back("= " + written_sum(t, o));
    if (t.parts.size() > 1) {
        std::string products;
        const std::size_t n = std::min(t.parts.size(), cell_terms_written);
        for (std::size_t k = 0; k < n; ++k) products += fmt::format("{}{}", k ? " + " : "", num(t.parts[k], o));
        if (n < t.parts.size()) products += fmt::format(fmt::runtime(tr(o.language, " + … ({} more)")), t.parts.size() - n);
        out.push_back("= " + products);
    }
    out.push_back("= " + num(t.total, o));
}

void softmax(cell_index at, const cell_terms& t, const render_options& o, std::vector<std::string>& out) {
    const lang l = o.language;
    const float s = t.a[at.col];
    out.push_back(fmt::format("= exp(s − max) / Σ exp(s − max)   s = {}[{}, {}]", t.left, at.row + 1, at.col + 1));
    if (std::isinf(s) && s < 0) {
        out.push_back(fmt::format(fmt::runtime(tr(l, "s = −∞: the key is masked, and exp(−∞) = 0; the query gives it nothing"))));
        return;
    }
    out.push_back(fmt::format(fmt::runtime(tr(l, "s = {}; the row's maximum is {}")), num(s, o), num(t.row_max, o)));
    out.push_back(fmt::format("exp({} − {}) = {}", num(s, o), num(t.row_max, o), num(t.parts[at.col], o)));
    out.push_back(fmt::format(fmt::runtime(tr(l, "the row's {} exps add up to {}")), t.parts.size(), num(t.total, o)));
    out.push_back(fmt::format("{} / {} = {}", num(t.parts[at.col], o), num(t.total, o), num(t.result, o)));
}

void mask(const cell_origin& c, const render_options& o, std::vector<std::string>& out) {
    const lang l = o.language;
    if (c.at.col > c.at.row)
        out.push_back(fmt::format(fmt::runtime(tr(l, "key {} comes after query {}: a later position, which the model may not see, so −∞")),
                                  c.at.col + 1, c.at.row + 1));
    else
        out.push_back(fmt::format(fmt::runtime(tr(l, "key {} is not after query {}: it may be seen, so 0")), c.at.col + 1, c.at.row + 1));
}

}  // namespace

std::vector<std::string> cell_words(const cell_origin& c, const render_options& o) {
    const lang l = o.language;
    std::vector<std::string> out;
    out.push_back(fmt::format("{} = {}", cell_name(c, c.stack, l), num(c.cell, o)));
    if (!c.terms) {
        out.push_back(tr(l, "given by the scenario: no formula of the lesson made it"));
        return out;
    }
    const cell_terms& t = *c.terms;
    out.push_back(fmt::format(fmt::runtime(tr(l, "stage {}: {}")), c.stage, t.statement));
    switch (t.kind) {
        case cell_terms::op::product: product(c.at, t, o, out); break;
        case cell_terms::op::softmax: softmax(c.at, t, o, out); break;
        case cell_terms::op::mask: mask(c, o, out); break;
        case cell_terms::op::elementwise:
            out.push_back(fmt::format("= {} {} {} = {} {} {} = {}", t.left, t.symbol, t.right, num(t.x, o), t.symbol, num(t.y, o),
                                      num(t.result, o)));
            break;
        case cell_terms::op::negate: out.push_back(fmt::format("= −{} = −({}) = {}", t.left, num(t.x, o), num(t.result, o))); break;
        case cell_terms::op::transpose:
            out.push_back(fmt::format("= {}[{}, {}] = {}", t.left, c.at.col + 1, c.at.row + 1, num(t.x, o)));
            break;
        case cell_terms::op::copy: out.push_back(fmt::format("= {}[{}, {}]", t.left, c.at.row + 1, c.at.col + 1)); break;
        case cell_terms::op::scalar: break;
        case cell_terms::op::builtin:
            out.push_back(fmt::format(fmt::runtime(tr(l, "made by the built-in {}(…): qkv formulas lists what it does")), t.left));
            break;
    }
    return out;
}

std::vector<std::string> step_cell_words(const step_cell& c, const render_options& o) {
    const lang l = o.language;
    std::vector<std::string> out;
    out.push_back(fmt::format("{}[{}, {}] = {}", c.name, c.at.row + 1, c.at.col + 1, num(c.cell, o)));
    out.push_back(fmt::format(fmt::runtime(tr(l, "recorded at step “{}”")), c.label));
    switch (c.r) {
        case step_cell::rule::running_max:
            out.push_back(c.before ? fmt::format("m = max({}, {}) = {}", num(*c.before, o), num(c.block_max, o), num(c.cell, o))
                                   : fmt::format("m = {}", num(c.block_max, o)));
            out.push_back(tr(l, "the running maximum: the larger of m before this block and the largest score of the block's row"));
            return out;
        case step_cell::rule::rescale:
            out.push_back(fmt::format("rescale = exp({} − {}) = {}", num(c.m_before, o), num(c.m_now, o), num(c.cell, o)));
            out.push_back(tr(l, "what the sums so far are worth under the new maximum: exp(m before − m)"));
            return out;
        case step_cell::rule::running_sum:
            out.push_back(c.before ? fmt::format("l = {} × {} + {} = {}", num(c.rescale, o), num(*c.before, o), num(c.block_sum, o), num(c.cell, o))
                                   : fmt::format("l = {}", num(c.block_sum, o)));
            out.push_back(tr(l, "the running sum: l before, rescaled, plus Σ exp(S_j − m) over the block's row"));
            return out;
        case step_cell::rule::kv_weight:
            out.push_back(tr(l, "s_t = q_t K_cacheᵀ / √d_k: the new query against every cached key"));
            softmax(c.at, c.terms, o, out);
            return out;
        case step_cell::rule::kv_output:
            out.push_back(tr(l, "z_t = a_t V_cache: the cached values, each by its weight"));
            product(c.at, c.terms, o, out);
            return out;
        case step_cell::rule::recorded: break;
    }
    if (c.before) out.push_back(fmt::format(fmt::runtime(tr(l, "one step before, at “{}”: {}")), c.before_label, num(*c.before, o)));
    else out.push_back(tr(l, "the first step that records it"));
    return out;
}

}  // namespace qkv
