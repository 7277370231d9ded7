// The commands that show exercises: exercises (the list), exercise (one question), hint and
// solution. Answers are checked in commands_check.cpp.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "qkv/answer.hpp"
#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/render_json.hpp"
#include "qkv/styled_text.hpp"
#include "exercise_common.hpp"
#include "exercise_words.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

// --- exercises -------------------------------------------------------------------------------

namespace {

// The exercises listed, each with its question quoted from its own run (its lesson on its scenario).
struct listing {
    std::vector<const exercise*> list;
    std::map<std::string, std::string> questions;  // by id
    progress p;
};

std::string listing_json(const listing& x) {
    ojson arr = ojson::array();
    for (const exercise* e : x.list)
        arr.push_back({{"id", e->id}, {"lesson", e->lesson}, {"kind", kind_name(e->kind)},
                       {"question", x.questions.at(e->id)}, {"status", status_name(x.p.of(*e).state)},
                       {"solution_seen", x.p.of(*e).solution_seen}});
    return render_json(ojson{{"exercises", arr}}) + "\n";
}

// One exercise's line: id, kind, status (coloured once tried), the question's first line.
std::string listing_line(const exercise& e, const listing& x, const render_options& o) {
    const exercise_progress mine = x.p.of(e);
    std::string state = pad(status_word(o.language, mine.state), 10);
    if (mine.state != status::not_tried)
        state = styled(state, fmt::fg(mine.state == status::correct ? fmt::terminal_color::green : fmt::terminal_color::red), o.color);
    std::string seen = mine.solution_seen ? pick(o.language, "（看过解答）", " (solution seen)") : "";
    const std::size_t used = 2 + 5 + 1 + 7 + 1 + 10 + 1 + display_width(seen);  // "  3.2   number  wrong      "
    return fmt::format("  {:<5} {} {} {}{}\n", e.id, pad(kind_word(o.language, e.kind), 7), state,
                       first_line(x.questions.at(e.id), o.width > used + 10 ? o.width - used : 10), seen);
}

// Lesson by lesson: a heading with a bar of the exercises right, then one line per exercise.
std::string listing_text(const listing& x, const render_options& o) {
    auto titles = lesson_titles(o.language);
    std::string out;
    for (std::size_t i = 0; i < x.list.size();) {
        int lesson = x.list[i]->lesson;
        std::size_t end = i, done = 0;
        for (; end < x.list.size() && x.list[end]->lesson == lesson; ++end) done += x.p.state_of(x.list[end]->id) == status::correct;
        std::string heading = fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), lesson);
        if (titles.count(lesson)) heading += " · " + titles[lesson];
        const std::string count = fmt::format("{}/{}", done, end - i);
        const std::size_t used = 2 + 10 + 1 + count.size();  // "  ██░░░░░░░░ 1/5"
        out += fmt::format("{}  {} {}\n", elide(heading, o.width > used + 10 ? o.width - used : 10), bar(done, end - i, o.color), count);
        for (; i < end; ++i) out += listing_line(*x.list[i], x, o);
        out += "\n";
    }
    return out + pick(o.language, "看题：qkv exercise ID · 交答案：qkv check ID 答案 · 提示：qkv hint ID\n",
                      "Read one: qkv exercise ID · answer: qkv check ID ANSWER · a hint: qkv hint ID\n");
}

}  // namespace

