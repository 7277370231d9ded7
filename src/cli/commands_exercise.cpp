// The commands that show exercises: exercises (the list), exercise (one question), hint and
// solution. They parse, find the exercise and its run, keep the progress file, and hand the value
// (exercise_view.hpp) to its report; answers are checked in commands_check.cpp.
#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "qkv/exercise_view.hpp"
#include "qkv/report_exercise.hpp"
#include "exercise_common.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

int cmd_exercises(const args& a, const console& io) {
    output_choice choice;
    int only = -1;  // -1: every lesson (lesson 0 has exercises too)
    bool ids = false;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_options(desc, choice, true, hl);
    desc.add_options()("lesson", po::value(&only), tr(hl, "only the exercises of lesson N").c_str())
        ("ids", po::bool_switch(&ids), tr(hl, "only the ids, one per line (for scripts and completion)").c_str());
    po::variables_map vm;
    if (!parse(io, "exercises", a, desc, {}, vm)) return 0;
    if (vm.count("lesson") && only < 0) throw usage_error(said("--lesson must be a lesson's number, 0 up, not {}", only));
    if (ids) {
        std::string out;
        for (const exercise& e : load_exercises(exercises_dir()).all)
            if (only < 0 || e.lesson == only) out += e.id + "\n";
        io.print(out);
        return 0;
    }
    const auto [o, form] = resolve(choice, io);
    const exercise_set set = load_exercises(exercises_dir());
    const progress p = open_progress(io, progress_path());
    if (std::none_of(set.all.begin(), set.all.end(), [&](const exercise& e) { return only < 0 || e.lesson == only; }))
        throw usage_error(fmt::format(fmt::runtime(tr(o.language, "lesson {} has no exercises; qkv exercises lists them all")), only));
    const exercise_listing x = list_exercises(set, only, p, o.language);
    io.print(form == format::json ? exercises_json(x) : exercises_text(x, o));
    return 0;
}

namespace {

// What exercise, hint and solution read: the exercise, its run (on the student's numbers when
// one is named; a failure records nothing), and the options.
struct asked {
    exercise_set set;
    const exercise* e = nullptr;
    render_options o;
    format form = format::text;
    std::optional<exercise_run> run;
};

std::optional<asked> ask(const console& io, const char* cmd, const args& a) {
    output_choice choice;
    std::string id, data, student;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_options(desc, choice, std::string_view(cmd) == "exercise", hl);
    add_student_options(desc, data, student, hl);
    desc.add_options()("id", po::value(&id), tr(hl, "the exercise, e.g. 3.2").c_str());
    if (!parse(io, cmd, a, desc, "id", 1)) return std::nullopt;
    asked q;
    const output out = resolve(choice, io);
    q.o = out.options;
    q.form = out.form;
    if (id.empty())
        throw usage_error(tr(q.o.language, "which exercise? give its id, e.g. 3.2 (qkv exercises lists them)"));
    q.set = load_exercises(exercises_dir());
    q.e = &need_exercise(q.set, id, q.o.language);
    q.run = run_exercise(*q.e, q.o.language, data, student_name(student));
    return q;
}

// What hint and solution show is recorded once it is on screen, under the progress lock: a hint
// that could not be written (a closed pipe) was not seen.
void show_and_record(const console& io, const std::string& out, const exercise& e,
                     const std::function<void(exercise_progress&)>& seen) {
    change_progress(io, progress_path(), [&](progress& p) {
        io.print(out);
        exercise_progress mine = p.of(e);  // its counts as the exercise has them now
        seen(mine);
        p.by_id[e.id] = mine;
    });
}

}  // namespace

int cmd_exercise(const args& a, const console& io) {
    const std::optional<asked> q = ask(io, "exercise", a);
    if (!q) return 0;
    const exercise_view view = view_exercise(*q->e, *q->run);
    // json is the exercise alone, for a teacher's tools: the learner's own record is not read
    io.print(q->form == format::json ? exercise_json(view) : exercise_text(view, open_progress(io, progress_path()).of(*q->e), q->o));
    return 0;
}

int cmd_hint(const args& a, const console& io) {
    const std::optional<asked> q = ask(io, "hint", a);
    if (!q) return 0;
    const hints_view h = hints_of(*q->e, *q->run, open_progress(io, progress_path()).of(*q->e).hints);
    show_and_record(io, hints_text(h, q->o), *q->e,
                    [&](exercise_progress& mine) { mine.hints = std::max(mine.hints, static_cast<int>(h.shown.size())); });
    return 0;
}

int cmd_solution(const args& a, const console& io) {
    const std::optional<asked> q = ask(io, "solution", a);
    if (!q) return 0;
    show_and_record(io, solution_text(solution_of(*q->e, *q->run), q->o), *q->e, [](exercise_progress& mine) { mine.solution_seen = true; });
    return 0;
}

}  // namespace qkv::cli
