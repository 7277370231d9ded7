// `qkv list`, `qkv lesson` and `qkv run`: find lessons, run them on their own scenarios (or on the
// one given, or one made for the learner's own sentence), and hand the traces to a renderer, the
// stepper or the presenter.
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/course.hpp"
#include "qkv/i18n.hpp"
#include "qkv/lesson.hpp"
#include "qkv/render_format.hpp"
#include "qkv/scenario.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/scenario_preface.hpp"
#include "qkv/suggest.hpp"
#include "qkv/trace.hpp"
#include "qkv/report_list.hpp"
#include "exercise_common.hpp"
#include "screen.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;

std::string range_of(const std::vector<std::pair<int, std::string>>& files) {
    if (files.empty()) return "none";
    return fmt::format("{}–{}", files.front().first, files.back().first);
}

// The lesson files that `which` names: "all", a number ("3", "03") or a name ("softmax").
std::vector<std::string> select_lessons(const std::string& which) {
    auto files = lesson_files(lessons_dir());
    std::vector<std::string> out;
    if (which == "all") {
        for (auto& [n, path] : files) out.push_back(path);
        if (out.empty()) throw usage_error(fmt::format("no lessons in {}", lessons_dir()));
        return out;
    }
    bool numeric = !which.empty() && which.size() < 6 && std::all_of(which.begin(), which.end(), ::isdigit);
    for (auto& [n, path] : files)
        if ((numeric && std::stoi(which) == n) || lesson_name(path) == which) return {path};
    std::string hint;
    if (numeric && !files.empty()) {
        int k = std::stoi(which);
        auto best = std::min_element(files.begin(), files.end(),
                                     [&](auto& a, auto& b) { return std::abs(a.first - k) < std::abs(b.first - k); });
        hint = fmt::format("; did you mean {}?", best->first);
    } else {
        std::vector<std::string> slugs;
        for (auto& [n, path] : files) slugs.push_back(lesson_name(path));
        if (auto near = nearest(which, slugs); !near.empty()) hint = fmt::format("; did you mean '{}'?", near);
    }
    throw usage_error(fmt::format("no lesson '{}'; the lessons are {} (qkv list){}", which, range_of(files), hint));
}

// What `qkv lesson` and `qkv run` share: the options, and running the chosen files.
struct lesson_request {
    output_choice choice;
    std::string data, tokens;
    int stage = 0;
    bool step = false, present = false;
    double auto_seconds = 0;
    std::size_t d_model = 4, heads = 2;
    unsigned long long seed = 1;
};

void add_lesson_options(po::options_description& desc, lesson_request& r) {
    desc.add_options()
        ("step", po::bool_switch(&r.step), "interactive: one stage per screen, title and formula pinned (space "
                                           "reads on, n/b next/back, arrows and PgUp/PgDn scroll, g K, h every key, q); "
                                           "TERM=dumb: printed line by line")
        ("present", po::bool_switch(&r.present), "full screen for a class: one stage per screen, the keys of --step "
                                                 "(TERM=dumb: page after page)")
        ("auto", po::value(&r.auto_seconds), "with --present: next stage after SECONDS by itself (p pauses)")
        ("stage", po::value(&r.stage), "show only stage K (with --step or --present: start there)")
        ("data", po::value(&r.data), "run on another scenario file, or a name of data/ (--data induction: a trained model)")
        ("tokens", po::value(&r.tokens), "run on your own sentence: \"我 爱 吃 苹果\", numbers from a seed")
        ("d-model", po::value(&r.d_model), "with --tokens: embedding width (default 4)")
        ("heads", po::value(&r.heads), "with --tokens: heads, must divide --d-model (default 2)")
        ("seed", po::value(&r.seed), "with --tokens: the seed; the same seed gives the same numbers (default 1)");
    add_output_options(desc, r.choice);
}

void check_request(const lesson_request& r, const po::variables_map& vm, format form) {
    if (r.step && r.present) throw usage_error("--step and --present are two ways to step; choose one");
    if ((r.step || r.present) && form != format::text)
        throw usage_error(fmt::format("--{} shows text; leave out --format", r.step ? "step" : "present"));
    if (vm.count("auto") && !r.present) throw usage_error("--auto goes with --present");
    if (vm.count("auto") && !(r.auto_seconds > 0 && r.auto_seconds <= 3600))
        throw usage_error("--auto takes the seconds per stage, more than 0 and at most 3600");
    if (!r.tokens.empty() && !r.data.empty()) throw usage_error("--tokens makes a scenario; --data reads one; choose one");
    if (vm.count("tokens") && split_tokens(r.tokens).empty())  // '' ran the default sentence unsaid
        throw usage_error("--tokens gives no token; give the sentence, tokens separated by spaces: --tokens \"我 爱 吃 苹果\"");
    for (const char* o : {"d-model", "heads", "seed"})
        if (vm.count(o) && r.tokens.empty()) throw usage_error(fmt::format("--{} goes with --tokens", o));
}

