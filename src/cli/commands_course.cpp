// Where a learner stands and what comes next: qkv progress, qkv next. The standing is content's
// (course.hpp), its words the report's (report_course.hpp).
#include <fmt/format.h>

#include "qkv/course.hpp"
#include "qkv/report_course.hpp"
#include "exercise_common.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

int cmd_progress(const args& a, const console& io) {
    output_choice choice;
    bool reset = false;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_options(desc, choice, true, hl);
    desc.add_options()("reset", po::bool_switch(&reset), tr(hl, "forget all progress (statuses and hints)").c_str());
    if (!parse(io, "progress", a, desc)) return 0;
    const auto [o, form] = resolve(choice, io);
    const std::string path = progress_path();
    if (reset) {
        reset_progress(path);
        io.print(progress_reset(path, form, o.language));
        return 0;
    }
    const exercise_set set = load_exercises(exercises_dir());
    const progress p = open_progress(io, path);
    const progress_summary s = summarize(set, p, path);
    // the text also says what comes next, from the lessons' titles; json is the record alone
    io.print(form == format::json ? progress_json(s) : progress_text(s, position_in(load_course(o.language), p), o));
    return 0;
}

int cmd_next(const args& a, const console& io) {
    output_choice choice;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_help_option(desc, hl);
    add_lang_option(desc, choice.lang, hl);
    add_color_option(desc, choice.color, hl, color_help_short);
    if (!parse(io, "next", a, desc)) return 0;
    const render_options o = resolve(choice, io).options;
    const course_position at = position_in(load_course(o.language), open_progress(io, progress_path()));
    io.print(position_text(at, o.language, o.width) + "\n\n");
    args forward;  // the chosen language and colours go on to the lesson or exercise
    if (!choice.lang.empty()) forward.insert(forward.end(), {"--lang", choice.lang});
    forward.insert(forward.end(), {"--color", choice.color});
    switch (at.next.k) {
    case next_step::kind::lesson: forward.insert(forward.begin(), std::to_string(at.next.lesson)); return cmd_lesson(forward, io);
    case next_step::kind::exercise: forward.insert(forward.begin(), at.next.exercise); return cmd_exercise(forward, io);
    case next_step::kind::done: return 0;
    }
    return 0;
}

}  // namespace qkv::cli
