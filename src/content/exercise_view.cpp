// An exercise as a learner meets it (exercise_view.hpp): its own texts quoted from the run, and
// the values it names drawn with the axes its lesson gives them.
#include "qkv/exercise_view.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/lesson.hpp"

namespace qkv {
namespace {

// "A[3]" -> "A": the value a row is read from; anything else (a name, "S[2, 3]") -> "".
std::string row_source(const std::string& name) {
    static const std::regex row(R"(^([A-Za-z_][A-Za-z0-9_]*)\[[^,\[\]]+\]$)");
    std::smatch m;
    return std::regex_match(name, m, row) ? m[1].str() : std::string();
}

lang language_of(const exercise_run& r) { return r.run.t.language; }

}  // namespace

std::vector<shown_value> shown_values(const std::vector<std::string>& names, const workspace& ws, const trace* lesson) {
    std::vector<shown_value> values;
    for (const std::string& name : names) {
        auto it = ws.find(name);
        if (it == ws.end()) throw input_error(said("the exercise shows '{}', which the lesson does not compute", name));
        value v = it->second;
        // a row read from a value ("A[3]") keeps that value's axes: the row of A is a query's weights
        const std::string of = row_source(name);
        if (lesson)  // what the lesson calls its rows and columns (S: queries · keys), not only "tokens"
            for (const stage_trace& s : lesson->stages)
                for (const shown_value& sv : s.values)
                    if (sv.name == name || sv.name == of)
                        v.rows.axis = sv.v.rows.axis, v.cols.axis = sv.v.cols.axis, v.stack_axis = sv.v.stack_axis;
        values.push_back({name, role::input, v, row_sums_of(v)});
    }
    return values;
}

exercise_view view_exercise(const exercise& e, const exercise_run& r) {
    const lang l = language_of(r);
    exercise_view v{e.id, e.lesson, e.kind, l, r.run.t.scenario, r.student, exercise_words(e.question, e, r, l), {}, {}, {}, e.hints.size()};
    for (std::size_t i = 0; i < e.choices.size(); ++i) v.choices.push_back(exercise_words(e.choices[r.choice_order[i]], e, r, l));
    v.values = shown_values(e.shows, r.run.ws, &r.run.t);
    if (e.kind == answer_kind::number || e.kind == answer_kind::matrix) v.tolerance = e.tolerance;
    return v;
}

expected_answer expected_of(const exercise& e, const exercise_run& r) {
    expected_answer x;
    x.kind = e.kind;
    x.student = r.student;
    if (e.kind == answer_kind::choice) {  // the right choice under the letter this student was shown
        x.letter = r.shown_letter(e.answer);
        x.file_letter = e.answer;
        x.text = exercise_words(e.choices.at(static_cast<std::size_t>(e.answer - 'A')), e, r, language_of(r));
    } else if (e.kind == answer_kind::matrix) {  // drawn as the lesson draws it, its axes named alike
        x.value = shown_values({e.expected_source}, workspace{{e.expected_source, r.expected}}, &r.run.t).front();
    } else {
        x.value = {e.expected_source, role::output, r.expected, std::nullopt};
    }
    return x;
}

hints_view hints_of(const exercise& e, const exercise_run& r, int seen) {
    hints_view h{e.id, e.hints.size(), {}, seen >= static_cast<int>(e.hints.size())};
    // every hint so far and the next one, the newest last: a student who comes back tomorrow reads them all again
    const std::size_t shown = std::min(e.hints.size(), static_cast<std::size_t>(std::max(seen, 0)) + 1);
    for (std::size_t k = 0; k < shown; ++k) h.shown.push_back(exercise_words(e.hints[k], e, r, language_of(r)));
    return h;
}

worked_solution solution_of(const exercise& e, const exercise_run& r) {
    const lang l = language_of(r);
    return {e.id, exercise_words(e.question, e, r, l), expected_of(e, r), exercise_words(e.solution, e, r, l)};
}

exercise_listing list_exercises(const exercise_set& set, int only, const progress& p, lang l) {
    exercise_listing x;
    std::set<int> lessons;
    for (const exercise& e : set.all) {
        if (only >= 0 && e.lesson != only) continue;
        x.exercises.push_back({e.id, e.lesson, e.kind, exercise_words(e.question, e, run_exercise(e, l), l), p.of(e)});
        lessons.insert(e.lesson);
    }
    for (auto& [n, path] : lesson_files(lessons_dir()))
        if (lessons.count(n)) x.titles[n] = load_lesson(path).title.in(l);
    return x;
}

}  // namespace qkv
