// Exercise files and the mistake vocabulary, read with file:line errors; the expected answer and
// each mistake evaluated in the formula language on the lesson's own workspace; and the judgement
// of an answer, which says what is wrong and which mistake it matches.
#include "qkv/exercise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "qkv/toml_file.hpp"

#include "qkv/error.hpp"
#include "qkv/scenario.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

// --- reading the TOML -----------------------------------------------------------------------

struct reader {
    std::string file;
    std::vector<std::string> lines;

    source_loc at(const toml::node& n) const {
        return {file, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
    }

    void only_keys(const toml::table& t, std::initializer_list<std::string_view> known, std::string_view where) const {
        for (auto&& [k, v] : t) {
            if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
            throw input_error(at(v), fmt::format("{}: unknown key '{}' (expected one of: {})", where, k.str(),
                                                 fmt::join(known, ", ")));
        }
    }

    std::string string(const toml::node& n, std::string_view what) const {
        if (!n.is_string()) throw input_error(at(n), fmt::format("{} must be a string", what));
        return n.as_string()->get();
    }

    const toml::node& need(const toml::table& t, std::string_view key, std::string_view where) const {
        const toml::node* n = t.get(key);
        if (!n) throw input_error(at(t), fmt::format("{}: missing '{}'", where, key));
        return *n;
    }

    // { zh = "…", en = "…" }, both written.
    bilingual text(const toml::node& n, std::string_view what) const {
        const toml::table* t = n.as_table();
        if (!t) throw input_error(at(n), fmt::format("{} must be a table {{ zh = \"…\", en = \"…\" }}", what));
        only_keys(*t, {"zh", "en"}, what);
        bilingual out{string(need(*t, "zh", what), fmt::format("{}.zh", what)),
                      string(need(*t, "en", what), fmt::format("{}.en", what))};
        if (out.zh.empty() || out.en.empty()) throw input_error(at(n), fmt::format("{}: zh and en must both be written", what));
        return out;
    }

    // Where a string's characters start (after the quotes; a """ string drops its first newline),
    // so that a formula error points at the right column.
    source_loc content_start(const toml::node& n) const {
        source_loc l = at(n);
        if (l.line < 1 || l.line > static_cast<int>(lines.size())) return l;
        std::string_view rest = std::string_view(lines[l.line - 1]).substr(std::min<std::size_t>(l.column - 1, lines[l.line - 1].size()));
        if (rest.starts_with("\"\"\"") || rest.starts_with("'''")) return rest.size() == 3 ? source_loc{file, l.line + 1, 1} : source_loc{file, l.line, l.column + 3};
        return {file, l.line, l.column + 1};
    }

    expr_ptr expression(const toml::node& n, std::string_view what) const {
        std::string text = string(n, what);
        return parse_expression(text, content_start(n));
    }
};

std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> out;
    std::istringstream in{std::string(text)};
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::vector<mistake_rule> mistakes_of(const reader& rd, const toml::node& n, const mistake_book& book, std::string_view where) {
    const toml::table* t = n.as_table();
    if (!t) throw input_error(rd.at(n), fmt::format("{}: mistakes must be a table {{ no_scale = \"…\", … }}", where));
    std::vector<mistake_rule> out;
    for (auto&& [k, v] : *t) {
        std::string id(k.str());
        if (!book.count(id)) {
            std::vector<std::string> known;
            for (auto& [name, d] : book) known.push_back(name);
            throw input_error(rd.at(v), fmt::format("{}: '{}' is not in mistakes.toml (known: {})", where, id, fmt::join(known, ", ")));
        }
        mistake_rule m{id, {}, {}, rd.at(v)};
        std::vector<const toml::node*> items;
        if (const toml::array* a = v.as_array()) for (auto& x : *a) items.push_back(&x);
        else items.push_back(&v);
        if (items.empty()) throw input_error(rd.at(v), fmt::format("{}: mistake '{}' has no expression", where, id));
        for (const toml::node* x : items) {
            m.sources.push_back(rd.string(*x, fmt::format("{}: mistakes.{}", where, id)));
            m.exprs.push_back(rd.expression(*x, id));
        }
        out.push_back(std::move(m));
    }
    return out;
}

void read_choices(const reader& rd, const toml::table& t, exercise& e, const std::string& where) {
    const toml::array* a = rd.need(t, "choices", where).as_array();
    if (!a || a->size() < 2 || a->size() > 4)
        throw input_error(rd.at(*t.get("choices")), fmt::format("{}: choices must be a list of 2 to 4 {{ zh, en }} tables", where));
    for (std::size_t i = 0; i < a->size(); ++i)
        e.choices.push_back(rd.text((*a)[i], fmt::format("{}: choice {}", where, static_cast<char>('A' + i))));
    const toml::node& ans = rd.need(t, "answer", where);
    try {
        e.answer = parse_choice(rd.string(ans, where + ": answer"), static_cast<int>(e.choices.size()));
    } catch (const input_error& err) {
        throw input_error(rd.at(ans), fmt::format("{}: answer {}", where, err.message()));
    }
    if (const toml::node* w = t.get("why_not")) {
        const toml::table* wt = w->as_table();
        if (!wt) throw input_error(rd.at(*w), fmt::format("{}: why_not must be a table {{ A = {{ zh, en }} }}", where));
        for (auto&& [k, v] : *wt) {
            char c = k.str().size() == 1 ? k.str()[0] : 0;
            if (c < 'A' || c >= static_cast<char>('A' + e.choices.size()) || c == e.answer)
                throw input_error(rd.at(v), fmt::format("{}: why_not.{} is not one of the wrong choices", where, k.str()));
            e.why_not[c] = rd.text(v, fmt::format("{}: why_not.{}", where, c));
        }
    }
}

void read_computed(const reader& rd, const toml::table& t, exercise& e, const std::string& where, const mistake_book& book) {
    const toml::node& ex = rd.need(t, "expected", where);
    e.expected_source = rd.string(ex, where + ": expected");
    e.expected = rd.expression(ex, "expected");
    if (const toml::node* s = t.get("setup")) e.setup = parse_formula(rd.string(*s, where + ": setup"), rd.content_start(*s));
    if (const toml::node* tol = t.get("tolerance")) {
        auto x = tol->value<double>();
        if (!x || !(*x >= 0)) throw input_error(rd.at(*tol), fmt::format("{}: tolerance must be a number ≥ 0", where));
        e.tolerance = *x;
    }
    if (const toml::node* m = t.get("mistakes")) e.mistakes = mistakes_of(rd, *m, book, where);
}

exercise exercise_of(const reader& rd, const toml::table& t, int lesson, std::size_t index, const mistake_book& book) {
    std::string where = fmt::format("exercise {}", index);
    rd.only_keys(t, {"id", "kind", "question", "hints", "solution", "scenario", "setup", "expected", "tolerance",
                     "shows", "mistakes", "choices", "answer", "why_not"}, where);
    exercise e;
    e.where = rd.at(t);
    e.lesson = lesson;
    const toml::node& idn = rd.need(t, "id", where);
    e.id = rd.string(idn, where + ": id");
    std::smatch m;
    static const std::regex id_form(R"(^(\d{1,4})\.(\d{1,4})$)");  // stoi below cannot overflow
    if (!std::regex_match(e.id, m, id_form) || std::stoi(m[1]) != lesson)
        throw input_error(rd.at(idn), fmt::format("{}: id '{}' must be {}.K, this file being lesson {}", where, e.id, lesson, lesson));
    e.index = std::stoi(m[2]);
    where = fmt::format("exercise {}", e.id);
    const toml::node& kn = rd.need(t, "kind", where);
    auto kind = parse_kind(rd.string(kn, where + ": kind"));
    if (!kind) throw input_error(rd.at(kn), fmt::format("{}: kind must be choice, shape, number or matrix", where));
    e.kind = *kind;
    e.question = rd.text(rd.need(t, "question", where), where + ": question");
    e.solution = rd.text(rd.need(t, "solution", where), where + ": solution");
    const toml::array* hints = rd.need(t, "hints", where).as_array();
    if (!hints || hints->empty()) throw input_error(e.where, fmt::format("{}: hints must be a non-empty list of {{ zh, en }} tables", where));
    for (std::size_t i = 0; i < hints->size(); ++i) e.hints.push_back(rd.text((*hints)[i], fmt::format("{}: hint {}", where, i + 1)));
    if (const toml::node* s = t.get("scenario")) e.scenario = rd.string(*s, where + ": scenario");
    if (const toml::node* s = t.get("shows")) {
        const toml::array* a = s->as_array();
        if (!a) throw input_error(rd.at(*s), fmt::format("{}: shows must be a list of names", where));
        for (auto& n : *a) e.shows.push_back(rd.string(n, where + ": shows"));
    }
    bool choice = e.kind == answer_kind::choice;
    for (std::string_view key : {"expected", "setup", "tolerance", "mistakes"})
        if (choice && t.contains(key)) throw input_error(rd.at(*t.get(key)), fmt::format("{}: a choice has no '{}'", where, key));
    for (std::string_view key : {"choices", "answer", "why_not"})
        if (!choice && t.contains(key)) throw input_error(rd.at(*t.get(key)), fmt::format("{}: only a choice has '{}'", where, key));
    if (choice) read_choices(rd, t, e, where);
    else read_computed(rd, t, e, where, book);
    return e;
}

// --- judging ----------------------------------------------------------------------------------

bool close(const matrix& a, const matrix& b, double tol) {
    if (a.rows != b.rows || a.cols != b.cols) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::fabs(static_cast<double>(a.data[i]) - b.data[i]) <= tol)) return false;
    return true;
}

