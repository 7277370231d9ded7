// The commands that show exercises: exercises (the list), exercise (one question), hint and
// solution. Answers are checked in commands_check.cpp.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "qkv/answer.hpp"
#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/styled_text.hpp"
#include "exercise_common.hpp"
#include "exercise_words.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

// --- exercises -------------------------------------------------------------------------------

namespace {

// The list as text: a heading and a progress bar per lesson, then a line per exercise (its id, its
// kind, the learner's status and the question's first line), and how to go on.
std::string listing_text(const std::vector<const exercise*>& list, const progress& p,
                         const std::map<std::string, std::string>& questions, const render_options& o) {
    auto titles = lesson_titles(o.language);
    std::string out;
    for (std::size_t i = 0; i < list.size();) {
        int lesson = list[i]->lesson;
        std::size_t end = i, done = 0;
        for (; end < list.size() && list[end]->lesson == lesson; ++end) done += p.of(list[end]->id).state == status::correct;
        std::string heading = fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), lesson);
        if (titles.count(lesson)) heading += " · " + titles[lesson];
        out += fmt::format("{}  {} {}/{}\n", heading, bar(done, end - i, o.color), done, end - i);
        for (; i < end; ++i) {
            const exercise& e = *list[i];
            const exercise_progress& mine = p.of(e.id);
            std::string state = pad(status_word(o.language, mine.state), 10);
            if (mine.state != status::not_tried)
                state = styled(state, fmt::fg(mine.state == status::correct ? fmt::terminal_color::green : fmt::terminal_color::red), o.color);
            std::string seen = mine.solution_seen ? pick(o.language, "（看过解答）", " (solution seen)") : "";
            out += fmt::format("  {:<5} {} {} {}{}\n", e.id, pad(kind_word(o.language, e.kind), 7), state,
                               first_line(questions.at(e.id), 56), seen);
        }
        out += "\n";
    }
    out += pick(o.language, "看题：qkv exercise ID · 交答案：qkv check ID 答案 · 提示：qkv hint ID\n",
                "Read one: qkv exercise ID · answer: qkv check ID ANSWER · a hint: qkv hint ID\n");
    return out;
}

}  // namespace

int cmd_exercises(const args& a) {
    output_choice choice;
    int only = -1;  // -1: every lesson (lesson 0 has exercises too)
    bool ids = false;
    po::options_description desc("Options");
    add_options(desc, choice, true);
    desc.add_options()("lesson", po::value(&only), "only the exercises of lesson N")
        ("ids", po::bool_switch(&ids), "only the ids, one per line (for scripts and completion)");
    po::variables_map vm;
    if (!parse("exercises", a, desc, {}, vm)) return 0;
    if (ids) {
        std::string out;
        for (const exercise& e : load_exercises(exercises_dir()).all)
            if (only < 0 || e.lesson == only) out += e.id + "\n";
        write_out(out);
        return 0;
    }
    const auto [o, form] = resolve(choice);
    exercise_set set = load_exercises(exercises_dir());
    progress p = open_progress(progress_path());
    std::vector<const exercise*> list;
    for (const exercise& e : set.all)
        if (only < 0 || e.lesson == only) list.push_back(&e);
    if (list.empty())
        throw usage_error(fmt::format(fmt::runtime(pick(o.language, "第 {} 课没有练习；qkv exercises 列出全部", "lesson {} has no exercises; qkv exercises lists them all")), only));
    // each question quotes its own run (its lesson on its scenario)
    std::map<std::string, std::string> questions;
    for (const exercise* e : list) questions[e->id] = exercise_words(e->question, *e, run_exercise(*e, o.language), o.language);
    if (form == format::json) {
        ojson arr = ojson::array();
        for (const exercise* e : list)
            arr.push_back({{"id", e->id}, {"lesson", e->lesson}, {"kind", kind_name(e->kind)},
                           {"question", questions[e->id]}, {"status", status_name(p.of(e->id).state)},
                           {"solution_seen", p.of(e->id).solution_seen}});
        write_out(ojson{{"exercises", arr}}.dump(2) + "\n");
        return 0;
    }
    write_out(listing_text(list, p, questions, o));
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
    std::string student;
    std::optional<exercise_run> run;
};

