// Running a lesson: every stage's statements in order on one workspace, recording what each
// stage shows. This is the only place a lesson meets a scenario, and where it finds its own.
#include "qkv/trace.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/file_check.hpp"
#include "qkv/kernels.hpp"
#include "qkv/quote.hpp"
#include "qkv/scenario_gen.hpp"

namespace qkv {
namespace {

// What a lesson that reads `name` asks of a scenario: "'heads = …' in the scenario" for a name a
// scenario key gives; "the matrix W_O, …" for a matrix of the lesson's own scenario (the one it was
// written for, read only on this error path); empty for neither: then it is the lesson's own name,
// reported where a formula reads it.
std::string what_gives(const lesson& l, const std::string& name) {
    if (const char* key = scenario_key_of(name)) return fmt::format("'{} = …' in the scenario", key);
    try {
        if (load_scenario(l.scenario_file).matrices.count(name))
            return fmt::format("the matrix {}, which this scenario does not define", name);
    } catch (const input_error&) {
    }
    return {};
}

// Before anything runs: does the scenario have every name the lesson reads? A missing one is
// reported as what it is (the scenario lacks W_O), not as an unknown name in some formula.
void check_needs(const lesson& l, const scenario& s, const workspace& ws) {
    std::set<std::string> known;
    for (const auto& [name, v] : ws) known.insert(name);
    for (const stage& st : l.stages) {
        for (const statement& stmt : st.f.statements) {
            for (const std::string& name : names_read(*stmt.rhs)) {
                if (known.count(name)) continue;
                if (std::string needed = what_gives(l, name); !needed.empty())
                    throw input_error(source_loc{s.file, 0, 0}, said("lesson {} needs {} (used in {}, stage '{}')",
                                                                            l.number, needed, stmt.where.str(), st.id));
            }
            known.insert(stmt.target);
        }
    }
}

// token_rows names the values whose rows are the tokens quotes count: each must be one the
// scenario gives or a formula of the lesson assigns, or a quote would count through nothing.
void check_token_rows(const lesson& l, const workspace& given) {
    std::set<std::string> known;
    for (const auto& [name, v] : given) known.insert(name);
    for (const stage& st : l.stages)
        for (const statement& stmt : st.f.statements) known.insert(stmt.target);
    for (std::size_t i = 0; i < l.token_rows.size(); ++i)
        if (!known.count(l.token_rows[i]))
            throw input_error(i < l.token_rows_at.size() ? l.token_rows_at[i] : source_loc{l.file, 0, 0},
                              said("lesson {}: token_rows names '{}', which neither the scenario nor any formula "
                                          "of the lesson gives", l.number, l.token_rows[i]));
}

// A stage's axes describe values there are (a misspelt name would say nothing, silently), and
// three words (a stack's) cannot describe a matrix, nor any words a number.
void check_axes(const lesson& l, const stage& st, const workspace& ws) {
    for (const auto& [name, words] : st.axes) {
        const source_loc& at = st.axes_at.count(name) ? st.axes_at.at(name) : st.where;
        const std::string where = fmt::format("lesson {}, stage '{}': axes.{}", l.number, st.id, name);
        auto it = ws.find(name);
        if (it == ws.end())
            throw input_error(at, said("{}: no formula up to here assigns '{}' and the scenario has no such matrix", where, name));
        const value& v = it->second;
        if (v.is_scalar()) throw input_error(at, said("{}: {} is a number, which has no rows or columns", where, name));
        if (st.stack_axes.count(name) && !v.is_stack())
            throw input_error(at, said("{}: three words describe a stack, but {} is {}, a matrix: give [\"rows\", \"columns\"]",
                                              where, name, v.shape_str()));
    }
}

// The default of `show`: the matrices the stage reads (scalars read are not worth a table), then
// everything it assigns.
std::vector<std::string> default_show(const stage& st, const workspace& before) {
    std::vector<std::string> out;
    std::set<std::string> assigned;
    for (const statement& stmt : st.f.statements) {
        for (const std::string& name : names_read(*stmt.rhs)) {
            auto it = before.find(name);
            if (!assigned.count(name) && it != before.end() && !it->second.is_scalar() &&
                std::find(out.begin(), out.end(), name) == out.end())
                out.push_back(name);
        }
        assigned.insert(stmt.target);
    }
    for (const statement& stmt : st.f.statements)
        if (std::find(out.begin(), out.end(), stmt.target) == out.end()) out.push_back(stmt.target);
    return out;
}

}  // namespace

// Attention weights carry their row sums, computed here so that renderers only print.
std::optional<value> row_sums_of(const value& v) {
    if (!v.weights || v.is_scalar()) return std::nullopt;
    std::vector<matrix> sums;
    for (const matrix& m : v.mats) sums.push_back(kernels::row_sums(m));
    value out = v.is_stack() ? value::stack(std::move(sums), v.rows) : value::of(std::move(sums.front()), v.rows);
    return out;
}

namespace {

// `marks = { A_h = "P_ind" }`: the pattern's matrix, checked to be a pattern of 0s and 1s of the
// shape of every head of weights it marks.
matrix marks_for(const lesson& l, const stage& st, const std::string& name, const value& weights, const std::string& pattern,
                 const workspace& ws) {
    const source_loc& at = st.marks_at.count(name) ? st.marks_at.at(name) : st.where;
    auto fail = [&](const std::string& why) {
        throw input_error(at, said("lesson {}, stage '{}': marks {}: {}", l.number, st.id, pattern, why));
    };
    if (!weights.weights) fail("only attention weights have a heatmap to mark");
    auto it = ws.find(pattern);
    if (it == ws.end() || !it->second.is_matrix()) fail("no matrix of that name up to here");
    const matrix& P = it->second.mat();
    for (const matrix& m : weights.mats)
        if (m.rows != P.rows || m.cols != P.cols) fail(fmt::format("its shape {} is not that of the weights' heads", it->second.shape_str()));
    for (float x : P.data)
        if (x != 0.0f && x != 1.0f) fail("a pattern holds only 0s and 1s");
    return P;
}

stage_trace run_stage(const lesson& l, const stage& st, std::size_t index, workspace& ws, lang language) {
    stage_trace out;
    out.index = static_cast<int>(index);
    out.id = st.id;
    out.formula = st.f.source;
    std::vector<std::string> show = st.show.empty() ? default_show(st, ws) : st.show;

    eval_context ctx;
    ctx.stage_id = st.id;
    ctx.steps = &out.steps;
    std::set<std::string> assigned;
    for (const statement& stmt : st.f.statements) {
        ctx.where = stmt.where;
        ctx.statement_text = stmt.text;
        value v = evaluate(*stmt.rhs, ws, ctx);
        ws[stmt.target] = std::move(v);
        assigned.insert(stmt.target);
    }
    // the words after the numbers: what the text quotes is what this stage computed
    std::string context = fmt::format("lesson {}, stage '{}'", l.number, st.id);
    out.title = fill_quotes(st.title.in(language), st.title.at(language), ws, context, l.token_rows);
    out.text = fill_quotes(st.text.in(language), st.text.at(language), ws, context, l.token_rows, &out.text_quotes, &out.text_sources);
    for (const std::string& name : show) {
        auto it = ws.find(name);
        if (it == ws.end())
            throw input_error(st.where, said("lesson {}, stage '{}' shows '{}', but no formula up to here assigns it "
                                                    "and the scenario has no such matrix", l.number, st.id, name));
    }
    check_axes(l, st, ws);
    for (const std::string& name : show) {
        auto it = ws.find(name);
        shown_value sv{name, assigned.count(name) ? role::output : role::input, it->second, std::nullopt};
        if (auto ax = st.axes.find(name); ax != st.axes.end()) {
            sv.v.rows.axis = ax->second.first;
            sv.v.cols.axis = ax->second.second;
        }
        if (auto ax = st.stack_axes.find(name); ax != st.stack_axes.end()) sv.v.stack_axis = ax->second;
        if (auto mk = st.marks.find(name); mk != st.marks.end()) sv.v.marked = marks_for(l, st, name, sv.v, mk->second, ws);
        sv.row_sums = row_sums_of(sv.v);
        out.values.push_back(std::move(sv));
    }
    return out;
}

// Whether the lesson reads anything of a scenario: a formula that reads one of its values (X,
// W_Q, n, …) before assigning it, or a text that quotes its tokens. Lesson 18 trains on sequences
// of its own and reads none: on a learner's sentence it would be headed "scenario the cat sat on
// the mat" while nothing in it came from that sentence.
// `given` is the workspace the scenario starts it with (initial_workspace).
bool reads_scenario(const lesson& l, const workspace& given) {
    std::set<std::string> assigned;
    for (const stage& st : l.stages) {
        if (st.text.zh.find("token(") != std::string::npos || st.text.en.find("token(") != std::string::npos) return true;
        for (const statement& line : st.f.statements) {
            for (const std::string& name : names_read(*line.rhs))
                if (!assigned.count(name) && given.count(name)) return true;
            assigned.insert(line.target);
        }
    }
    return false;
}
bool reads_scenario(const lesson& l, const scenario& s) { return reads_scenario(l, initial_workspace(s)); }

}  // namespace

lesson as_run_on(const lesson& l, const scenario& s) {
    lesson out = l;
    if (s.causal)
        for (stage& st : out.stages)
            if (st.f_causal) st.f = *st.f_causal;
    return out;
}

lesson_run run_lesson(const lesson& given, const scenario& s, lang language) {
    const lesson l = as_run_on(given, s);
    lesson_run r;
    r.ws = initial_workspace(s);
    check_needs(l, s, r.ws);
    check_token_rows(l, r.ws);
    if (s.tokens.size() < l.min_tokens)
        throw input_error(source_loc{s.file, 0, 0},
                          said("lesson {} needs at least {} tokens; this sentence has {}", l.number, l.min_tokens,
                                      s.tokens.size()));
    r.t.lesson = l.number;
    r.t.title = l.title.in(language);
    r.t.language = language;
    r.t.causal = s.causal;
    // A lesson that reads nothing of its scenario (lesson 18 makes its own sequences) is not headed
    // with a scenario that never ran: the name stays empty, and the heading says that the lesson
    // made its data.
    if (reads_scenario(l, r.ws)) r.t.scenario = s.name;  // no stage has run: r.ws is the scenario's
    r.t.stage_count = l.stages.size();
    r.token_rows = l.token_rows;
    for (std::size_t i = 0; i < l.stages.size(); ++i) r.t.stages.push_back(run_stage(l, l.stages[i], i + 1, r.ws, language));
    return r;
}

scenario load_lesson_scenario(const lesson& l) {
    if (auto no = unreadable_file(l.scenario_file))
        throw input_error(l.scenario_at, said("scenario '{}' ({}): {}", l.scenario, l.scenario_file, *no));
    return load_scenario(l.scenario_file);
}

namespace {

// The scenario made for the learner's sentence, or, for a lesson whose own scenario is of another
// width or number of heads (and one sentence of its own, no X_src), that scenario at its own size
// with the learner's tokens.
const scenario& on_sentence(const lesson& l, const scenario_choice& given, std::map<std::string, scenario>& read) {
    if (given.size_given || !given.made_from || l.scenario_file.empty()) return *given.made;
    if (!read.count(l.scenario_file)) read.emplace(l.scenario_file, load_lesson_scenario(l));
    const scenario& own = read.at(l.scenario_file);
    const std::size_t made_width = given.made->matrices.at("X").cols;
    if (!own.matrices.count("X") || own.matrices.count("X_src") || !own.source_tokens.empty() ||
        (own.matrices.at("X").cols == made_width && own.heads == given.made->heads))
        return *given.made;
    const std::string key = "at size: " + l.scenario_file;
    if (!read.count(key)) read.emplace(key, at_size_of(own, *given.made_from));
    return read.at(key);
}

}  // namespace

const scenario& scenario_for(const lesson& l, const scenario_choice& given, std::map<std::string, scenario>& read) {
    if (given.made && reads_scenario(l, *given.made)) return on_sentence(l, given, read);
    const std::string& file = given.file.empty() ? l.scenario_file : given.file;
    if (!read.count(file)) read.emplace(file, given.file.empty() ? load_lesson_scenario(l) : load_scenario(file));
    return read.at(file);
}

std::vector<trace> run_lessons(const std::vector<std::string>& lesson_files, const scenario_choice& given, lang language) {
    std::map<std::string, scenario> read;  // each scenario file read once
    std::vector<trace> out;
    for (const std::string& path : lesson_files) {
        lesson l = load_lesson(path);
        out.push_back(run_lesson(l, scenario_for(l, given, read), language).t);
    }
    return out;
}

}  // namespace qkv