// The scenario of --tokens, and the text that shows it before the lesson.
scenario generated(const lesson_request& r, std::string& preface, lang l) {
    scenario_spec spec{split_tokens(r.tokens), r.d_model, r.heads, r.seed};
    try {
        scenario s = generate_scenario(spec);
        // the command on a line of its own, what to do with it on the next: one line was 122 columns
        preface = scenario_toml(s, fmt::format("qkv scenario {}\n{}", spec_arguments(spec),
                                               tr(l, "add -o FILE to keep it; --data FILE reads it back")));
        return s;
    } catch (const input_error& e) {
        throw usage_error(e.message());
    }
}

// --stage K: where stepping starts, or the one stage shown.
std::size_t pick_stage(std::vector<trace>& traces, const lesson_request& r) {
    std::size_t count = traces.front().stages.size();
    if (r.stage < 1 || static_cast<std::size_t>(r.stage) > count)
        throw usage_error(fmt::format("--stage {}: lesson {} has stages 1–{}", r.stage, traces.front().lesson, count));
    std::size_t start = static_cast<std::size_t>(r.stage - 1);
    if (!r.step && !r.present) {
        trace& t = traces.front();
        stage_trace only = std::move(t.stages[start]);
        t.stages = {std::move(only)};
    }
    return start;
}

int run_lessons(const console& io, const std::vector<std::string>& files, lesson_request& r, const po::variables_map& vm,
                bool course) {
    auto [o, form] = resolve_output(r.choice, io);
    check_request(r, vm, form);
    if (vm.count("stage") && files.size() != 1) throw usage_error("--stage needs a single lesson, not 'all'");
    scenario_choice given;
    given.file = r.data;
    if (!r.tokens.empty()) {
        given.made = generated(r, o.preface, o.language);
        given.made_from = scenario_spec{split_tokens(r.tokens), r.d_model, r.heads, r.seed};
        given.size_given = vm.count("d-model") || vm.count("heads");
    }
    std::vector<trace> traces = run_lessons(files, given, o.language);
    // The made scenario is shown only when a lesson ran on it (lesson 15 alone runs at its own size).
    if (given.made && std::none_of(traces.begin(), traces.end(), [&](const trace& t) { return t.scenario == given.made->name; }))
        o.preface.clear();
    if (course) add_what_next(traces, load_course(o.language, traces));
    std::size_t start = vm.count("stage") ? pick_stage(traces, r) : 0;
    if (r.step || r.present) {
        if (!o.preface.empty()) io.print(scenario_preface(o.preface, o) + "\n");
        return run_screen(io, traces, o, screen_choice{r.present, r.auto_seconds, start});
    }
    io.print(render(traces, form, o));
    if (course) record_lessons_read(io, traces);  // once it is written: `qkv next` moves on
    return 0;
}

}  // namespace

// The list takes the options every command takes (--color too, though it has no colour: an alias
// that adds --color never to every command must not break it), and besides them only those it
// honours: --precision (no numbers) and --format html (no page of it) were taken and did nothing.
int cmd_list(const args& a, const console& io) {
    output_choice choice;
    po::options_description desc("Options");
    add_help_option(desc);
    add_lang_option(desc, choice.lang);
    add_color_option(desc, choice.color, color_help_short);
    const format_list writes{format::text, format::markdown, format::json};
    add_format_option(desc, choice.format, writes);
    desc.add_options()("full", po::bool_switch(&choice.full), "whole titles, never cut to the terminal's width");
    if (!parse(io, "list", a, desc)) return 0;
    if (choice.format == "html")
        throw usage_error(fmt::format("--format must be {}, not 'html': the list has no page of its own", format_words(writes)));
    const auto [o, form] = resolve_output(choice, io);
    std::vector<lesson> lessons;
    for (auto& [n, path] : lesson_files(lessons_dir())) lessons.push_back(load_lesson(path));
    io.print(lesson_list(lessons, form, o));
    return 0;
}

namespace {

// `qkv lesson WHICH` and `qkv run FILE` differ only in their one argument and how it becomes files.
int run_command(const console& io, const args& a, std::string_view cmd, const char* argument, const char* what, const char* missing,
                std::vector<std::string> (*files_of)(const std::string&), bool course) {
    lesson_request r;
    std::string which;
    po::options_description desc("Options");
    add_help_option(desc);
    desc.add_options()(argument, po::value(&which), what);
    add_lesson_options(desc, r);
    po::positional_options_description pos;
    pos.add(argument, 1);
    po::variables_map vm;
    if (!parse(io, cmd, a, desc, pos, vm)) return 0;
    if (which.empty()) throw usage_error(missing);
    return run_lessons(io, files_of(which), r, vm, course);
}

}  // namespace

int cmd_lesson(const args& a, const console& io) {
    return run_command(io, a, "lesson", "lesson", "N, a lesson name, or all",
                       "which lesson? give a number, a name or 'all' (qkv list shows them)", select_lessons, true);
}

int cmd_run(const args& a, const console& io) {
    return run_command(io, a, "run", "file", "the lesson file (.toml)", "which file? qkv run my-lesson.toml (qkv validate checks it)",
                       [](const std::string& file) { return std::vector<std::string>{file}; }, false);
}

}  // namespace qkv::cli
