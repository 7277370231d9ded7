// Loading lesson files: the stages, their text in both languages, and their formulas, parsed
// here so that a typo is reported with file:line:column before anything runs (the first one to
// run; every one for `qkv validate`).
#include "qkv/lesson.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "qkv/toml_file.hpp"

#include "qkv_config.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

// title = { zh = "…", en = "…" }
std::optional<bilingual> bilingual_of(const toml_reader& rd, const toml::table& t, std::string_view key, std::string_view where) {
    const toml::node* n = t.get(key);
    if (!n) {
        rd.report(rd.at(t), fmt::format("{}: missing '{}' (a table with zh and en)", where, key));
        return std::nullopt;
    }
    return rd.text(*n, fmt::format("{}, {}", where, key));
}

void read_formula(const toml_reader& rd, const toml::table& t, stage& s, const std::string& where) {
    auto source = rd.required_string(t, "formula", where);
    if (!source) return;
    const toml::node& fn = *t.get("formula");
    if (rd.attempt([&] { s.f = parse_formula(*source, rd.content_start(fn)); }) && s.f.statements.empty())
        rd.report(rd.at(fn), fmt::format("{}: the formula has no statement", where));
    const toml::node* cn = t.get("causal_formula");
    if (!cn) return;
    if (!cn->is_string()) return rd.report(rd.at(*cn), fmt::format("{}: causal_formula must be a string", where));
    formula causal;
    if (!rd.attempt([&] { causal = parse_formula(cn->as_string()->get(), rd.content_start(*cn)); })) return;
    // the same names, so that what the text quotes and the stage shows exist on either scenario
    std::set<std::string> plain, masked;
    for (const statement& st : s.f.statements) plain.insert(st.target);
    for (const statement& st : causal.statements) masked.insert(st.target);
    if (plain != masked)
        return rd.report(rd.at(*cn), fmt::format("{}: causal_formula must assign the names formula assigns, and no others", where));
    s.f_causal = std::move(causal);
}

// An array of names (a stage's show, a lesson's token_rows); `what` names it in messages.
// With `places`, where each name stands.
void read_names(const toml_reader& rd, const toml::node& node, std::vector<std::string>& out, const std::string& what,
                std::vector<source_loc>* places = nullptr) {
    const toml::array* a = node.as_array();
    if (!a) return rd.report(rd.at(node), fmt::format("{} must be an array of names", what));
    for (auto& n : *a) {
        if (!n.is_string()) {
            rd.report(rd.at(n), fmt::format("{} must list names (strings)", what));
            continue;
        }
        out.push_back(n.as_string()->get());
        if (places) places->push_back(rd.at(n));
    }
}

void read_axes(const toml_reader& rd, const toml::node& axes, stage& s, const std::string& where) {
    const toml::table* a = axes.as_table();
    if (!a) return rd.report(rd.at(axes), fmt::format("{}: axes must be a table, e.g. {{ S = [\"queries\", \"keys\"] }}", where));
    for (auto&& [name, v] : *a) {
        const toml::array* words = v.as_array();
        bool ok = words && (words->size() == 2 || words->size() == 3);
        for (std::size_t i = 0; ok && i < words->size(); ++i) ok = (*words)[i].is_string();
        if (!ok) {
            rd.report(rd.at(v), fmt::format("{}: axes.{} must be [\"rows\", \"columns\"], or for a stack "
                                            "[\"heads\" | \"devices\" | \"samples\", \"rows\", \"columns\"]", where, name.str()));
            continue;
        }
        auto word = [&](std::size_t i) { return (*words)[i].as_string()->get(); };
        std::size_t first = words->size() - 2;
        if (first == 1) {
            std::string stack = word(0);
            if (stack != "heads" && stack != "devices" && stack != "samples")
                rd.report(rd.at(v), fmt::format("{}: axes.{}: a stack's matrices are \"heads\", \"devices\" or \"samples\", "
                                                "not \"{}\"", where, name.str(), stack));
            else
                s.stack_axes[std::string(name.str())] = stack;
        }
        s.axes[std::string(name.str())] = {word(first), word(first + 1)};
        s.axes_at[std::string(name.str())] = rd.at(v);
    }
}

