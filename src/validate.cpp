// Checking files for their authors. The loaders stop at the first problem, which is right for
// running and wrong for writing: here each stage (and each exercise) is checked on its own, so one
// run of `qkv validate` lists everything to fix.
#include "qkv/validate.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "qkv/exercise.hpp"
#include "qkv/formula.hpp"
#include "qkv/lesson.hpp"
#include "qkv/scenario.hpp"
#include "qkv/trace.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

source_loc loc_of(const std::string& file, const toml::node& n) {
    return {file, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

problem problem_of(const input_error& e, const std::string& path) {
    if (e.where().file.empty()) return {source_loc{path, 0, 0}, e.message()};
    return {e.where(), e.message()};
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

// Where the characters of a formula string start (after the quotes; the next line for a
// multi-line string that opens with a newline), so parse errors point at the right column.
source_loc formula_start(const std::string& text, const std::string& file, const toml::node& n) {
    int line = static_cast<int>(n.source().begin.line), col = static_cast<int>(n.source().begin.column);
    std::istringstream in(text);
    std::string l;
    for (int i = 0; i < line && std::getline(in, l); ++i) {
    }
    std::string_view rest = col >= 1 && static_cast<std::size_t>(col - 1) <= l.size() ? std::string_view(l).substr(col - 1) : "";
    if (rest.starts_with("\"\"\"") || rest.starts_with("'''")) return rest.size() == 3 ? source_loc{file, line + 1, 1} : source_loc{file, line, col + 3};
    return {file, line, col + 1};
}

// title / text: a table with zh and en, both written.
void check_bilingual(const std::string& path, const toml::table& st, std::string_view key, const std::string& where,
                     std::vector<problem>& out) {
    const toml::node* n = st.get(key);
    if (!n) return out.push_back({loc_of(path, st), fmt::format("{}: missing '{}' (a table with zh and en)", where, key)});
    const toml::table* b = n->as_table();
    if (!b) return out.push_back({loc_of(path, *n), fmt::format("{}: '{}' must be a table {{ zh = \"…\", en = \"…\" }}", where, key)});
    for (std::string_view l : {"zh", "en"}) {
        auto s = (*b)[l].value<std::string>();
        if (!s || s->find_first_not_of(" \t\r\n") == std::string::npos)
            out.push_back({loc_of(path, *b), fmt::format("{}, {}: the {} text is missing", where, key, l == "zh" ? "Chinese (zh)" : "English (en)")});
    }
}

// Every stage on its own: both languages, and a formula that parses.
std::vector<problem> stage_problems(const std::string& path, const std::string& text, const toml::table& doc) {
    std::vector<problem> out;
    const toml::array* stages = doc["stage"].as_array();
    if (!stages) return out;
    for (std::size_t i = 0; i < stages->size(); ++i) {
        const toml::table* st = (*stages)[i].as_table();
        if (!st) continue;
        std::string where = fmt::format("stage {}", i + 1);
        if (auto id = (*st)["id"].value<std::string>()) where = fmt::format("stage '{}'", *id);
        check_bilingual(path, *st, "title", where, out);
        check_bilingual(path, *st, "text", where, out);
        const toml::node* f = st->get("formula");
        if (!f || !f->is_string()) {
            out.push_back({f ? loc_of(path, *f) : loc_of(path, *st), fmt::format("{}: 'formula' must be a string", where)});
            continue;
        }
        try {
            parse_formula(f->as_string()->get(), formula_start(text, path, *f));
        } catch (const input_error& e) {
            out.push_back(problem_of(e, path));
        }
    }
    return out;
}

// The lesson's own scenario: in the data folder, or beside the lesson (an author's own).
std::string scenario_for(const lesson& l, const std::string& data_file) {
    if (!data_file.empty()) return data_file;
    fs::path in_data = fs::path(data_dir()) / l.scenario;
    fs::path beside = fs::path(l.file).parent_path() / l.scenario;
    return fs::exists(in_data) || !fs::exists(beside) ? in_data.string() : beside.string();
}

validation check_lesson(const std::string& path, const std::string& text, const toml::table& doc, const std::string& data_file) {
    validation v{"lesson", "", stage_problems(path, text, doc)};
    lesson l;
    try {
        l = load_lesson(path);
    } catch (const input_error& e) {
        problem p = problem_of(e, path);
        bool same_line = std::any_of(v.problems.begin(), v.problems.end(),
                                     [&](const problem& q) { return q.where.line == p.where.line; });
        if (!same_line) v.problems.push_back(p);  // else: the stage check above said it already
        return v;
    }
    if (!v.problems.empty()) return v;
    std::string scen = scenario_for(l, data_file);
    try {
        scenario s = load_scenario(scen);
        run_lesson(l, s, lang::zh);
        lesson_run r = run_lesson(l, s, lang::en);
        v.summary = fmt::format("lesson {}, {} stages, run on {}", l.number, r.t.stages.size(), fs::path(scen).filename().string());
    } catch (const input_error& e) {
        v.problems.push_back(problem_of(e, path));
    }
    return v;
}

validation check_scenario(const std::string& path) {
    validation v{"scenario", "", {}};
    try {
        scenario s = load_scenario(path);
        const matrix& X = s.matrices.at("X");
        v.summary = fmt::format("scenario {}, {} tokens, d_model = {}", s.name, s.tokens.size(), X.cols);
    } catch (const input_error& e) {
        v.problems.push_back(problem_of(e, path));
    }
    return v;
}

mistake_book the_mistakes() {
    fs::path p = fs::path(exercises_dir()) / "mistakes.toml";
    return fs::exists(p) ? parse_mistakes(read_text(p.string()), p.string()) : mistake_book{};
}

// Each exercise is evaluated on its lesson; a failing one does not hide the others.
validation check_exercises(const std::string& path, const std::string& text, const std::string& data_file) {
    validation v{"exercises", "", {}};
    try {
        auto all = parse_exercises(text, path, the_mistakes());
        for (const exercise& e : all) {
            try {
                run_exercise(e, lang::en, data_file);
            } catch (const input_error& err) {
                problem p = problem_of(err, path);
                if (p.where.file != path) p = {e.where, fmt::format("exercise {}: {}", e.id, err.what())};
                v.problems.push_back(p);
            }
        }
        v.summary = fmt::format("{} exercises, each evaluated on its lesson", all.size());
    } catch (const input_error& e) {
        v.problems.push_back(problem_of(e, path));
    }
    return v;
}

}  // namespace

std::string problem::str() const {
    std::string loc = where.str();
    return loc.empty() ? message : loc + ": " + message;
}

validation validate_file(const std::string& path, const std::string& data_file) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return {"", "", {{source_loc{path, 0, 0}, "file not found"}}};
    std::string text = read_text(path);
    toml::table doc;
    try {
        doc = toml::parse(text, path);
    } catch (const toml::parse_error& e) {
        return {"", "", {{source_loc{path, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column)},
                          std::string(e.description())}}};
    }
    if (doc.contains("stage") || doc.contains("number")) return check_lesson(path, text, doc, data_file);
    if (doc.contains("tokens") || doc.contains("matrices")) return check_scenario(path);
    if (doc.contains("exercise") || doc.contains("lesson")) return check_exercises(path, text, data_file);
    if (fs::path(path).filename() == "mistakes.toml") {
        validation v{"mistakes", "the mistake book", {}};
        try {
            parse_mistakes(text, path);
        } catch (const input_error& e) {
            v.problems.push_back(problem_of(e, path));
        }
        return v;
    }
    return {"", "", {{source_loc{path, 1, 1}, "neither a lesson (number, [[stage]]) nor a scenario (tokens, [matrices]) "
                                             "nor exercises (lesson, [[exercise]])"}}};
}

}  // namespace qkv
