// Loading lesson files: the stages, their text in both languages, and their formulas, parsed
// here so that a typo is reported with file:line:column before anything runs.
#include "qkv/lesson.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include "qkv/toml_file.hpp"

#include "qkv_config.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

void only_keys(const std::string& file, const toml::table& t, std::initializer_list<std::string_view> known,
               std::string_view where) {
    for (auto&& [k, v] : t) {
        if (std::find(known.begin(), known.end(), k.str()) == known.end()) {
            std::string list;
            for (auto s : known) list += (list.empty() ? "" : ", ") + std::string(s);
            throw input_error(loc_of(file, v), fmt::format("{}: unknown key '{}' (expected one of: {})", where, k.str(), list));
        }
    }
}

std::string required_string(const std::string& file, const toml::table& t, std::string_view key, std::string_view where) {
    const toml::node* n = t.get(key);
    if (!n) throw input_error(loc_of(file, t), fmt::format("{}: missing '{}'", where, key));
    if (!n->is_string()) throw input_error(loc_of(file, *n), fmt::format("{}: '{}' must be a string", where, key));
    return n->as_string()->get();
}

// title = { zh = "…", en = "…" }: both languages, neither empty.
bilingual bilingual_of(const std::string& file, const toml::table& t, std::string_view key, std::string_view where) {
    const toml::node* n = t.get(key);
    if (!n) throw input_error(loc_of(file, t), fmt::format("{}: missing '{}' (a table with zh and en)", where, key));
    const toml::table* b = n->as_table();
    if (!b) throw input_error(loc_of(file, *n), fmt::format("{}: '{}' must be a table {{ zh = \"…\", en = \"…\" }}", where, key));
    std::string ctx = fmt::format("{}, {}", where, key);
    only_keys(file, *b, {"zh", "en"}, ctx);
    bilingual out{required_string(file, *b, "zh", ctx), required_string(file, *b, "en", ctx)};
    if (out.zh.empty() || out.en.empty()) throw input_error(loc_of(file, *b), fmt::format("{}: zh and en must both be written", ctx));
    return out;
}

// Where the characters of a TOML string start: after the opening quote, or on the next line for a
// multi-line string that begins with a newline (TOML drops that newline).
source_loc content_start(const std::vector<std::string>& lines, const std::string& file, const toml::node& n) {
    int line = static_cast<int>(n.source().begin.line), col = static_cast<int>(n.source().begin.column);
    if (line < 1 || line > static_cast<int>(lines.size())) return {file, line, col};
    std::string_view text = lines[line - 1];
    std::string_view rest = col >= 1 && col - 1 <= static_cast<int>(text.size()) ? text.substr(col - 1) : std::string_view{};
    if (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
        if (rest.size() == 3) return {file, line + 1, 1};
        return {file, line, col + 3};
    }
    return {file, line, col + 1};
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

stage stage_of(const std::string& file, const std::vector<std::string>& lines, const toml::table& t, std::size_t index) {
    std::string where = fmt::format("stage {}", index);
    only_keys(file, t, {"id", "title", "formula", "show", "axes", "text"}, where);
    stage s;
    s.where = loc_of(file, t);
    s.id = required_string(file, t, "id", where);
    where = fmt::format("stage '{}'", s.id);
    s.title = bilingual_of(file, t, "title", where);
    s.text = bilingual_of(file, t, "text", where);
    required_string(file, t, "formula", where);
    const toml::node& fn = *t.get("formula");
    s.f = parse_formula(fn.as_string()->get(), content_start(lines, file, fn));
    if (s.f.statements.empty()) throw input_error(loc_of(file, fn), fmt::format("{}: the formula has no statement", where));
    if (const toml::node* show = t.get("show")) {
        const toml::array* a = show->as_array();
        if (!a) throw input_error(loc_of(file, *show), fmt::format("{}: show must be an array of names", where));
        for (auto& n : *a) {
            if (!n.is_string()) throw input_error(loc_of(file, n), fmt::format("{}: show must list names (strings)", where));
            s.show.push_back(n.as_string()->get());
        }
    }
    if (const toml::node* axes = t.get("axes")) {
        const toml::table* a = axes->as_table();
        if (!a) throw input_error(loc_of(file, *axes), fmt::format("{}: axes must be a table, e.g. {{ S = [\"queries\", \"keys\"] }}", where));
        for (auto&& [name, v] : *a) {
            const toml::array* pair = v.as_array();
            if (!pair || pair->size() != 2 || !(*pair)[0].is_string() || !(*pair)[1].is_string())
                throw input_error(loc_of(file, v), fmt::format("{}: axes.{} must be [\"rows\", \"columns\"]", where, name.str()));
            s.axes[std::string(name.str())] = {(*pair)[0].as_string()->get(), (*pair)[1].as_string()->get()};
        }
    }
    return s;
}

}  // namespace

lesson load_lesson(const std::string& path) {
    toml::table doc = parse_toml_file(path, "lesson file");
    auto lines = read_lines(path);
    only_keys(path, doc, {"number", "title", "scenario", "stage", "exercise"}, "lesson");
    lesson l;
    l.file = path;
    const toml::node* num = doc.get("number");
    if (!num || !num->is_integer() || num->as_integer()->get() < 0 || num->as_integer()->get() > 9999)  // NN-name.toml: 1-4 digits
        throw input_error(num ? loc_of(path, *num) : source_loc{path, 1, 1}, "lesson: 'number' must be an integer from 0 to 9999");
    l.number = static_cast<int>(num->as_integer()->get());
    l.title = bilingual_of(path, doc, "title", "lesson");
    if (doc.contains("scenario")) l.scenario = required_string(path, doc, "scenario", "lesson");
    const toml::array* stages = doc["stage"].as_array();
    if (!stages || stages->empty()) throw input_error(source_loc{path, 1, 1}, "lesson: no [[stage]] tables");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < stages->size(); ++i) {
        const toml::table* t = (*stages)[i].as_table();
        if (!t) throw input_error(loc_of(path, (*stages)[i]), "lesson: 'stage' must be an array of tables ([[stage]])");
        stage s = stage_of(path, lines, *t, i + 1);
        if (!ids.insert(s.id).second) throw input_error(s.where, fmt::format("stage id '{}' is used twice", s.id));
        l.stages.push_back(std::move(s));
    }
    return l;
}

std::vector<std::pair<int, std::string>> lesson_files(const std::string& dir) {
    std::vector<std::pair<int, std::string>> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw input_error(source_loc{dir, 0, 0}, "lessons folder not found (set QKV_LESSONS)");
    static const std::regex name(R"(^(\d{1,4})-[^/]*\.toml$)");
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::smatch m;
        std::string base = e.path().filename().string();
        if (e.is_regular_file() && std::regex_match(base, m, name)) out.emplace_back(std::stoi(m[1]), e.path().string());
    }
    std::sort(out.begin(), out.end());
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].first == out[i - 1].first)
            throw input_error(source_loc{out[i].second, 0, 0},
                              fmt::format("lesson number {} is also used by {}", out[i].first, out[i - 1].second));
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
