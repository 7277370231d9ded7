// Exercise files and the mistake vocabulary, read with toml_reader: each problem at its
// file:line:column, thrown at the first (to run) or all listed (qkv validate).
#include "qkv/exercise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "qkv/error.hpp"
#include "qkv/lesson.hpp"
#include "qkv/toml_file.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

// An expression parsed where it stands in the file, so that its errors point at their column;
// null when it does not parse (and the problem was listed).
expr_ptr expression_of(const toml_reader& rd, const toml::node& n, const std::string& text) {
    expr_ptr out;
    rd.attempt([&] { out = parse_expression(text, rd.content_start(n)); });
    return out;
}

std::string known_mistakes(const mistake_book& book) {
    std::vector<std::string> known;
    for (auto& [name, d] : book) known.push_back(name);
    return fmt::format("{}", fmt::join(known, ", "));
}

// mistakes = { k_not_transposed = "(K @ Q^T)[2, 3]" }, or a list of expressions per mistake.
std::optional<mistake_rule> mistake_of(const toml_reader& rd, const std::string& id, const toml::node& v,
                                       const mistake_book& book, std::string_view where) {
    if (!book.count(id)) {
        rd.report(rd.at(v), fmt::format("{}: '{}' is not in mistakes.toml (known: {})", where, id, known_mistakes(book)));
        return std::nullopt;
    }
    mistake_rule m{id, {}, {}, rd.at(v), {}};
    std::vector<const toml::node*> items;
    if (const toml::array* a = v.as_array()) for (auto& x : *a) items.push_back(&x);
    else items.push_back(&v);
    if (items.empty()) rd.report(rd.at(v), fmt::format("{}: mistake '{}' has no expression", where, id));
    for (const toml::node* x : items) {
        auto source = rd.string(*x, fmt::format("{}: mistakes.{}", where, id));
        if (source && source->starts_with("shape(") && source->ends_with(")")) {  // a wrong shape written out
            try {
                m.shapes.push_back(parse_shape(source->substr(6, source->size() - 7)));
            } catch (const input_error& e) {
                rd.report(rd.at(*x), fmt::format("{}: mistakes.{}: {}", where, id, e.message()));
            }
            continue;
        }
        if (expr_ptr parsed = source ? expression_of(rd, *x, *source) : nullptr) {
            m.sources.push_back(*source);
            m.exprs.push_back(std::move(parsed));
        }
    }
    return m;
}

std::vector<mistake_rule> mistakes_of(const toml_reader& rd, const toml::node& n, const mistake_book& book, std::string_view where) {
    const toml::table* t = n.as_table();
    if (!t) rd.report(rd.at(n), fmt::format("{}: mistakes must be a table {{ no_scale = \"…\", … }}", where));
    std::vector<mistake_rule> out;
    if (t)
        for (auto&& [k, v] : *t)
            if (auto m = mistake_of(rd, std::string(k.str()), v, book, where)) out.push_back(std::move(*m));
    return out;
}

void read_why_not(const toml_reader& rd, const toml::node& w, exercise& e, const std::string& where) {
    const toml::table* wt = w.as_table();
    if (!wt) return rd.report(rd.at(w), fmt::format("{}: why_not must be a table {{ A = {{ zh, en }} }}", where));
    for (auto&& [k, v] : *wt) {
        char c = k.str().size() == 1 ? k.str()[0] : 0;
        if (c < 'A' || c >= static_cast<char>('A' + e.choices.size()) || c == e.answer)
            rd.report(rd.at(v), fmt::format("{}: why_not.{} is not one of the wrong choices", where, k.str()));
        else if (auto text = rd.text(v, fmt::format("{}: why_not.{}", where, c)))
            e.why_not[c] = *text;
    }
}

// A choice's own prose names no choice by its letter ("C. Generation moves…", "choice B"): with
// --student every student has their own order, and qkv prints the right letter for the one asking.
void refuse_letters(const toml_reader& rd, const exercise& e, const std::string& where) {
    static const std::regex letter(R"(^\s*[A-D]\s*[.。:：)）]|(choice|选项)\s*[A-D]\b)");
    auto check = [&](const bilingual& b, const std::string& what) {
        for (lang l : {lang::zh, lang::en})
            if (std::regex_search(b.in(l), letter))
                rd.report(b.at(l), fmt::format("{}: {} names a choice by its letter, which differs per student "
                                               "(--student shuffles the choices); qkv shows the right letter itself", where, what));
    };
    check(e.solution, "the solution");
    for (std::size_t i = 0; i < e.hints.size(); ++i) check(e.hints[i], fmt::format("hint {}", i + 1));
    for (auto& [c, text] : e.why_not) check(text, fmt::format("why_not.{}", c));
}