// Does the answer equal this (wrong) value?
bool matches(const exercise& e, const answer& a, const value& v) {
    switch (e.kind) {
    case answer_kind::shape: return a.shape == v.shape();
    case answer_kind::number: return v.is_scalar() && std::fabs(a.number - v.number) <= e.tolerance;
    case answer_kind::matrix: return v.is_matrix() && close(a.m, v.mat(), e.tolerance);
    case answer_kind::choice: return false;
    }
    return false;
}

// " (甜)" when the axis has names, else nothing: the number alone says it.
std::string label_of(const labels& l, std::size_t i) {
    return i < l.names.size() && !l.names[i].empty() ? " (" + l.names[i] + ")" : "";
}

}  // namespace

std::string exercises_dir() {
    const char* v = std::getenv("QKV_EXERCISES");
    return v && *v ? std::string(v) : (fs::path(lessons_dir()) / "exercises").string();
}

mistake_book parse_mistakes(std::string_view text, const std::string& origin) {
    reader rd{origin, split_lines(text)};
    toml::table doc = parse_toml_text(text, origin);
    mistake_book book;
    for (auto&& [k, v] : doc) book[std::string(k.str())] = rd.text(v, fmt::format("mistake '{}'", k.str()));
    if (book.empty()) throw input_error(source_loc{origin, 0, 0}, "no mistakes defined");
    return book;
}