// A stage; while collecting, one with a problem (reported) is incomplete.
stage stage_of(const toml_reader& rd, const toml::table& t, std::size_t index) {
    std::string where = fmt::format("stage {}", index);
    rd.only_keys(t, {"id", "title", "formula", "causal_formula", "show", "axes", "marks", "text"}, where);
    stage s;
    s.where = rd.at(t);
    if (auto id = rd.required_string(t, "id", where)) {
        s.id = *id;
        where = fmt::format("stage '{}'", s.id);
    }
    auto title = bilingual_of(rd, t, "title", where);
    auto text = bilingual_of(rd, t, "text", where);
    read_formula(rd, t, s, where);
    if (const toml::node* show = t.get("show")) read_names(rd, *show, s.show, where + ": show");
    if (const toml::node* axes = t.get("axes")) read_axes(rd, *axes, s, where);
    if (const toml::node* marks = t.get("marks")) {
        if (const toml::table* m = marks->as_table()) {
            for (auto&& [name, v] : *m) {
                if (!v.is_string()) {
                    rd.report(rd.at(v), fmt::format("{}: marks.{} must name a pattern, e.g. marks = {{ A_h = \"P_ind\" }}", where, name.str()));
                    continue;
                }
                s.marks[std::string(name.str())] = v.as_string()->get();
                s.marks_at[std::string(name.str())] = rd.at(v);
            }
        } else {
            rd.report(rd.at(*marks), fmt::format("{}: marks must be a table, e.g. marks = {{ A_h = \"P_ind\" }}", where));
        }
    }
    s.title = title.value_or(bilingual{});
    s.text = text.value_or(bilingual{});
    return s;
}

void read_stages(const toml_reader& rd, const toml::table& doc, lesson& l) {
    const toml::array* stages = doc["stage"].as_array();
    if (!stages || stages->empty()) return rd.report(source_loc{rd.file(), 1, 1}, "lesson: no [[stage]] tables");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < stages->size(); ++i) {
        const toml::table* t = (*stages)[i].as_table();
        if (!t) {
            rd.report(rd.at((*stages)[i]), "lesson: 'stage' must be an array of tables ([[stage]])");
            continue;
        }
        std::size_t before = rd.problem_count();
        stage s = stage_of(rd, *t, i + 1);
        if ((*t)["id"].is_string() && !ids.insert(s.id).second) rd.report(s.where, fmt::format("stage id '{}' is used twice", s.id));
        if (rd.problem_count() == before) l.stages.push_back(std::move(s));
    }
}

// The lesson's own scenario: in the data folder, or beside the lesson (an author's own).
std::string scenario_file_of(const lesson& l) {
    std::error_code ec;
    fs::path in_data = fs::path(data_dir()) / l.scenario;
    fs::path beside = fs::path(l.file).parent_path() / l.scenario;
    return fs::exists(in_data, ec) || !fs::exists(beside, ec) ? in_data.string() : beside.string();
}

}  // namespace

lesson read_lesson(const toml_document& doc, std::vector<problem>* problems) {
    toml_reader rd(doc, problems);
    const std::string& path = doc.file;
    rd.only_keys(doc.table, {"number", "title", "scenario", "min_tokens", "token_rows", "stage", "exercise"}, "lesson");
    lesson l;
    l.file = path;
    const toml::node* num = doc.table.get("number");
    if (!num || !num->is_integer() || num->as_integer()->get() < 0 || num->as_integer()->get() > 9999)  // NN-name.toml: 1-4 digits
        rd.report(num ? rd.at(*num) : source_loc{path, 1, 1}, "lesson: 'number' must be an integer from 0 to 9999");
    else
        l.number = static_cast<int>(num->as_integer()->get());
    if (auto title = bilingual_of(rd, doc.table, "title", "lesson")) l.title = *title;
    l.scenario_at = source_loc{path, 0, 0};
    if (doc.table.contains("scenario"))
        if (auto scen = rd.required_string(doc.table, "scenario", "lesson")) l.scenario = *scen, l.scenario_at = rd.at(*doc.table.get("scenario"));
    if (const toml::node* least = doc.table.get("min_tokens")) {
        if (!least->is_integer() || least->as_integer()->get() < 1 || least->as_integer()->get() > 64)
            rd.report(rd.at(*least), "lesson: 'min_tokens' must be an integer from 1 to 64");
        else
            l.min_tokens = static_cast<std::size_t>(least->as_integer()->get());
    }
    if (const toml::node* rows = doc.table.get("token_rows")) {
        l.token_rows.clear();
        read_names(rd, *rows, l.token_rows, "lesson: token_rows", &l.token_rows_at);
        if (l.token_rows.empty() && rows->is_array()) rd.report(rd.at(*rows), "lesson: token_rows must name at least one value");
    }
    read_stages(rd, doc.table, l);
    l.scenario_file = scenario_file_of(l);
    return l;
}

lesson load_lesson(const std::string& path) { return read_lesson(read_toml_file(path, "lesson file")); }

