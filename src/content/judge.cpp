// Running and judging exercises: the expected answer and each mistake evaluated in the formula
// language on the lesson's own workspace, and the judgement of an answer, which says what is
// wrong and which mistake it matches.
#include "qkv/judge.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/quote.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/token_span.hpp"
#include "wrong_place.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

bool close(const matrix& a, const matrix& b, double tol) {
    if (a.rows != b.rows || a.cols != b.cols) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::fabs(static_cast<double>(a.data[i]) - b.data[i]) <= tol)) return false;
    return true;
}

// Does the answer equal this (wrong) value?
bool matches(const exercise& e, const answer& a, const value& v) {
    switch (e.kind) {
    case answer_kind::shape: return a.shape == v.shape();
    case answer_kind::number: return v.is_scalar() && std::fabs(a.number - v.number) <= e.tolerance;
    case answer_kind::matrix: return v.is_matrix() && close(a.m, v.mat(), e.tolerance);
    case answer_kind::choice: return false;
    }
    return false;
}

// " (“甜”)" when the axis has names, set off as a token as prose sets tokens off, else nothing:
// the number alone says it.
std::string label_of(const labels& l, std::size_t i, lang language) {
    if (i >= l.names.size() || l.names[i].empty()) return "";
    return tr(language, " (“") + l.names[i] + tr(language, "”)");
}

}  // namespace

char exercise_run::shown_letter(char file) const {
    for (std::size_t i = 0; i < choice_order.size(); ++i)
        if (static_cast<char>('A' + choice_order[i]) == file) return static_cast<char>('A' + i);
    return file;
}

char exercise_run::file_letter(char shown) const {
    const std::size_t i = static_cast<std::size_t>(shown - 'A');
    return shown >= 'A' && i < choice_order.size() ? static_cast<char>('A' + choice_order[i]) : shown;
}

exercise_run run_exercise(const exercise& e, const lesson& l, const scenario& s, lang language) {
    // Before anything runs: S[2, 3] of a 2-token sentence would stop inside the exercise's file.
    if (const std::size_t need = std::max(e.min_tokens, l.min_tokens); s.tokens.size() < need)
        throw input_error(e.where, fmt::format("exercise {} needs a sentence of at least {} tokens; this one has {}", e.id, need,
                                      s.tokens.size()));
    exercise_run r;
    r.run = run_lesson(l, s, language);
    eval_context ctx;
    ctx.where = e.where;
    ctx.stage_id = "exercise " + e.id;
    if (e.setup) run_formula(*e.setup, r.run.ws, ctx);
    // What the question shows must be there, or `qkv exercise` would stop with no file or line.
    for (std::size_t i = 0; i < e.shows.size(); ++i)
        if (!r.run.ws.count(e.shows[i]))
            throw input_error(i < e.shows_at.size() ? e.shows_at[i] : e.where,
                              fmt::format("exercise {} shows '{}', which neither the lesson nor the setup computes", e.id, e.shows[i]));
    if (!e.expected) return r;
    ctx.statement_text = e.expected_source;
    r.expected = evaluate(*e.expected, r.run.ws, ctx);
    if (e.kind == answer_kind::number && r.expected.is_matrix() && r.expected.mat().size() == 1)
        r.expected = value::scalar(r.expected.mat().data[0]);  // a [1, 1] product is one number
    bool fits = e.kind == answer_kind::number ? r.expected.is_scalar()
              : e.kind == answer_kind::matrix ? r.expected.is_matrix()
                                              : !r.expected.is_scalar();
    if (!fits)
        throw input_error(e.where, fmt::format("exercise {}: expected `{}` is {} {}, which a {} answer cannot be", e.id,
                                               e.expected_source, r.expected.is_scalar() ? "a number" : "of shape",
                                               r.expected.is_scalar() ? "" : r.expected.shape_str(), kind_name(e.kind)));
    for (const mistake_rule& m : e.mistakes) {
        for (std::size_t i = 0; i < m.exprs.size(); ++i) {
            ctx.statement_text = m.sources[i];
            try {
                value v = evaluate(*m.exprs[i], r.run.ws, ctx);
                if (v.is_matrix() && v.mat().size() == 1 && e.kind == answer_kind::number) v = value::scalar(v.mat().data[0]);
                r.mistake_values.emplace_back(m.id, std::move(v));
                r.mistake_places.emplace_back();
            } catch (const input_error&) {
                // This wrong computation does not even run on this scenario (a square-only
                // mistake on non-square matrices): nobody can have made it here.
            }
        }
    }
    ctx.statement_text = e.expected_source;
    for (wrong_place& m : wrong_places(e, r.expected, r.run.ws, ctx, language)) {
        r.mistake_values.emplace_back(m.id, std::move(m.v));
        r.mistake_places.push_back(std::move(m.where));
    }
    return r;
}

