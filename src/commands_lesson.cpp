// `qkv list` and `qkv lesson`: find lessons, load them with their scenarios, run them, and hand
// the traces to a renderer or the stepper.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/cli.hpp"
#include "qkv/lesson.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_markdown.hpp"
#include "qkv/render_text.hpp"
#include "qkv/scenario.hpp"
#include "qkv/stepper.hpp"
#include "qkv/suggest.hpp"
#include "qkv/terminal.hpp"
#include "qkv/trace.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

// "05-softmax.toml" -> "softmax"
std::string slug_of(const std::string& path) {
    std::string stem = fs::path(path).stem().string();
    auto dash = stem.find('-');
    return dash == std::string::npos ? stem : stem.substr(dash + 1);
}

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
        if ((numeric && std::stoi(which) == n) || slug_of(path) == which) return {path};
    std::string hint;
    if (numeric && !files.empty()) {
        int k = std::stoi(which);
        auto best = std::min_element(files.begin(), files.end(),
                                     [&](auto& a, auto& b) { return std::abs(a.first - k) < std::abs(b.first - k); });
        hint = fmt::format("; did you mean {}?", best->first);
    } else {
        std::vector<std::string> slugs;
        for (auto& [n, path] : files) slugs.push_back(slug_of(path));
        if (auto near = nearest(which, slugs); !near.empty()) hint = fmt::format("; did you mean '{}'?", near);
    }
    throw usage_error(fmt::format("no lesson '{}'; the lessons are {} (qkv list){}", which, range_of(files), hint));
}

std::string render(const std::vector<trace>& traces, const render_options& o, const std::string& format) {
    std::string out;
    if (format == "json") {
        if (traces.size() == 1) return render_json(traces.front()) + "\n";
        auto all = nlohmann::ordered_json::array();
        for (const trace& t : traces) all.push_back(nlohmann::ordered_json::parse(render_json(t, -1)));
        return all.dump(2) + "\n";
    }
    for (std::size_t i = 0; i < traces.size(); ++i) {
        if (i) out += "\n";
        out += format == "markdown" ? render_markdown(traces[i], o) : render_text(traces[i], o);
    }
    return out;
}

}  // namespace

int cmd_list(const args& a) {
    output_choice choice;
    po::options_description desc("Options");
    desc.add_options()("help,h", "show this help");
    add_output_options(desc, choice);
    po::variables_map vm;
    if (!parse("list", a, desc, {}, vm)) return 0;
    render_options o = resolve_output(choice);
    std::vector<lesson> lessons;
    for (auto& [n, path] : lesson_files(lessons_dir())) lessons.push_back(load_lesson(path));
    if (choice.format == "json") {
        auto list = nlohmann::ordered_json::array();
        for (const lesson& l : lessons)
            list.push_back({{"number", l.number}, {"title", l.title.in(o.language)}, {"stages", l.stages.size()},
                            {"name", slug_of(l.file)}});
        write_out(nlohmann::ordered_json{{"lang", lang_code(o.language)}, {"lessons", list}}.dump(2) + "\n");
        return 0;
    }
    std::string out;
    for (const lesson& l : lessons) {
        std::string stages = fmt::format("{} {}", l.stages.size(), tr(o.language, "stages"));
        out += choice.format == "markdown" ? fmt::format("| {} | {} | {} |\n", l.number, l.title.in(o.language), l.stages.size())
                                           : fmt::format("{:>3}  {:<14} {}  ({})\n", l.number, slug_of(l.file), l.title.in(o.language), stages);
    }
    if (choice.format == "markdown") out = "| # | title | stages |\n|---|---|---|\n" + out;
    write_out(out);
    return 0;
}

int cmd_lesson(const args& a) {
    output_choice choice;
    std::string which, data;
    int stage = 0;
    bool step = false;
    po::options_description desc("Options");
    desc.add_options()
        ("help,h", "show this help")
        ("lesson", po::value(&which), "N, a lesson name, or all")
        ("step", po::bool_switch(&step), "interactive: one stage at a time (Enter/n next, b back, g K, r, h, q)")
        ("stage", po::value(&stage), "show only stage K")
        ("data", po::value(&data), "run on another scenario file (see data/)");
    add_output_options(desc, choice);
    po::positional_options_description pos;
    pos.add("lesson", 1);
    po::variables_map vm;
    if (!parse("lesson", a, desc, pos, vm)) return 0;
    if (which.empty()) throw usage_error("which lesson? give a number, a name or 'all' (qkv list shows them)");
    render_options o = resolve_output(choice);
    if (step && choice.format != "text") throw usage_error("--step shows text; leave out --format");

    auto files = select_lessons(which);
    if (vm.count("stage") && files.size() != 1) throw usage_error("--stage needs a single lesson, not 'all'");
    std::map<std::string, scenario> scenarios;  // each scenario file read once
    std::vector<trace> traces;
    for (const std::string& path : files) {
        lesson l = load_lesson(path);
        std::string scen = data.empty() ? (fs::path(data_dir()) / l.scenario).string() : data;
        if (!scenarios.count(scen)) scenarios.emplace(scen, load_scenario(scen));
        traces.push_back(run_lesson(l, scenarios.at(scen), o.language).t);
    }
    std::size_t start = 0;
    if (vm.count("stage")) {
        std::size_t count = traces.front().stages.size();
        if (stage < 1 || static_cast<std::size_t>(stage) > count)
            throw usage_error(fmt::format("--stage {}: lesson {} has stages 1–{}", stage, traces.front().lesson, count));
        start = static_cast<std::size_t>(stage - 1);
        if (!step) {
            trace& t = traces.front();
            stage_trace only = std::move(t.stages[start]);
            t.stages = {std::move(only)};
        }
    }
    if (step) {
        stepper_io io;
        io.clear_screen = terminal::is_tty(1);
        std::fflush(stdout);
        return run_stepper(traces, o, io, start);
    }
    write_out(render(traces, o, choice.format));
    return 0;
}

}  // namespace qkv::cli