void read_choices(const toml_reader& rd, const toml::table& t, exercise& e, const std::string& where) {
    if (const toml::node* c = rd.need(t, "choices", where)) {
        const toml::array* a = c->as_array();
        if (!a || a->size() < 2 || a->size() > 4)
            rd.report(rd.at(*c), fmt::format("{}: choices must be a list of 2 to 4 {{ zh, en }} tables", where));
        else
            for (std::size_t i = 0; i < a->size(); ++i)  // a choice with a problem keeps its letter
                e.choices.push_back(rd.text((*a)[i], fmt::format("{}: choice {}", where, static_cast<char>('A' + i))).value_or(bilingual{}));
    }
    const toml::node* ans = rd.need(t, "answer", where);
    auto letter = ans ? rd.string(*ans, where + ": answer") : std::nullopt;
    if (letter && !e.choices.empty()) {
        try {
            e.answer = parse_choice(*letter, static_cast<int>(e.choices.size()));
        } catch (const input_error& err) {
            rd.report(rd.at(*ans), fmt::format("{}: answer {}", where, err.message()));
        }
    }
    if (const toml::node* w = t.get("why_not")) read_why_not(rd, *w, e, where);
    refuse_letters(rd, e, where);
}

void read_computed(const toml_reader& rd, const toml::table& t, exercise& e, const std::string& where, const mistake_book& book) {
    if (const toml::node* ex = rd.need(t, "expected", where)) {
        if (auto source = rd.string(*ex, where + ": expected")) {
            e.expected_source = *source;
            e.expected = expression_of(rd, *ex, *source);
        }
    }
    if (const toml::node* s = t.get("setup"))
        if (auto source = rd.string(*s, where + ": setup")) rd.attempt([&] { e.setup = parse_formula(*source, rd.content_start(*s)); });
    if (const toml::node* tol = t.get("tolerance")) {
        auto x = tol->value<double>();  // inf would take every answer as right
        if (!x || !(*x >= 0) || !std::isfinite(*x)) rd.report(rd.at(*tol), fmt::format("{}: tolerance must be a finite number ≥ 0", where));
        else e.tolerance = *x;
    }
    if (const toml::node* m = t.get("mistakes")) e.mistakes = mistakes_of(rd, *m, book, where);
    for (const mistake_rule& m : e.mistakes)
        if (!m.shapes.empty() && e.kind != answer_kind::shape)
            rd.report(m.where, fmt::format("{}: mistakes.{}: a written-out shape(…) fits only a shape exercise", where, m.id));
}

// id = "3.2" in the file of lesson 3; `where` becomes "exercise 3.2" once the id is good.
void read_id(const toml_reader& rd, const toml::table& t, exercise& e, std::string& where) {
    const toml::node* idn = rd.need(t, "id", where);
    auto id = idn ? rd.string(*idn, where + ": id") : std::nullopt;
    if (!id) return;
    e.id = *id;
    std::smatch m;
    static const std::regex id_form(R"(^(\d{1,4})\.(\d{1,4})$)");  // stoi below cannot overflow
    if (!std::regex_match(e.id, m, id_form) || std::stoi(m[1]) != e.lesson)
        return rd.report(rd.at(*idn), fmt::format("{}: id '{}' must be {}.K, this file being lesson {}", where, e.id, e.lesson, e.lesson));
    e.index = std::stoi(m[2]);
    where = fmt::format("exercise {}", e.id);
}

// question, solution, hints, scenario, shows: what every kind has.
void read_common(const toml_reader& rd, const toml::table& t, exercise& e, const std::string& where) {
    auto text = [&](std::string_view key) {
        const toml::node* n = rd.need(t, key, where);
        return (n ? rd.text(*n, fmt::format("{}: {}", where, key)) : std::nullopt).value_or(bilingual{});
    };
    e.question = text("question");
    e.solution = text("solution");
    if (const toml::node* h = rd.need(t, "hints", where)) {
        const toml::array* hints = h->as_array();
        if (!hints || hints->empty()) rd.report(e.where, fmt::format("{}: hints must be a non-empty list of {{ zh, en }} tables", where));
        else
            for (std::size_t i = 0; i < hints->size(); ++i)
                if (auto hint = rd.text((*hints)[i], fmt::format("{}: hint {}", where, i + 1))) e.hints.push_back(*hint);
    }
    if (const toml::node* s = t.get("scenario")) e.scenario = rd.string(*s, where + ": scenario").value_or("");
    if (const toml::node* s = t.get("shows")) {
        const toml::array* a = s->as_array();
        if (!a) rd.report(rd.at(*s), fmt::format("{}: shows must be a list of names", where));
        else
            for (auto& n : *a)
                if (auto name = rd.string(n, where + ": shows")) e.shows.push_back(*name), e.shows_at.push_back(rd.at(n));
    }
}