std::string exercise_words(const bilingual& text, const exercise& e, const exercise_run& r, lang language) {
    // Exercises are shown as plain text: their tokens in quotes (token_span.hpp).
    return plain_tokens(fill_quotes(text.in(language), text.at(language), r.run.ws, "exercise " + e.id, r.run.token_rows));
}

lesson lesson_of(const exercise& e) {
    std::string path;
    for (auto& [n, p] : lesson_files(lessons_dir()))
        if (n == e.lesson) path = p;
    if (path.empty()) throw input_error(e.where, fmt::format("exercise {} belongs to lesson {}, which does not exist", e.id, e.lesson));
    return load_lesson(path);
}

scenario scenario_of(const exercise& e, const lesson& l) {
    return load_scenario(e.scenario.empty() ? l.scenario_file : (fs::path(data_dir()) / e.scenario).string());
}

exercise_run run_exercise(const exercise& e, lang language, const std::string& data_file, const std::string& student) {
    lesson l = lesson_of(e);
    scenario s = data_file.empty() ? scenario_of(e, l) : load_scenario(data_file);
    if (!student.empty()) s = student_variant(s, student);
    return run_exercise_for(e, l, s, language, student);
}

exercise_run run_exercise_for(const exercise& e, const lesson& l, const scenario& s, lang language, const std::string& student) {
    exercise_run r = run_exercise(e, l, s, language);
    r.choice_order = choice_order(e.choices.size(), e.id, student);
    r.student = student;
    return r;
}

verdict judge(const exercise& e, const answer& a, const exercise_run& r) {
    verdict v;
    switch (e.kind) {
    case answer_kind::choice: v.correct = r.file_letter(a.choice) == e.answer; break;
    case answer_kind::number:
        v.expected_number = r.expected.number;
        v.correct = std::fabs(a.number - v.expected_number) <= e.tolerance;
        break;
    case answer_kind::shape:
        v.expected_shape = r.expected.shape();
        v.correct = a.shape == v.expected_shape;
        for (std::size_t i = 0; i < std::max(a.shape.size(), v.expected_shape.size()); ++i)
            if (i >= a.shape.size() || i >= v.expected_shape.size() || a.shape[i] != v.expected_shape[i]) v.dims_off.push_back(i);
        break;
    case answer_kind::matrix: {
        const matrix& want = r.expected.mat();
        v.expected_shape = {want.rows, want.cols};
        if (a.m.rows == want.rows && a.m.cols == want.cols) {
            for (std::size_t i = 0; i < want.rows; ++i)
                for (std::size_t j = 0; j < want.cols; ++j)
                    if (!(std::fabs(static_cast<double>(a.m(i, j)) - want(i, j)) <= e.tolerance))
                        v.cells_off.push_back({i, j, a.m(i, j), want(i, j)});
            v.correct = v.cells_off.empty();
        }
        break;
    }
    }
    if (v.correct) return v;
    if (e.kind == answer_kind::shape)
        for (const mistake_rule& m : e.mistakes)
            for (const auto& s : m.shapes)
                if (a.shape == s && std::find(v.mistakes.begin(), v.mistakes.end(), m.id) == v.mistakes.end()) v.mistakes.push_back(m.id);
    for (std::size_t i = 0; i < r.mistake_values.size(); ++i) {
        const auto& [id, val] = r.mistake_values[i];
        if (!matches(e, a, val)) continue;
        if (std::find(v.mistakes.begin(), v.mistakes.end(), id) == v.mistakes.end()) v.mistakes.push_back(id);
        if (i < r.mistake_places.size() && !r.mistake_places[i].empty()) v.places.push_back(r.mistake_places[i]);
    }
    if (e.kind == answer_kind::matrix && v.mistakes.empty() &&
        (a.m.rows != v.expected_shape[0] || a.m.cols != v.expected_shape[1]))
        throw input_error(fmt::format(fmt::runtime(tr(r.run.t.language, "exercise {} wants a {} matrix, and the answer is {}")), e.id,
                                      shape_text(v.expected_shape), shape_str(a.m)));
    return v;
}

