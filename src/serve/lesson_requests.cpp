// Lesson requests: what to run from the query, the run, and its JSON. The numbers are the engine's;
// the page's HTML is render's (escaped there); this file only chooses and packs.
#include "lesson_requests.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/cell_origin.hpp"
#include "qkv/cell_words.hpp"
#include "qkv/colour_map.hpp"
#include "qkv/error.hpp"
#include "qkv/lesson.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_text.hpp"
#include "qkv/report_list.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/step_cell.hpp"
#include "qkv/trace.hpp"
#include "qkv/utf8.hpp"
#include "http_error.hpp"

namespace qkv::serve {
namespace {

using json = nlohmann::ordered_json;

// The lesson file of number N ("3", "03"), or 404.
std::string lesson_file(const std::string& number) {
    if (number.empty() || number.size() > 4 || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
        refuse(404, said("a lesson is named by its number: /api/lesson/3"));
    const int n = std::stoi(number);
    for (auto& [k, path] : lesson_files(lessons_dir()))
        if (k == n) return path;
    refuse(404, said("no lesson {}; GET /api/lessons lists them", n));
}

// What the query asks a lesson to run on: a sentence (tokens, d_model, heads, seed), a scenario of
// the server's by name (data), or the lesson's own.
scenario_choice choice_of(const params& p, const options& o) {
    scenario_choice given;
    const std::string tokens = param(p, "tokens"), data = param(p, "data");
    if (!tokens.empty() && !data.empty()) refuse(400, said("tokens makes a scenario and data names one: give one of them"));
    if (!data.empty()) {
        auto it = o.data.find(data);
        if (it == o.data.end()) {
            std::string names;
            for (const auto& [name, file] : o.data) names += (names.empty() ? "" : ", ") + name;
            refuse(404, said("no scenario '{}'; this server has {}", data, names.empty() ? "none" : names));
        }
        given.file = it->second;
        return given;
    }
    for (const char* sized : {"d_model", "heads", "seed"})
        if (p.count(sized) && tokens.empty()) refuse(400, said("{} goes with tokens", sized));
    if (tokens.empty()) return given;
    scenario_spec spec{split_tokens(tokens), 4, 2, 1};
    if (spec.tokens.empty()) refuse(400, said("tokens gives no token: words separated by spaces"));
    if (spec.tokens.size() > o.limit.tokens)
        refuse(413, said("{} tokens; a sentence here has at most {}", spec.tokens.size(), o.limit.tokens));
    for (const std::string& t : spec.tokens)
        if (t.size() > o.limit.token_bytes) refuse(413, said("a token of {} bytes; at most {} here", t.size(), o.limit.token_bytes));
    spec.d_model = static_cast<std::size_t>(number_param(p, "d_model", 4, 1, static_cast<long long>(o.limit.d_model)));
    spec.heads = static_cast<std::size_t>(number_param(p, "heads", 2, 1, static_cast<long long>(spec.d_model)));
    spec.seed = static_cast<std::uint64_t>(number_param(p, "seed", 1, 0, 1LL << 53));
    try {
        given.made = generate_scenario(spec);
    } catch (const input_error& e) {
        refuse(400, e.said_message());
    }
    given.made_from = spec;
    given.size_given = p.count("d_model") || p.count("heads");
    return given;
}

// A float as JSON writes the trace's: its shortest decimal (0.3, not 0.30000001192092896).
double shortest(float x) { return std::isfinite(x) ? std::stod(fmt::format("{}", x)) : x; }

std::vector<double> shortest(const std::vector<float>& xs) {
    std::vector<double> out;
    for (float x : xs) out.push_back(shortest(x));
    return out;
}

// Lessons read once and kept while their files stay as they were: a request runs the lesson, not
// its parser (a lesson file changed on disk is read again, as the terminal would).
std::shared_ptr<const lesson> cached_lesson(const std::string& file) {
    static std::mutex m;
    static std::map<std::string, std::pair<std::filesystem::file_time_type, std::shared_ptr<const lesson>>> kept;
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(file, ec);
    {
        const std::lock_guard<std::mutex> hold(m);
        auto it = kept.find(file);
        if (it != kept.end() && !ec && it->second.first == written) return it->second.second;
    }
    auto l = std::make_shared<const lesson>(load_lesson(file));
    const std::lock_guard<std::mutex> hold(m);
    kept[file] = {written, l};
    return l;
}

}  // namespace

std::shared_ptr<const lesson> lesson_numbered(int n) {
    for (auto& [k, path] : lesson_files(lessons_dir()))
        if (k == n) return cached_lesson(path);
    refuse(404, said("no lesson {}; GET /api/lessons lists them", n));
}

namespace {

// The lesson run on what the query chose, as the terminal runs it (run_lessons).
trace run_on(const std::string& file, const scenario_choice& given, lang l) {
    try {
        const std::shared_ptr<const lesson> ls = cached_lesson(file);
        std::map<std::string, scenario> read;
        return run_lesson(*ls, scenario_for(*ls, given, read), l).t;
    } catch (const input_error& e) {
        refuse(400, e.said_message());
    }
}

render_options page_options(lang l) {
    render_options r;
    r.language = l;
    r.full = true;  // a page scrolls: every row and column (a sentence is at most limits::tokens)
    r.every_step = true;
    return r;
}

// A cell's terms as the page and the API read them.
json terms_json(const cell_terms& t) {
    json terms;
    switch (t.kind) {
        case cell_terms::op::product:
            terms = {{"left", t.left}, {"right", t.right}, {"a", shortest(t.a)}, {"b", shortest(t.b)}, {"products", t.parts}, {"sum", t.total}};
            break;
        case cell_terms::op::softmax: {
            json row = json::array();
            for (float s : t.a) row.push_back(std::isfinite(s) ? json(shortest(s)) : json(s < 0 ? "-inf" : "inf"));
            terms = {{"argument", t.left}, {"row", row}, {"row_max", shortest(t.row_max)}, {"exps", t.parts}, {"exp_sum", t.total}, {"quotient", t.result}};
            break;
        }
        case cell_terms::op::elementwise:
            terms = {{"left", t.left}, {"op", std::string(1, t.symbol)}, {"right", t.right}, {"x", shortest(t.x)}, {"y", shortest(t.y)}, {"result", t.result}};
            break;
        case cell_terms::op::builtin: terms = {{"function", t.left}}; break;
        default: terms = {{"of", t.left}, {"result", t.result}};
    }
    return terms;
}

}  // namespace

std::string param(const params& p, const std::string& name, const std::string& fallback) {
    auto [first, last] = p.equal_range(name);
    if (first == last) return fallback;
    if (std::next(first) != last) refuse(400, said("{} is given twice", name));
    if (!utf8::valid(first->second)) refuse(400, said("{} is not UTF-8 text", name));
    return first->second;
}

long long number_param(const params& p, const std::string& name, long long fallback, long long lo, long long hi) {
    const std::string text = param(p, name);
    if (text.empty()) return fallback;
    const sentence wanted = said("{} must be a whole number from {} to {}", name, lo, hi);
    if (text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) refuse(400, wanted);
    const long long v = std::stoll(text);
    if (v < lo || v > hi) refuse(400, wanted);
    return v;
}

lang language_of(const params& p, const options& o) {
    const std::string code = param(p, "lang");
    if (code.empty()) return o.language;
    if (auto l = parse_lang(code)) return *l;
    refuse(400, said("lang must be zh or en"));
}

std::string lessons_json(const params& p, const options& o) {
    render_options r;
    r.language = language_of(p, o);
    std::vector<lesson> lessons;
    for (auto& [n, path] : lesson_files(lessons_dir())) lessons.push_back(*cached_lesson(path));
    return lesson_list(lessons, format::json, r);
}

std::string lesson_json(const std::string& number, const params& p, const options& o) {
    const std::string file = lesson_file(number);
    const lang l = language_of(p, o);
    const std::string form = param(p, "format", "page");
    if (form != "page" && form != "json") refuse(400, said("format must be page or json"));
    const scenario_choice given = choice_of(p, o);
    const trace t = run_on(file, given, l);
    if (form == "json") return render_json(t, -1);
    const render_options r = page_options(l);
    json out;
    out["lesson"] = t.lesson;
    out["title"] = t.title;
    out["heading"] = fmt::format(fmt::runtime(tr(l, "Lesson {}")), t.lesson) + " · " + t.title;
    out["lang"] = std::string(lang_code(l));
    out["scenario"] = t.scenario.empty() ? json(nullptr) : json(t.scenario);
    out["scenario_words"] = scenario_words(t, l);
    out["causal"] = t.causal;
    out["stage_count"] = t.stage_count;
    if (given.made && t.scenario == given.made->name)
        out["scenario_file"] = scenario_toml(*given.made, fmt::format("qkv scenario {}", spec_arguments(*given.made_from)));
    // stage=K: only that stage's HTML (a stage of a 64-token lesson 8 is a few hundred kB of it, the
    // whole lesson 3 MB); the page asks for each stage as it is shown
    const int only = p.count("stage") ? static_cast<int>(number_param(p, "stage", 1, 1, 999)) : 0;
    if (only && std::none_of(t.stages.begin(), t.stages.end(), [&](const stage_trace& s) { return s.index == only; }))
        refuse(400, said("lesson {} has stages 1–{}, not {}", t.lesson, t.stage_count, only));
    out["stages"] = json::array();
    for (const stage_trace& s : t.stages)
        out["stages"].push_back({{"index", s.index}, {"id", s.id}, {"title", s.title}, {"formula", s.formula},
                                 {"html", only == 0 || s.index == only ? json(html_stage(t, s, r)) : json(nullptr)}});
    out["closing"] = closing_lines(t, l);
    return render_json(out, -1);
}

std::string cell_json(const params& p, const options& o) {
    const std::string file = lesson_file(param(p, "lesson"));
    const lang l = language_of(p, o);
    const scenario_choice given = choice_of(p, o);
    const std::string name = param(p, "name");
    if (name.empty() || name.size() > 64) refuse(400, said("name must be the value's name, as the stage shows it"));
    const int stage = static_cast<int>(number_param(p, "stage", 0, 1, 999));
    cell_index at;
    at.head = static_cast<std::size_t>(number_param(p, "head", 1, 1, 4096) - 1);
    at.row = static_cast<std::size_t>(number_param(p, "i", 0, 1, 1 << 20) - 1);
    at.col = static_cast<std::size_t>(number_param(p, "j", 0, 1, 1 << 20) - 1);
    if (p.count("step")) {
        const std::size_t step = static_cast<std::size_t>(number_param(p, "step", 1, 1, 1 << 20));
        const trace t = run_on(file, given, l);
        auto s = std::find_if(t.stages.begin(), t.stages.end(), [&](const stage_trace& x) { return x.index == stage; });
        if (s == t.stages.end()) refuse(400, said("lesson {} has stages 1–{}, not {}", t.lesson, t.stage_count, stage));
        step_cell sc;
        try {
            sc = explain_step_cell(*s, step, name, at);
        } catch (const input_error& e) {
            refuse(400, e.said_message());
        }
        static constexpr const char* rules[] = {"recorded", "running_max", "rescale", "running_sum", "softmax", "product"};
        json out;
        out["name"] = sc.name;
        out["step"] = sc.step;
        out["step_label"] = sc.label;
        out["row"] = sc.at.row + 1;
        out["col"] = sc.at.col + 1;
        out["cell"] = shortest(sc.cell);
        out["op"] = rules[static_cast<int>(sc.r)];
        out["before"] = sc.before ? json(shortest(*sc.before)) : json(nullptr);
        if (sc.r == step_cell::rule::kv_weight || sc.r == step_cell::rule::kv_output) out["terms"] = terms_json(sc.terms);
        render_options r;
        r.language = l;
        out["lines"] = step_cell_words(sc, r);
        return render_json(out, -1);
    }
    cell_origin c;
    try {
        const std::shared_ptr<const lesson> ls = cached_lesson(file);
        std::map<std::string, scenario> read;
        c = explain_shown_cell(*ls, scenario_for(*ls, given, read), stage, name, at);
    } catch (const input_error& e) {
        refuse(400, e.said_message());
    }
    json out;
    out["name"] = c.name;
    out["head"] = c.stack ? json(c.at.head + 1) : json(nullptr);
    out["row"] = c.at.row + 1;
    out["col"] = c.at.col + 1;
    out["row_label"] = c.row_label;
    out["col_label"] = c.col_label;
    out["stage"] = c.stage == 0 ? json(nullptr) : json(c.stage);
    out["cell"] = shortest(c.cell);
    if (c.terms) {
        const cell_terms& t = *c.terms;
        static constexpr const char* ops[] = {"product", "softmax", "mask", "elementwise", "negate", "transpose", "copy", "scalar", "builtin"};
        out["statement"] = t.statement;
        out["op"] = ops[static_cast<int>(t.kind)];
        out["terms"] = terms_json(t);
    } else {
        out["statement"] = nullptr;
        out["op"] = "given";
    }
    render_options r;
    r.language = l;
    out["lines"] = cell_words(c, r);
    return render_json(out, -1);
}

std::string scenarios_json(const options& o) {
    json names = json::array();
    for (const auto& [name, file] : o.data) names.push_back(name);
    return render_json(json{{"scenarios", names}}, -1);
}

std::string colours_json() {
    json all = json::array();
    for (int k = 0; k < 256; ++k) {
        const auto [r, g, b] = viridis(static_cast<float>(k) / 255.0f);
        all.push_back(fmt::format("#{:02x}{:02x}{:02x}", r, g, b));
    }
    return render_json(json{{"colours", all}}, -1);
}

}  // namespace qkv::serve