int cmd_exercises(const args& a, const console& io) {
    output_choice choice;
    int only = -1;  // -1: every lesson (lesson 0 has exercises too)
    bool ids = false;
    po::options_description desc("Options");
    add_options(desc, choice, true);
    desc.add_options()("lesson", po::value(&only), "only the exercises of lesson N")
        ("ids", po::bool_switch(&ids), "only the ids, one per line (for scripts and completion)");
    po::variables_map vm;
    if (!parse(io, "exercises", a, desc, {}, vm)) return 0;
    if (vm.count("lesson") && only < 0) throw usage_error(fmt::format("--lesson must be a lesson's number, 0 up, not {}", only));
    if (ids) {
        std::string out;
        for (const exercise& e : load_exercises(exercises_dir()).all)
            if (only < 0 || e.lesson == only) out += e.id + "\n";
        io.print(out);
        return 0;
    }
    const auto [o, form] = resolve(choice, io);
    const exercise_set set = load_exercises(exercises_dir());
    listing x{{}, {}, open_progress(io, progress_path())};
    for (const exercise& e : set.all)
        if (only < 0 || e.lesson == only) x.list.push_back(&e);
    if (x.list.empty())
        throw usage_error(fmt::format(fmt::runtime(pick(o.language, "第 {} 课没有练习；qkv exercises 列出全部", "lesson {} has no exercises; qkv exercises lists them all")), only));
    for (const exercise* e : x.list) x.questions[e->id] = exercise_words(e->question, *e, run_exercise(*e, o.language), o.language);
    io.print(form == format::json ? listing_json(x) : listing_text(x, o));
    return 0;
}

// --- exercise ---------------------------------------------------------------------------------

namespace {

// What exercise, hint and solution read: the exercise, its run (on the student's numbers when
// one is named; a failure records nothing), and the options.
struct asked {
    exercise_set set;
    const exercise* e = nullptr;
    render_options o;
    format form = format::text;
    std::string student;
    std::optional<exercise_run> run;
};

std::optional<asked> ask(const console& io, const char* cmd, const args& a) {
    output_choice choice;
    std::string id, data, student;
    po::options_description desc("Options");
    add_options(desc, choice, std::string_view(cmd) == "exercise");
    add_student_options(desc, data, student);
    desc.add_options()("id", po::value(&id), "the exercise, e.g. 3.2");
    if (!parse(io, cmd, a, desc, "id", 1)) return std::nullopt;
    asked q;
    const output out = resolve(choice, io);
    q.o = out.options;
    q.form = out.form;
    if (id.empty())
        throw usage_error(pick(q.o.language, "哪一道练习？请给出编号，如 3.2（qkv exercises 列出全部）",
                               "which exercise? give its id, e.g. 3.2 (qkv exercises lists them)"));
    q.set = load_exercises(exercises_dir());
    q.e = &need_exercise(q.set, id, q.o.language);
    q.student = student_name(student);
    q.run = run_exercise(*q.e, q.o.language, data, q.student);
    return q;
}

}  // namespace

namespace {

// The exercise as a teacher's tool reads it: what the text shows, with the values in full precision
// as the lesson trace has them, and whose numbers they are.
std::string exercise_json(const exercise& e, const exercise_run& run, const std::string& student, lang l) {
    trace_json j;
    j["id"] = e.id;
    j["lesson"] = e.lesson;
    j["kind"] = kind_name(e.kind);
    j["lang"] = lang_code(l);
    j["scenario"] = run.run.t.scenario;
    j["student"] = student.empty() ? trace_json() : trace_json(student);
    j["question"] = exercise_words(e.question, e, run, l);
    j["choices"] = trace_json::array();
    for (std::size_t i = 0; i < e.choices.size(); ++i)
        j["choices"].push_back({{"letter", std::string(1, static_cast<char>('A' + i))}, {"text", exercise_words(e.choices[run.choice_order[i]], e, run, l)}});
    j["values"] = trace_json::array();
    for (const shown_value& v : shown_values(e.shows, run.run.ws, &run.run.t)) j["values"].push_back(json_of(v));
    j["tolerance"] = e.kind == answer_kind::number || e.kind == answer_kind::matrix ? trace_json(e.tolerance) : trace_json();
    return render_json(j) + "\n";
}

}  // namespace