std::vector<exercise> parse_exercises(std::string_view text, const std::string& origin, const mistake_book& book) {
    reader rd{origin, split_lines(text)};
    toml::table doc = parse_toml_text(text, origin);
    rd.only_keys(doc, {"lesson", "exercise"}, "exercise file");
    const toml::node& ln = rd.need(doc, "lesson", "exercise file");
    if (!ln.is_integer() || ln.as_integer()->get() < 1) throw input_error(rd.at(ln), "exercise file: lesson must be a lesson number");
    int lesson = static_cast<int>(ln.as_integer()->get());
    const toml::array* list = rd.need(doc, "exercise", "exercise file").as_array();
    if (!list || list->empty()) throw input_error(source_loc{origin, 1, 1}, "exercise file: no [[exercise]] tables");
    std::vector<exercise> out;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const toml::table* t = (*list)[i].as_table();
        if (!t) throw input_error(rd.at((*list)[i]), "exercise file: 'exercise' must be an array of tables ([[exercise]])");
        out.push_back(exercise_of(rd, *t, lesson, i + 1, book));
    }
    return out;
}

exercise_set load_exercises(const std::string& dir) {
    auto slurp = [](const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw input_error(source_loc{path, 0, 0}, "cannot read the file");
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    };
    exercise_set set;
    std::string book_path = (fs::path(dir) / "mistakes.toml").string();
    set.book = parse_mistakes(slurp(book_path), book_path);
    std::vector<std::pair<int, std::string>> files;
    static const std::regex name(R"(^(\d{1,4})\.toml$)");
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::smatch m;
        std::string base = entry.path().filename().string();
        if (entry.is_regular_file() && std::regex_match(base, m, name)) files.emplace_back(std::stoi(m[1]), entry.path().string());
    }
    std::sort(files.begin(), files.end());
    std::set<std::string> ids;
    for (auto& [n, path] : files) {
        for (exercise& e : parse_exercises(slurp(path), path, set.book)) {
            if (e.lesson != n) throw input_error(e.where, fmt::format("this file is for lesson {}, not {}", n, e.lesson));
            if (!ids.insert(e.id).second) throw input_error(e.where, fmt::format("exercise id '{}' is used twice", e.id));
            set.all.push_back(std::move(e));
        }
    }
    return set;
}

const exercise* find_exercise(const exercise_set& set, std::string_view id) {
    for (const exercise& e : set.all)
        if (e.id == id) return &e;
    return nullptr;
}