std::optional<asked> ask(const char* cmd, const args& a) {
    output_choice choice;
    std::string id, data, student;
    po::options_description desc("Options");
    add_options(desc, choice, false);
    add_student_options(desc, data, student);
    desc.add_options()("id", po::value(&id), "the exercise, e.g. 3.2");
    po::positional_options_description pos;
    pos.add("id", 1);
    po::variables_map vm;
    if (!parse(cmd, a, desc, pos, vm)) return std::nullopt;
    asked q;
    q.o = resolve(choice).options;
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

int cmd_exercise(const args& a) {
    std::optional<asked> q = ask("exercise", a);
    if (!q) return 0;
    const exercise& e = *q->e;
    const exercise_run& run = *q->run;  // the numbers the question quotes and shows
    const render_options& o = q->o;
    lang l = o.language;
    std::string out = fmt::format("{} {} · {} · {}", pick(l, "练习", "Exercise"), e.id,
                                  fmt::format(fmt::runtime(tr(l, "Lesson {}")), e.lesson), kind_word(l, e.kind));
    if (!e.shows.empty() || !q->student.empty())
        out += fmt::format(" · {} {}", tr(l, "scenario"), escape_controls(run.run.t.scenario));
    out += fmt::format("\n\n{}\n", escape_controls(exercise_words(e.question, e, run, l), true));
    for (std::size_t i = 0; i < e.choices.size(); ++i)
        out += fmt::format("{}  {}. {}\n", i ? "" : "\n", static_cast<char>('A' + i),
                           escape_controls(exercise_words(e.choices[i], e, run, l)));
    if (!e.shows.empty()) out += values_text(e.shows, run.run.ws, o);
    const progress record = open_progress(progress_path());  // kept alive: mine refers into it
    const exercise_progress& mine = record.of(e.id);
    out += fmt::format("\n{}qkv check {} …  ({})\n", pick(l, "作答：", "Answer: "), e.id, answer_form(l, e.kind));
    out += fmt::format("{}qkv hint {}  ({}/{})  ·  {}qkv solution {}  ·  {}{}\n", pick(l, "提示：", "Hints: "), e.id, mine.hints,
                       e.hints.size(), pick(l, "解答：", "solution: "), e.id, pick(l, "状态：", "status: "), status_word(l, mine.state));
    write_out(out);
    return 0;
}


int cmd_hint(const args& a) {
    std::optional<asked> q = ask("hint", a);
    if (!q) return 0;
    const exercise& e = *q->e;
    lang l = q->o.language;
    std::string path = progress_path();
    int seen = open_progress(path).of(e.id).hints;
    bool more = seen < static_cast<int>(e.hints.size());
    std::size_t shown = static_cast<std::size_t>(more ? seen + 1 : seen);
    // every hint so far, the newest last: a student who comes back tomorrow reads them all again
    std::string out;
    for (std::size_t k = 0; k < shown; ++k)
        out += fmt::format("{}{} {}/{} · {} {}\n{}\n", k ? "\n" : "", styled(pick(l, "提示", "Hint"), fmt::emphasis::bold, q->o.color),
                           k + 1, e.hints.size(), pick(l, "练习", "exercise"), e.id,
                           escape_controls(exercise_words(e.hints[k], e, *q->run, l), true));
    if (!more) out += fmt::format("\n{}\n", pick(l, "（这是最后一个提示了。还是卡住？qkv solution " + e.id + " 给出完整解答。）",
                                               "(That was the last hint. Still stuck? qkv solution " + e.id + " shows the worked solution.)"));
    // recorded once the student has it on screen: a hint that could not be written was not seen
    change_progress(path, [&](progress& p) {
        write_out(out);
        exercise_progress& mine = p.by_id[e.id];
        mine.hints = std::max(mine.hints, static_cast<int>(shown));
    });
    return 0;
}

int cmd_solution(const args& a) {
    std::optional<asked> q = ask("solution", a);
    if (!q) return 0;
    const exercise& e = *q->e;
    lang l = q->o.language;
    std::string out = fmt::format("{} · {} {}\n\n{}\n{}\n{}\n", styled(pick(l, "解题过程", "Worked solution"), fmt::emphasis::bold, q->o.color),
                                  pick(l, "练习", "exercise"), e.id, escape_controls(exercise_words(e.question, e, *q->run, l), true),
                                  expected_text(e, *q->run, q->o), escape_controls(exercise_words(e.solution, e, *q->run, l), true));
    change_progress(progress_path(), [&](progress& p) {
        write_out(out);
        p.by_id[e.id].solution_seen = true;
    });
    return 0;
}

}  // namespace qkv::cli
