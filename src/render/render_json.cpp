// The JSON trace for numpy / PyTorch comparisons: every shown value, keys in the documented
// order (render_json.hpp), floats written as the shortest text that reads back to the same float.
#include "qkv/render_json.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/memory.hpp"
#include "qkv/token_span.hpp"

namespace qkv {
namespace {

using json = trace_json;

// JSON has no infinities or NaN: a mask's -inf travels as the string "-inf".
json number(float x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    return x;
}

json rows_of(const matrix& m) {
    json out = json::array();
    for (std::size_t r = 0; r < m.rows; ++r) {
        json row = json::array();
        for (std::size_t c = 0; c < m.cols; ++c) row.push_back(number(m(r, c)));
        out.push_back(std::move(row));
    }
    return out;
}

json data_of(const value& v) {
    if (v.is_scalar()) return number(v.number);
    if (v.is_matrix()) return rows_of(v.mat());
    json out = json::array();  // [h, n, d]
    for (const auto& m : v.mats) out.push_back(rows_of(m));
    return out;
}

// Row sums are [n, 1] per matrix: listed flat, [n] for a matrix and [h, n] for a stack.
json sums_of(const value& s) {
    auto column = [](const matrix& m) {
        json out = json::array();
        for (std::size_t r = 0; r < m.rows; ++r) out.push_back(number(m(r, 0)));
        return out;
    };
    if (s.is_scalar()) return json::array({number(s.number)});
    if (s.is_matrix()) return column(s.mat());
    json out = json::array();
    for (const auto& m : s.mats) out.push_back(column(m));
    return out;
}

json value_json(const std::string& name, const value& v, role r, const std::optional<value>& sums) {
    json out;
    out["name"] = name;
    out["role"] = r == role::input ? "input" : "output";
    out["shape"] = v.shape();
    out["row_labels"] = v.rows.names;
    out["col_labels"] = v.cols.names;
    if (v.is_stack()) out["stack_axis"] = v.stack_axis;  // the first dimension: heads, devices or samples
    out["data"] = data_of(v);
    if (sums) out["row_sums"] = sums_of(*sums);
    if (v.marked) out["marked"] = data_of(value::of(*v.marked));  // [n][n]: 1 where the stage's score counts
    return out;
}

}  // namespace

trace_json json_of(const shown_value& v) { return value_json(v.name, v.v, v.r, v.row_sums); }

namespace {

json stage_json(const stage_trace& s) {
    json out;
    out["index"] = s.index;
    out["id"] = s.id;
    out["title"] = plain_tokens(s.title);
    out["formula"] = s.formula;
    out["text"] = plain_tokens(s.text);
    out["values"] = json::array();
    for (const auto& sv : s.values) out["values"].push_back(value_json(sv.name, sv.v, sv.r, sv.row_sums));
    if (s.steps.empty()) return out;
    out["steps"] = json::array();
    for (const auto& step : s.steps) {
        json js;
        js["label"] = step.label;
        js["values"] = json::array();
        for (const auto& [name, v] : step.values)
            js["values"].push_back(value_json(name, v, role::output, std::nullopt));
        out["steps"].push_back(std::move(js));
    }
    return out;
}

std::size_t cells_of(const value& v) {
    std::size_t n = v.is_scalar() ? 1 : 0;
    for (const auto& m : v.mats) n += m.rows * m.cols;
    return n;
}

// Bytes per number of the DOM and its text together, measured: lesson 1 on a scenario of 2048
// tokens writes 29.4 million numbers (795 MB of JSON, 27 bytes a number with indent 2) and peaks at
// 1.69 GB resident against 0.24 GB for --format text, so 50 bytes a number (the 16-byte
// basic_json in vectors grown by doubling, plus the text). 64 leaves a margin.
constexpr double json_bytes_per_cell = 64;

}  // namespace

std::size_t json_cells(const trace& t) {
    std::size_t n = 0;
    for (const auto& s : t.stages) {
        for (const auto& sv : s.values) n += cells_of(sv.v) + (sv.row_sums ? cells_of(*sv.row_sums) : 0);
        for (const auto& step : s.steps)
            for (const auto& [name, v] : step.values) n += cells_of(v);
    }
    return n;
}

void check_json_fits(const trace& t) {
    double need = static_cast<double>(json_cells(t)) * json_bytes_per_cell;
    const std::optional<std::size_t> have = available_memory();
    if (!have || need <= static_cast<double>(*have)) return;
    throw input_error(fmt::format("the JSON trace of this run would take about {:.1f} GiB and {:.1f} GiB of memory "
                                  "is free; use --format text, or fewer tokens",
                                  need / (1u << 30), static_cast<double>(*have) / (1u << 30)));
}

trace_json json_of(const trace& t) {
    check_json_fits(t);
    json out;
    out["lesson"] = t.lesson;
    out["title"] = t.title;
    out["lang"] = std::string(lang_code(t.language));
    if (t.scenario.empty()) out["scenario"] = nullptr;  // the lesson made its own data
    else out["scenario"] = t.scenario;
    out["causal"] = t.causal;
    out["stages"] = json::array();
    for (const auto& s : t.stages) out["stages"].push_back(stage_json(s));
    return out;
}

std::string render_json(const trace_json& j, int indent) {
    // Lesson files are read as UTF-8, but a stray byte must not cost the user the whole trace.
    return j.dump(indent < 0 ? -1 : indent, ' ', false, json::error_handler_t::replace);
}

std::string render_json(const nlohmann::ordered_json& j, int indent) {
    return j.dump(indent < 0 ? -1 : indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string render_json(const trace& t, int indent) { return render_json(json_of(t), indent); }

}  // namespace qkv