exercise exercise_of(const toml_reader& rd, const toml::table& t, int lesson, std::size_t index, const mistake_book& book) {
    std::string where = fmt::format("exercise {}", index);
    rd.only_keys(t, {"id", "kind", "question", "hints", "solution", "scenario", "min_tokens", "setup", "expected",
                     "tolerance", "shows", "mistakes", "choices", "answer", "why_not"}, where);
    exercise e;
    e.where = rd.at(t);
    e.lesson = lesson;
    read_id(rd, t, e, where);
    const toml::node* kn = rd.need(t, "kind", where);
    auto kind_text = kn ? rd.string(*kn, where + ": kind") : std::nullopt;
    auto kind = kind_text ? parse_kind(*kind_text) : std::nullopt;
    if (kind_text && !kind) rd.report(rd.at(*kn), fmt::format("{}: kind must be choice, shape, number or matrix", where));
    read_common(rd, t, e, where);
    if (const toml::node* least = t.get("min_tokens")) {
        if (!least->is_integer() || least->as_integer()->get() < 1 || least->as_integer()->get() > 64)
            rd.report(rd.at(*least), fmt::format("{}: min_tokens must be an integer from 1 to 64", where));
        else
            e.min_tokens = static_cast<std::size_t>(least->as_integer()->get());
    }
    if (!kind) return e;  // nothing more can be checked
    e.kind = *kind;
    bool choice = e.kind == answer_kind::choice;
    for (std::string_view key : {"expected", "setup", "tolerance", "mistakes"})
        if (choice && t.contains(key)) rd.report(rd.at(*t.get(key)), fmt::format("{}: a choice has no '{}'", where, key));
    for (std::string_view key : {"choices", "answer", "why_not"})
        if (!choice && t.contains(key)) rd.report(rd.at(*t.get(key)), fmt::format("{}: only a choice has '{}'", where, key));
    if (choice) read_choices(rd, t, e, where);
    else read_computed(rd, t, e, where, book);
    return e;
}

// lesson = 3: the number every id of the file starts with; nothing when it is not one.
std::optional<int> lesson_of(const toml_reader& rd, const toml::table& doc) {
    const toml::node* ln = rd.need(doc, "lesson", "exercise file");
    if (!ln) return std::nullopt;
    if (!ln->is_integer() || ln->as_integer()->get() < 0) {  // lesson 0 has exercises too
        rd.report(rd.at(*ln), "exercise file: lesson must be a lesson number");
        return std::nullopt;
    }
    return static_cast<int>(ln->as_integer()->get());
}

}  // namespace

std::string exercises_dir() {
    const char* v = std::getenv("QKV_EXERCISES");
    return v && *v ? std::string(v) : (fs::path(lessons_dir()) / "exercises").string();
}

mistake_book read_mistakes(const toml_document& doc, std::vector<problem>* problems) {
    toml_reader rd(doc, problems);
    mistake_book book;
    for (auto&& [k, v] : doc.table)
        if (auto text = rd.text(v, fmt::format("mistake '{}'", k.str()))) book[std::string(k.str())] = *text;
    if (doc.table.empty()) rd.report(source_loc{doc.file, 0, 0}, "no mistakes defined");
    return book;
}

std::vector<exercise> read_exercises(const toml_document& doc, const mistake_book& book, std::vector<problem>* problems) {
    toml_reader rd(doc, problems);
    rd.only_keys(doc.table, {"lesson", "exercise"}, "exercise file");
    auto lesson = lesson_of(rd, doc.table);
    if (!lesson) return {};
    const toml::node* listn = rd.need(doc.table, "exercise", "exercise file");
    const toml::array* list = listn ? listn->as_array() : nullptr;
    if (listn && (!list || list->empty())) rd.report(source_loc{doc.file, 1, 1}, "exercise file: no [[exercise]] tables");
    std::vector<exercise> out;
    std::set<std::string> ids;  // across files, load_exercises checks them; within one, here
    for (std::size_t i = 0; list && i < list->size(); ++i) {
        const toml::table* t = (*list)[i].as_table();
        if (!t) {
            rd.report(rd.at((*list)[i]), "exercise file: 'exercise' must be an array of tables ([[exercise]])");
            continue;
        }
        std::size_t before = rd.problem_count();
        exercise e = exercise_of(rd, *t, *lesson, i + 1, book);
        if (!e.id.empty() && !ids.insert(e.id).second) rd.report(rd.at(*t->get("id")), fmt::format("exercise id '{}' is used twice", e.id));
        if (rd.problem_count() == before) out.push_back(std::move(e));
    }
    return out;
}

mistake_book parse_mistakes(std::string_view text, const std::string& origin) { return read_mistakes(read_toml_text(text, origin)); }

std::vector<exercise> parse_exercises(std::string_view text, const std::string& origin, const mistake_book& book) {
    return read_exercises(read_toml_text(text, origin), book);
}

exercise_set load_exercises(const std::string& dir) {
    exercise_set set;
    std::string book_path = (fs::path(dir) / "mistakes.toml").string();
    set.book = read_mistakes(read_toml_file(book_path, translatable("mistake book")));
    std::set<std::string> ids;
    for (auto& [n, path] : numbered_files(dir, R"(^(\d{1,4})\.toml$)")) {
        for (exercise& e : read_exercises(read_toml_file(path, translatable("exercise file")), set.book)) {
            if (e.lesson != n) throw input_error(e.where, said("this file is for lesson {}, not {}", n, e.lesson));
            if (!ids.insert(e.id).second) throw input_error(e.where, said("exercise id '{}' is used twice", e.id));
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

}  // namespace qkv