exercise_run run_exercise(const exercise& e, const lesson& l, const scenario& s, lang language) {
    exercise_run r;
    r.run = run_lesson(l, s, language);
    eval_context ctx;
    ctx.where = e.where;
    ctx.stage_id = "exercise " + e.id;
    if (e.setup) run_formula(*e.setup, r.run.ws, ctx);
    if (!e.expected) return r;
    ctx.statement_text = e.expected_source;
    r.expected = evaluate(*e.expected, r.run.ws, ctx);
    if (e.kind == answer_kind::number && r.expected.is_matrix() && r.expected.mat().size() == 1)
        r.expected = value::scalar(r.expected.mat().data[0]);  // a [1, 1] product is one number
    bool fits = e.kind == answer_kind::number ? r.expected.is_scalar()
              : e.kind == answer_kind::matrix ? r.expected.is_matrix()
                                              : !r.expected.is_scalar();
    if (!fits)
        throw input_error(e.where, fmt::format("exercise {}: expected `{}` is {} {}, which a {} answer cannot be", e.id,
                                               e.expected_source, r.expected.is_scalar() ? "a number" : "of shape",
                                               r.expected.is_scalar() ? "" : r.expected.shape_str(), kind_name(e.kind)));
    for (const mistake_rule& m : e.mistakes) {
        for (std::size_t i = 0; i < m.exprs.size(); ++i) {
            ctx.statement_text = m.sources[i];
            try {
                value v = evaluate(*m.exprs[i], r.run.ws, ctx);
                if (v.is_matrix() && v.mat().size() == 1 && e.kind == answer_kind::number) v = value::scalar(v.mat().data[0]);
                r.mistake_values.emplace_back(m.id, std::move(v));
            } catch (const input_error&) {
                // This wrong computation does not even run on this scenario (a square-only
                // mistake on non-square matrices): nobody can have made it here.
            }
        }
    }
    return r;
}

exercise_run run_exercise(const exercise& e, lang language, const std::string& data_file) {
    std::string path;
    for (auto& [n, p] : lesson_files(lessons_dir()))
        if (n == e.lesson) path = p;
    if (path.empty()) throw input_error(e.where, fmt::format("exercise {} belongs to lesson {}, which does not exist", e.id, e.lesson));
    lesson l = load_lesson(path);
    std::string scen = !data_file.empty() ? data_file
                     : (fs::path(data_dir()) / (e.scenario.empty() ? l.scenario : e.scenario)).string();
    return run_exercise(e, l, load_scenario(scen), language);
}

verdict judge(const exercise& e, const answer& a, const exercise_run& r) {
    verdict v;
    switch (e.kind) {
    case answer_kind::choice: v.correct = a.choice == e.answer; break;
    case answer_kind::number:
        v.expected_number = r.expected.number;
        v.correct = std::fabs(a.number - v.expected_number) <= e.tolerance;
        break;
    case answer_kind::shape:
        v.expected_shape = r.expected.shape();
        v.correct = a.shape == v.expected_shape;
        for (std::size_t i = 0; i < std::max(a.shape.size(), v.expected_shape.size()); ++i)
            if (i >= a.shape.size() || i >= v.expected_shape.size() || a.shape[i] != v.expected_shape[i]) v.dims_off.push_back(i);
        break;
    case answer_kind::matrix: {
        const matrix& want = r.expected.mat();
        v.expected_shape = {want.rows, want.cols};
        if (a.m.rows == want.rows && a.m.cols == want.cols) {
            for (std::size_t i = 0; i < want.rows; ++i)
                for (std::size_t j = 0; j < want.cols; ++j)
                    if (!(std::fabs(static_cast<double>(a.m(i, j)) - want(i, j)) <= e.tolerance))
                        v.cells_off.push_back({i, j, a.m(i, j), want(i, j)});
            v.correct = v.cells_off.empty();
        }
        break;
    }
    }
    if (v.correct) return v;
    for (const auto& [id, val] : r.mistake_values)
        if (matches(e, a, val) && std::find(v.mistakes.begin(), v.mistakes.end(), id) == v.mistakes.end()) v.mistakes.push_back(id);
    if (e.kind == answer_kind::matrix && v.mistakes.empty() &&
        (a.m.rows != v.expected_shape[0] || a.m.cols != v.expected_shape[1]))
        throw input_error(fmt::format("exercise {} wants a {} matrix, and the answer is {}", e.id,
                                      shape_text(v.expected_shape), shape_str(a.m)));
    return v;
}

