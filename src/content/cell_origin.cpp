// A shown cell's origin: find the last statement up to the stage that assigns the name, run the
// lesson up to it on a fresh workspace, and let the engine explain the cell.
#include "qkv/cell_origin.hpp"

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/trace.hpp"

namespace qkv {
namespace {

const std::string& label_at(const labels& l, std::size_t i) {
    static const std::string none;
    return i < l.names.size() ? l.names[i] : none;
}

void check_cell(const value& v, const std::string& name, cell_index at, const source_loc& where) {
    const bool inside = v.is_scalar() ? (at.head == 0 && at.row == 0 && at.col == 0)
                                      : at.head < v.mats.size() && at.row < v.mats.front().rows && at.col < v.mats.front().cols;
    if (!inside)
        throw input_error(where, fmt::format("{} {} has no cell [{}, {}]{}", name, v.shape_str(), at.row + 1, at.col + 1,
                                             v.is_stack() ? fmt::format(" in head {}", at.head + 1) : ""));
}

float number_at(const value& v, cell_index at) {
    return v.is_scalar() ? v.number : (v.is_stack() ? v.mats[at.head] : v.mat())(at.row, at.col);
}

}  // namespace

cell_origin explain_shown_cell(const lesson& given, const scenario& s, int shown_in, const std::string& name, cell_index at) {
    const lesson l = as_run_on(given, s);
    if (shown_in < 1 || static_cast<std::size_t>(shown_in) > l.stages.size())
        throw input_error(source_loc{l.file, 0, 0}, fmt::format("lesson {} has stages 1–{}, not {}", l.number, l.stages.size(), shown_in));
    // the last statement up to the stage that assigns the name
    int where_stage = 0;
    std::size_t where_line = 0;
    for (int i = 0; i < shown_in; ++i)
        for (std::size_t k = 0; k < l.stages[i].f.statements.size(); ++k)
            if (l.stages[i].f.statements[k].target == name) where_stage = i + 1, where_line = k;

    cell_origin out;
    out.name = name;
    out.at = at;
    workspace ws = initial_workspace(s);
    eval_context ctx;
    if (where_stage == 0) {
        auto it = ws.find(name);
        if (it == ws.end())
            throw input_error(source_loc{l.file, 0, 0}, fmt::format("lesson {}, stage {} shows no value '{}'", l.number, shown_in, name));
        check_cell(it->second, name, at, source_loc{s.file, 0, 0});
    } else {
        for (int i = 0; i < where_stage; ++i) {
            const stage& st = l.stages[i];
            ctx.stage_id = st.id;
            const std::size_t last = i + 1 == where_stage ? where_line : st.f.statements.size();
            for (std::size_t k = 0; k < last; ++k) {
                const statement& line = st.f.statements[k];
                ctx.where = line.where;
                ctx.statement_text = line.text;
                ws[line.target] = evaluate(*line.rhs, ws, ctx);
            }
        }
        const statement& line = l.stages[where_stage - 1].f.statements[where_line];
        ctx.where = line.where;
        ctx.statement_text = line.text;
        ctx.stage_id = l.stages[where_stage - 1].id;
        out.terms = explain_cell(line, ws, ctx, at);
        ws[line.target] = evaluate(*line.rhs, ws, ctx);
        out.stage = where_stage;
    }
    const value& v = ws.at(name);
    out.cell = number_at(v, at);
    out.stack = v.is_stack();
    if (!v.is_scalar()) {
        out.row_label = label_at(v.rows, at.row);
        out.col_label = label_at(v.cols, at.col);
    }
    return out;
}

}  // namespace qkv