std::vector<std::pair<int, std::string>> numbered_files(const std::string& dir, const std::string& pattern) {
    std::vector<std::pair<int, std::string>> out;
    const std::regex name(pattern);
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::smatch m;
        std::string base = e.path().filename().string();
        if (e.is_regular_file(ec) && std::regex_match(base, m, name)) out.emplace_back(std::stoi(m[1]), e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

toml_document read_lesson_head(const std::string& path) {
    std::string text = read_text_file(path, "lesson file");
    // the first line that starts with '[' (after blanks): a table header, or inside a value that
    // goes on over lines (an array, a multi-line string), which the head then leaves unclosed
    std::size_t cut = std::string::npos;
    for (std::size_t line = 0; line < text.size() && cut == std::string::npos;) {
        const std::size_t first = text.find_first_not_of(" \t", line);
        if (first != std::string::npos && text[first] == '[') cut = line;
        const std::size_t end = text.find('\n', line);
        line = end == std::string::npos ? text.size() : end + 1;
    }
    if (cut != std::string::npos) {
        try {
            return read_toml_text(std::string_view(text).substr(0, cut), path);
        } catch (const input_error&) {
            // cut inside a value: the whole file, below
        }
    }
    return read_toml_text(text, path);
}

course_entry read_course_entry(const std::string& path) {
    const toml_document head = read_lesson_head(path);
    std::vector<problem> problems;
    toml_reader rd(head, &problems);
    course_entry e;
    const toml::node* num = head.table.get("number");
    if (num && num->is_integer()) e.number = static_cast<int>(num->as_integer()->get());
    const std::optional<bilingual> title = head.table.contains("title") ? rd.text(*head.table.get("title"), "lesson, title")
                                                                        : std::nullopt;
    if (!title || !problems.empty() || !num || !num->is_integer()) {
        const lesson l = load_lesson(path);  // says what is wrong, or reads what the head could not
        return {l.number, l.title};
    }
    e.title = *title;
    return e;
}

namespace {

// Where a lesson file says `number = N`, and N; nullopt when it does not read or says no number
// (loading that lesson reports why).
std::optional<std::pair<int, source_loc>> declared_number(const std::string& path) {
    try {
        const toml_document doc = read_lesson_head(path);
        const toml::node* n = doc.table.get("number");
        if (!n || !n->is_integer()) return std::nullopt;
        return std::pair{static_cast<int>(n->as_integer()->get()), loc_of(path, *n)};
    } catch (const input_error&) {
        return std::nullopt;
    }
}

}  // namespace

std::vector<problem> shared_numbers(const std::vector<std::pair<int, std::string>>& files) {
    std::vector<problem> out;
    std::map<int, std::string> first;  // number -> the file that said it first
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto& [n, path] = files[i];
        if (i > 0 && n == files[i - 1].first) {  // two names, one NN: 03-a.toml and 03-b.toml
            out.push_back({source_loc{path, 0, 0}, fmt::format("lesson number {} is also used by {}", n, files[i - 1].second)});
            continue;
        }
        const auto said = declared_number(path);
        if (!said) continue;
        if (auto [it, fresh] = first.emplace(said->first, path); !fresh)
            out.push_back({said->second, fmt::format("lesson number {} is also used by {} (two lesson files may not share one)",
                                                     said->first, it->second)});
    }
    return out;
}

std::string lesson_name(const std::string& path) {
    const std::string stem = std::filesystem::path(path).stem().string();
    const auto dash = stem.find('-');
    return dash == std::string::npos ? stem : stem.substr(dash + 1);
}

std::vector<std::pair<int, std::string>> lesson_files(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw input_error(source_loc{dir, 0, 0}, "lessons folder not found (set QKV_LESSONS)");
    auto out = numbered_files(dir, lesson_file_pattern);
    if (auto clash = shared_numbers(out); !clash.empty()) throw input_error(clash.front().where, clash.front().message);
    return out;
}

static std::string env_or(const char* var, const std::string& fallback) {
    const char* v = std::getenv(var);
    return v && *v ? std::string(v) : fallback;
}

// The folder `sub` of qkv's data: beside an installed program (its datadir, found from where the
// program is, so a DESTDIR or moved installation works), else the source tree it was built from,
// else the datadir it was configured for. A build-tree qkv never reads an older installation.
static std::string installed_or_source(const char* sub) {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    fs::path rel = fs::path(QKV_INSTALL_DATADIR).lexically_relative(QKV_INSTALL_BINDIR);
    if (!ec && !rel.empty() && fs::is_directory(exe.parent_path() / rel / sub, ec))
        return (exe.parent_path() / rel / sub).lexically_normal().string();
    fs::path source = fs::path(QKV_SOURCE_ROOT) / sub;
    if (fs::is_directory(source, ec)) return source.string();
    return (fs::path(QKV_INSTALL_DATADIR) / sub).string();
}

std::string lessons_dir() { return env_or("QKV_LESSONS", installed_or_source("lessons")); }
std::string data_dir() { return env_or("QKV_DATA", installed_or_source("data")); }

}  // namespace qkv