namespace {

// The interface sentences of a judgement; lesson content stays in the exercise files.
struct words {
    lang l;
    std::string pick(std::string_view zh, std::string_view en) const { return std::string(l == lang::zh ? zh : en); }
};

std::string high_low(const words& w, double got, double want) {
    return got > want ? w.pick("偏大", "too high") : w.pick("偏小", "too low");
}

void explain_shape(std::vector<std::string>& out, const words& w, const verdict& v, const answer& a) {
    if (a.shape.size() != v.expected_shape.size()) {
        out.push_back(fmt::format(fmt::runtime(w.pick("这个结果有 {} 个维度，不是 {} 个。", "The result has {} dimensions, not {}.")),
                                  v.expected_shape.size(), a.shape.size()));
        return;
    }
    for (std::size_t i = 0; i < a.shape.size(); ++i) {
        bool off = std::find(v.dims_off.begin(), v.dims_off.end(), i) != v.dims_off.end();
        out.push_back(off ? fmt::format(fmt::runtime(w.pick("第 {} 维：{} 不对。", "Dimension {}: {} is not right.")), i + 1, a.shape[i])
                          : fmt::format(fmt::runtime(w.pick("第 {} 维：{} 是对的。", "Dimension {}: {} is right.")), i + 1, a.shape[i]));
    }
}

void explain_matrix(std::vector<std::string>& out, const words& w, const verdict& v, const exercise& e,
                    const exercise_run& r, int precision) {
    if (v.cells_off.empty()) {  // wrong shape, but it matched a mistake
        out.push_back(fmt::format(fmt::runtime(w.pick("形状应该是 {}。", "The shape should be {}.")), shape_text(v.expected_shape)));
        return;
    }
    std::size_t cells = v.expected_shape[0] * v.expected_shape[1];
    out.push_back(fmt::format(fmt::runtime(w.pick("{cells} 个格子中有 {off} 个不对（允许误差 ±{tol}）：",
                                                  "{off} of {cells} cells are off (tolerance ±{tol}):")),
                              fmt::arg("cells", cells), fmt::arg("off", v.cells_off.size()), fmt::arg("tol", e.tolerance)));
    const std::size_t most = 8;
    for (std::size_t i = 0; i < std::min(most, v.cells_off.size()); ++i) {
        const cell_off& c = v.cells_off[i];
        out.push_back(fmt::format(fmt::runtime(w.pick("  第 {} 行{}，第 {} 列{}：{:.{}f} {}", "  row {}{}, column {}{}: {:.{}f} is {}")),
                                  c.row + 1, label_of(r.expected.rows, c.row), c.col + 1, label_of(r.expected.cols, c.col),
                                  c.got, precision, high_low(w, c.got, c.want)));
    }
    if (v.cells_off.size() > most)
        out.push_back(fmt::format(fmt::runtime(w.pick("  ……还有 {} 个", "  … and {} more")), v.cells_off.size() - most));
}

}  // namespace

std::vector<std::string> explain(const verdict& v, const exercise& e, const answer& a, const exercise_run& r,
                                 const mistake_book& book, lang language, int precision) {
    std::vector<std::string> out;
    if (v.correct) return out;
    words w{language};
    switch (e.kind) {
    case answer_kind::choice:
        out.push_back(fmt::format(fmt::runtime(w.pick("{} 不对。", "{} is not right.")), a.choice));
        if (auto it = e.why_not.find(a.choice); it != e.why_not.end()) out.push_back(it->second.in(language));
        break;
    case answer_kind::shape: explain_shape(out, w, v, a); break;
    case answer_kind::number:
        out.push_back(fmt::format(fmt::runtime(w.pick("{} {}（允许误差 ±{}）。", "{} is {} (tolerance ±{}).")), a.number,
                                  high_low(w, a.number, v.expected_number), e.tolerance));
        break;
    case answer_kind::matrix: explain_matrix(out, w, v, e, r, precision); break;
    }
    if (v.mistakes.size() == 1) {
        out.push_back(fmt::format(fmt::runtime(w.pick("这正是一个常见错误的结果：{}。", "This is what a common mistake gives: {}.")),
                                  book.at(v.mistakes[0]).in(language)));
    } else if (v.mistakes.size() > 1) {
        out.push_back(w.pick("这正是下面几个常见错误的结果（在这组数据上它们给出同样的数）：",
                             "This is what these common mistakes give (on this data they agree):"));
        for (const std::string& id : v.mistakes) out.push_back("  - " + book.at(id).in(language));
    }
    return out;
}

}  // namespace qkv
