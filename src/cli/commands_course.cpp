// Where a learner stands and what comes next: qkv progress, qkv next.
#include <map>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/render_json.hpp"
#include "course.hpp"
#include "exercise_common.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

// --- progress ---------------------------------------------------------------------------------

int cmd_progress(const args& a, const console& io) {
    output_choice choice;
    bool reset = false;
    po::options_description desc("Options");
    add_options(desc, choice, true);
    desc.add_options()("reset", po::bool_switch(&reset), "forget all progress (statuses and hints)");
    if (!parse(io, "progress", a, desc)) return 0;
    const auto [o, form] = resolve(choice, io);
    lang l = o.language;
    std::string path = progress_path();
    if (reset) {
        reset_progress(path);
        if (form == format::json)  // a script asked for json: it gets json, not the sentence
            io.print(render_json(ojson{{"reset", true}, {"path", escape_controls(path)}}) + "\n");
        else io.print(fmt::format("{} ({})\n", pick(l, "进度已清空", "Progress cleared"), escape_controls(path)));
        return 0;
    }
    exercise_set set = load_exercises(exercises_dir());
    progress p = open_progress(io, path);
    std::map<int, std::pair<std::size_t, std::size_t>> per_lesson;  // lesson -> (correct, total)
    std::size_t right = 0, hints = 0;
    ojson arr = ojson::array();
    for (const exercise& e : set.all) {
        const exercise_progress mine = p.of(e);
        per_lesson[e.lesson].second++;
        if (mine.state == status::correct) per_lesson[e.lesson].first++, right++;
        hints += static_cast<std::size_t>(mine.hints);
        arr.push_back({{"id", e.id}, {"status", status_name(mine.state)}, {"attempts", mine.attempts}, {"hints", mine.hints},
                       {"solution_seen", mine.solution_seen}});
    }
    if (form == format::json) {
        io.print(render_json(ojson{{"path", escape_controls(path)}, {"lessons_read", p.lessons_read}, {"exercises", arr}, {"correct", right},
                        {"total", set.all.size()}}) + "\n");
        return 0;
    }
    const std::string head = pick(l, "练习进度", "Progress on the exercises");  // XDG_STATE_HOME is the user's: escaped, cut to fit
    std::string out = fmt::format("{} ({})\n\n", head, elide(escape_controls(path), o.width > display_width(head) + 13 ? o.width - display_width(head) - 3 : 10));
    for (auto& [lesson, c] : per_lesson)
        out += fmt::format("  {}  {} {}/{}\n", pad(fmt::format(fmt::runtime(tr(l, "Lesson {}")), lesson), 10), bar(c.first, c.second, o.color),
                           c.first, c.second);
    out += fmt::format("\n{}: {}/{} · {}: {}\n", pick(l, "合计", "Total"), right, set.all.size(), pick(l, "用过的提示", "hints used"), hints);
    std::vector<course_lesson> course = load_course(l);
    out += where_you_are(course, p, find_next(course, p), l, o.width) + "\n";
    io.print(out);
    return 0;
}

// --- next -------------------------------------------------------------------------------------

int cmd_next(const args& a, const console& io) {
    output_choice choice;
    po::options_description desc("Options");
    add_help_option(desc);
    add_lang_option(desc, choice.lang);
    add_color_option(desc, choice.color, color_help_short);
    if (!parse(io, "next", a, desc)) return 0;
    lang l = resolve(choice, io).options.language;
    std::vector<course_lesson> course = load_course(l);
    const progress p = open_progress(io, progress_path());
    const next_step n = find_next(course, p);
    io.print(where_you_are(course, p, n, l, resolve(choice, io).options.width) + "\n\n");
    args forward;  // the chosen language and colours go on to the lesson or exercise
    if (!choice.lang.empty()) forward.insert(forward.end(), {"--lang", choice.lang});
    forward.insert(forward.end(), {"--color", choice.color});
    switch (n.k) {
    case next_step::kind::lesson: forward.insert(forward.begin(), std::to_string(n.lesson)); return cmd_lesson(forward, io);
    case next_step::kind::exercise: forward.insert(forward.begin(), n.exercise); return cmd_exercise(forward, io);
    case next_step::kind::done: return 0;
    }
    return 0;
}

}  // namespace qkv::cli
