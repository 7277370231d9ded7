// Where a learner stands, in words and JSON (report_course.hpp).
#include "qkv/report_course.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/render_json.hpp"
#include "qkv/wrap.hpp"
#include "exercise_text.hpp"

namespace qkv {

using ojson = nlohmann::ordered_json;

std::string position_text(const course_position& at, lang l, std::size_t width) {
    const next_step& n = at.next;
    std::string out;
    if (at.read || at.right)
        out = fmt::format(fmt::runtime(tr(l, "You have read {} of {} lessons and got {} of {} exercises right. ")),
                          at.read, at.lessons, at.right, at.exercises);
    switch (n.k) {
    case next_step::kind::lesson:
        out += fmt::format(fmt::runtime(!at.read ? tr(l, "Start here: lesson {} · {} (qkv lesson {}, or qkv next)")
                                                 : tr(l, "Next: lesson {} · {} (qkv lesson {}, or qkv next)")),
                           n.lesson, n.title, n.lesson);
        break;
    case next_step::kind::exercise:
        out += fmt::format(fmt::runtime(tr(l, "Next: exercise {} (lesson {} · {}; qkv exercise {}, or qkv next)")),
                           n.exercise, n.lesson, n.title, n.exercise);
        break;
    case next_step::kind::done:
        out += tr(l, "You have finished every lesson and every exercise.");
        break;
    }
    std::string lines;
    for (const std::string& line : wrap_paragraph(out, width)) lines += (lines.empty() ? "" : "\n") + line;
    return lines;
}

std::string progress_text(const progress_summary& s, const course_position& at, const render_options& o) {
    const lang l = o.language;
    const std::string head = tr(l, "Progress on the exercises");  // XDG_STATE_HOME is the user's: escaped, cut to fit
    std::string out = fmt::format("{} ({})\n\n", head, elide(escape_controls(s.path), o.width > display_width(head) + 13 ? o.width - display_width(head) - 3 : 10));
    for (const progress_summary::lesson_count& c : s.lessons)
        out += fmt::format("  {}  {} {}/{}\n", pad(fmt::format(fmt::runtime(tr(l, "Lesson {}")), c.lesson), 10), detail::bar(c.right, c.total, o.color),
                           c.right, c.total);
    out += fmt::format("\n{}: {}/{} · {}: {}\n", tr(l, "Total"), s.right, s.total, tr(l, "hints used"), s.hints);
    return out + position_text(at, l, o.width) + "\n";
}

std::string progress_json(const progress_summary& s) {
    ojson arr = ojson::array();
    for (const progress_summary::exercise_record& e : s.exercises)
        arr.push_back({{"id", e.id}, {"status", status_name(e.mine.state)}, {"attempts", e.mine.attempts}, {"hints", e.mine.hints},
                       {"solution_seen", e.mine.solution_seen}});
    return render_json(ojson{{"path", escape_controls(s.path)}, {"lessons_read", s.lessons_read}, {"exercises", arr}, {"correct", s.right},
                             {"total", s.total}}) + "\n";
}

std::string progress_reset(const std::string& path, format form, lang l) {
    if (form == format::json)  // a script asked for json: it gets json, not the sentence
        return render_json(ojson{{"reset", true}, {"path", escape_controls(path)}}) + "\n";
    return fmt::format("{} ({})\n", tr(l, "Progress cleared"), escape_controls(path));
}

}  // namespace qkv