int cmd_exercise(const args& a, const console& io) {
    std::optional<asked> q = ask(io, "exercise", a);
    if (!q) return 0;
    const exercise& e = *q->e;
    const exercise_run& run = *q->run;  // the numbers the question quotes and shows
    const render_options& o = q->o;
    lang l = o.language;
    if (q->form == format::json) {
        io.print(exercise_json(e, run, q->student, l));
        return 0;
    }
    std::string out = fmt::format("{} {} · {} · {}", pick(l, "练习", "Exercise"), e.id,
                                  fmt::format(fmt::runtime(tr(l, "Lesson {}")), e.lesson), kind_word(l, e.kind));
    if (!e.shows.empty() || !q->student.empty())
        out += fmt::format(" · {} {}", tr(l, "scenario"), escape_controls(run.run.t.scenario));
    out += "\n\n" + prose(exercise_words(e.question, e, run, l), o);
    for (std::size_t i = 0; i < e.choices.size(); ++i)
        out += (i ? "" : "\n") + hanging(fmt::format("{}. {}", static_cast<char>('A' + i), exercise_words(e.choices[run.choice_order[i]], e, run, l)),
                                         o, "  ", "   ");
    if (!e.shows.empty()) out += values_text(e.shows, run.run.ws, o, &run.run.t);
    const exercise_progress mine = open_progress(io, progress_path()).of(e);
    // as written when they fit (two spaces set the parts apart), wrapped when they do not
    auto fitted = [&](const std::string& line) { return display_width(line) <= o.width ? line + "\n" : prose(line, o); };
    out += "\n" + fitted(fmt::format("{}qkv check {} …  ({})", pick(l, "作答：", "Answer: "), e.id, answer_form(l, e.kind)));
    out += fitted(fmt::format("{}qkv hint {}  ({}/{})  ·  {}qkv solution {}  ·  {}{}", pick(l, "提示：", "Hints: "), e.id, mine.hints,
                              e.hints.size(), pick(l, "解答：", "solution: "), e.id, pick(l, "状态：", "status: "),
                              status_word(l, mine.state)));
    io.print(out);
    return 0;
}


namespace {

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

// Every hint so far and the next one, the newest last: a student who comes back tomorrow reads
// them all again.
int show_hints(const console& io, const asked& q) {
    const exercise& e = *q.e;
    const lang l = q.o.language;
    const int seen = open_progress(io, progress_path()).of(e).hints;
    const bool more = seen < static_cast<int>(e.hints.size());
    const std::size_t shown = static_cast<std::size_t>(more ? seen + 1 : seen);
    std::string out;
    for (std::size_t k = 0; k < shown; ++k)
        out += fmt::format("{}{} {}/{} · {} {}\n{}", k ? "\n" : "", styled(pick(l, "提示", "Hint"), fmt::emphasis::bold, q.o.color),
                           k + 1, e.hints.size(), pick(l, "练习", "exercise"), e.id, prose(exercise_words(e.hints[k], e, *q.run, l), q.o));
    if (!more) out += fmt::format("\n{}\n", pick(l, "（这是最后一个提示了。还是卡住？qkv solution " + e.id + " 给出完整解答。）",
                                               "(That was the last hint. Still stuck? qkv solution " + e.id + " shows the worked solution.)"));
    show_and_record(io, out, e, [&](exercise_progress& mine) { mine.hints = std::max(mine.hints, static_cast<int>(shown)); });
    return 0;
}

int show_solution(const console& io, const asked& q) {
    const exercise& e = *q.e;
    const lang l = q.o.language;
    const std::string out =
        fmt::format("{} · {} {}\n\n{}{}\n{}", styled(pick(l, "解题过程", "Worked solution"), fmt::emphasis::bold, q.o.color),
                    pick(l, "练习", "exercise"), e.id, prose(exercise_words(e.question, e, *q.run, l), q.o),
                    expected_text(e, *q.run, q.o), prose(exercise_words(e.solution, e, *q.run, l), q.o));
    show_and_record(io, out, e, [](exercise_progress& mine) { mine.solution_seen = true; });
    return 0;
}

}  // namespace

int cmd_hint(const args& a, const console& io) {
    const std::optional<asked> q = ask(io, "hint", a);
    return q ? show_hints(io, *q) : 0;
}

int cmd_solution(const args& a, const console& io) {
    const std::optional<asked> q = ask(io, "solution", a);
    return q ? show_solution(io, *q) : 0;
}

}  // namespace qkv::cli
