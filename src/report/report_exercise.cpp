// The exercises in words and JSON (report_exercise.hpp).
#include "qkv/report_exercise.hpp"

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/exercise_words.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_text.hpp"
#include "qkv/styled_text.hpp"
#include "exercise_text.hpp"

namespace qkv {

using detail::bar;
using detail::first_line;
using detail::hanging;
using detail::prose;

namespace {

// One exercise's line: id, kind, status (coloured once tried), the question's first line.
std::string listing_line(const listed_exercise& e, const render_options& o) {
    std::string state = pad(status_word(o.language, e.mine.state), 10);
    if (e.mine.state != status::not_tried)
        state = styled(state, fmt::fg(e.mine.state == status::correct ? fmt::terminal_color::green : fmt::terminal_color::red), o.color);
    std::string seen = e.mine.solution_seen ? tr(o.language, " (solution seen)") : "";
    const std::size_t used = 2 + 5 + 1 + 7 + 1 + 10 + 1 + display_width(seen);  // "  3.2   number  wrong      "
    return fmt::format("  {:<5} {} {} {}{}\n", e.id, pad(kind_word(o.language, e.kind), 7), state,
                       first_line(e.question, o.width > used + 10 ? o.width - used : 10), seen);
}

}  // namespace

std::string exercises_text(const exercise_listing& x, const render_options& o) {
    const std::vector<listed_exercise>& list = x.exercises;
    std::string out;
    for (std::size_t i = 0; i < list.size();) {
        int lesson = list[i].lesson;
        std::size_t end = i, done = 0;
        for (; end < list.size() && list[end].lesson == lesson; ++end) done += list[end].mine.state == status::correct;
        std::string heading = fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), lesson);
        if (auto t = x.titles.find(lesson); t != x.titles.end()) heading += " · " + t->second;
        const std::string count = fmt::format("{}/{}", done, end - i);
        const std::size_t used = 2 + 10 + 1 + count.size();  // "  ██░░░░░░░░ 1/5"
        out += fmt::format("{}  {} {}\n", elide(heading, o.width > used + 10 ? o.width - used : 10), bar(done, end - i, o.color), count);
        for (; i < end; ++i) out += listing_line(list[i], o);
        out += "\n";
    }
    return out + tr(o.language, "Read one: qkv exercise ID · answer: qkv check ID ANSWER · a hint: qkv hint ID\n");
}

std::string exercises_json(const exercise_listing& x) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const listed_exercise& e : x.exercises)
        arr.push_back({{"id", e.id}, {"lesson", e.lesson}, {"kind", kind_name(e.kind)}, {"question", e.question},
                       {"status", status_name(e.mine.state)}, {"solution_seen", e.mine.solution_seen}});
    return render_json(nlohmann::ordered_json{{"exercises", arr}}) + "\n";
}

std::string exercise_text(const exercise_view& v, const exercise_progress& mine, const render_options& o) {
    const lang l = o.language;
    std::string out = fmt::format("{} {} · {} · {}", tr(l, "Exercise"), v.id,
                                  fmt::format(fmt::runtime(tr(l, "Lesson {}")), v.lesson), kind_word(l, v.kind));
    // a lesson that made its own data (18, 19) ran on no scenario: the heading says so, as the lesson's does
    if (!v.values.empty() || !v.student.empty())
        out += fmt::format(" · {} {}", tr(l, "scenario"),
                           v.scenario.empty() ? tr(l, "none: the lesson makes its own data") : escape_controls(v.scenario));
    out += "\n\n" + prose(v.question, o);
    for (std::size_t i = 0; i < v.choices.size(); ++i)
        out += (i ? "" : "\n") + hanging(fmt::format("{}. {}", static_cast<char>('A' + i), v.choices[i]), o, "  ", "   ");
    if (!v.values.empty()) out += render_values_text(v.values, o);
    // as written when they fit (two spaces set the parts apart), wrapped when they do not
    auto fitted = [&](const std::string& line) { return display_width(line) <= o.width ? line + "\n" : prose(line, o); };
    out += "\n" + fitted(fmt::format("{}qkv check {} …  ({})", tr(l, "Answer: "), v.id, answer_form(l, v.kind)));
    out += fitted(fmt::format("{}qkv hint {}  ({}/{})  ·  {}qkv solution {}  ·  {}{}", tr(l, "Hints: "), v.id, mine.hints,
                              v.hints, tr(l, "solution: "), v.id, tr(l, "status: "), status_word(l, mine.state)));
    return out;
}

std::string exercise_json(const exercise_view& v) {
    trace_json j = detail::exercise_head_json(v);
    j["question"] = v.question;
    j["choices"] = trace_json::array();
    for (std::size_t i = 0; i < v.choices.size(); ++i)
        j["choices"].push_back({{"letter", std::string(1, static_cast<char>('A' + i))}, {"text", v.choices[i]}});
    j["values"] = trace_json::array();
    for (const shown_value& s : v.values) j["values"].push_back(json_of(s));
    j["tolerance"] = v.tolerance ? trace_json(*v.tolerance) : trace_json();
    return render_json(j) + "\n";
}

std::string hints_json(const hints_view& h) {
    return render_json(trace_json{{"id", h.id}, {"total", h.total}, {"shown", h.shown}, {"none_new", h.none_new}}) + "\n";
}

std::string solution_json(const worked_solution& s) {
    return render_json(trace_json{{"id", s.id}, {"question", s.question}, {"expected", detail::expected_json(s.expected)},
                                  {"solution", s.solution}}) + "\n";
}

std::string hints_text(const hints_view& h, const render_options& o) {
    const lang l = o.language;
    std::string out;
    for (std::size_t k = 0; k < h.shown.size(); ++k)
        out += fmt::format("{}{} {}/{} · {} {}\n{}", k ? "\n" : "", styled(tr(l, "Hint"), fmt::emphasis::bold, o.color),
                           k + 1, h.total, tr(l, "exercise"), h.id, prose(h.shown[k], o));
    if (h.none_new) out += fmt::format("\n{}\n", fmt::format(fmt::runtime(tr(l, "(That was the last hint. Still stuck? qkv solution {} shows the worked solution.)")), h.id));
    return out;
}

std::string solution_text(const worked_solution& s, const render_options& o) {
    const lang l = o.language;
    return fmt::format("{} · {} {}\n\n{}{}\n{}", styled(tr(l, "Worked solution"), fmt::emphasis::bold, o.color),
                       tr(l, "exercise"), s.id, prose(s.question, o), detail::expected_text(s.expected, o), prose(s.solution, o));
}

}  // namespace qkv