namespace {

// The interface sentences of a judgement (in i18n's pick); lesson content stays in the exercise files.
struct words {
    lang l;
};

std::string high_low(const words& w, double got, double want) {
    return got > want ? tr(w.l, "too high") : tr(w.l, "too low");
}

void explain_shape(std::vector<std::string>& out, const words& w, const verdict& v, const answer& a) {
    if (a.shape.size() != v.expected_shape.size()) {
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "The result has {} dimensions, not {}.")),
                                  v.expected_shape.size(), a.shape.size()));
        return;
    }
    for (std::size_t i = 0; i < a.shape.size(); ++i) {
        bool off = std::find(v.dims_off.begin(), v.dims_off.end(), i) != v.dims_off.end();
        out.push_back(off ? fmt::format(fmt::runtime(tr(w.l, "Dimension {}: {} is not right.")), i + 1, a.shape[i])
                          : fmt::format(fmt::runtime(tr(w.l, "Dimension {}: {} is right.")), i + 1, a.shape[i]));
    }
}

void explain_matrix(std::vector<std::string>& out, const words& w, const verdict& v, const exercise& e,
                    const exercise_run& r, int precision) {
    if (v.cells_off.empty()) {  // wrong shape, but it matched a mistake
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "The shape should be {}.")), shape_text(v.expected_shape)));
        return;
    }
    std::size_t cells = v.expected_shape[0] * v.expected_shape[1];
    out.push_back(fmt::format(fmt::runtime(tr(w.l, "{off} of {cells} cells are off (tolerance ±{tol}):")),
                              fmt::arg("cells", cells), fmt::arg("off", v.cells_off.size()), fmt::arg("tol", e.tolerance)));
    const std::size_t most = 8;
    for (std::size_t i = 0; i < std::min(most, v.cells_off.size()); ++i) {
        const cell_off& c = v.cells_off[i];
        if (v.expected_shape[0] == 1) {  // one row, the one the question names: its place in the answer is no row of the lesson's
            out.push_back(fmt::format(fmt::runtime(tr(w.l, "  entry {}{}: {:.{}f} is {}")), c.col + 1,
                                      label_of(r.expected.cols, c.col, w.l), c.got, precision, high_low(w, c.got, c.want)));
            continue;
        }
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "  row {}{}, column {}{}: {:.{}f} is {}")),
                                  c.row + 1, label_of(r.expected.rows, c.row, w.l), c.col + 1, label_of(r.expected.cols, c.col, w.l),
                                  c.got, precision, high_low(w, c.got, c.want)));
    }
    if (v.cells_off.size() > most)
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "  … and {} more")), v.cells_off.size() - most));
}

}  // namespace

std::vector<std::string> explain(const verdict& v, const exercise& e, const answer& a, const exercise_run& r,
                                 const mistake_book& book, lang language, int precision) {
    std::vector<std::string> out;
    if (v.correct) return out;
    words w{language};
    switch (e.kind) {
    case answer_kind::choice:
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "{} is not right.")), a.choice));
        if (auto it = e.why_not.find(r.file_letter(a.choice)); it != e.why_not.end()) out.push_back(exercise_words(it->second, e, r, language));
        break;
    case answer_kind::shape: explain_shape(out, w, v, a); break;
    case answer_kind::number:
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "{} is {} (tolerance ±{}).")), a.number,
                                  high_low(w, a.number, v.expected_number), e.tolerance));
        break;
    case answer_kind::matrix: explain_matrix(out, w, v, e, r, precision); break;
    }
    if (v.mistakes.size() == 1) {
        out.push_back(fmt::format(fmt::runtime(tr(w.l, "This is what a common mistake gives: {}.")),
                                  book.at(v.mistakes[0]).in(language)));
    } else if (v.mistakes.size() > 1) {
        out.emplace_back(tr(w.l, "This is what these common mistakes give (on this data they agree):"));
        for (const std::string& id : v.mistakes) out.push_back("  - " + book.at(id).in(language));
    }
    for (const std::string& place : v.places) out.push_back(place);
    return out;
}

}  // namespace qkv
