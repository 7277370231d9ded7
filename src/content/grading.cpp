// Grading answer sheets (grading.hpp): reading the sheets and the assignment, judging each answer
// on the run of its student, and counting across the class.
#include "qkv/grading.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/judge.hpp"
#include "qkv/toml_file.hpp"

namespace qkv {

namespace fs = std::filesystem;

std::string_view result_name(grade_result r) {
    switch (r) {
    case grade_result::correct: return "correct";
    case grade_result::wrong: return "wrong";
    case grade_result::unreadable: return "unreadable";
    case grade_result::missing: return "missing";
    }
    return "";
}

std::size_t graded_sheet::right() const {
    return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const graded_answer& g) { return g.result == grade_result::correct; }));
}

bool graded_class::all_right() const {
    return std::all_of(sheets.begin(), sheets.end(), [](const graded_sheet& s) { return s.problems.empty() && s.right() == s.rows.size(); });
}

std::vector<std::string> sheet_files(const std::vector<std::string>& named, std::vector<std::string>* links) {
    std::vector<std::string> out;
    for (const std::string& n : named) {
        std::error_code ec;
        if (!fs::is_directory(n, ec)) {
            out.push_back(n);
            continue;
        }
        std::vector<std::string> in;
        for (const auto& e : fs::directory_iterator(n, ec)) {
            if (e.path().extension() != ".toml") continue;
            if (e.is_symlink(ec)) {
                if (links) links->push_back(e.path().string());
            } else if (e.is_regular_file(ec)) in.push_back(e.path().string());
        }
        std::sort(in.begin(), in.end());
        out.insert(out.end(), in.begin(), in.end());
    }
    return out;
}

std::string write_sheet(const std::string& student, const std::vector<std::pair<std::string, std::string>>& answers) {
    toml::table sheet;
    sheet.insert("student", student);
    std::ostringstream out;
    out << sheet << "\n";
    for (const auto& [id, given] : answers) {  // in the order given, as a student would write them
        toml::table one;
        one.insert(id, given);
        out << one << "\n";
    }
    return out.str();
}

bool has_exercises(const exercise_set& set, int n) {
    return std::any_of(set.all.begin(), set.all.end(), [&](const exercise& e) { return e.lesson == n; });
}

namespace {

// A sheet is a page of answers written by hand: 1 MiB is a thousand times a class's, and a sparse
// 3 GiB file dropped in the class folder is refused, naming it, while the others are graded.
constexpr std::uint64_t max_sheet_bytes = std::uint64_t{1} << 20;

// A problem of a sheet as one line: the place, then what is wrong, clipped and escaped as every
// error is (an id of 100 kB is its first 120 bytes and its length).
std::string sheet_problem(const source_loc& at, const std::string& message) { return input_error(at, message).what(); }

// The answers of a sheet; an id no exercise has is a problem of this sheet, not of the class.
graded_sheet read_sheet(const std::string& path, const exercise_set& set, lang l) {
    const std::string folder = fs::path(path).parent_path().string();
    graded_sheet s{path, fs::path(path).stem().string(), false, {}, {}, {}, folder.empty() ? "." : folder};
    toml::table doc;
    try {
        doc = parse_toml_file(path, tr(l, "answer sheet"), max_sheet_bytes);  // unreadable: the caller reports it
    } catch (const duplicate_key& twice) {  // in the teacher's words, not TOML's
        throw input_error(twice.where(), fmt::format(fmt::runtime(tr(l, "answer {} is given twice")), twice.key()));
    }
    for (auto&& [k, v] : doc) {
        source_loc at{path, static_cast<int>(v.source().begin.line), static_cast<int>(v.source().begin.column)};
        std::string id(k.str());
        if (id == "student" && v.is_string()) {
            s.student = *v.value<std::string>();
            s.own_numbers = true;
            continue;
        }
        if (!find_exercise(set, id)) {
            s.problems.push_back(sheet_problem(at, fmt::format(fmt::runtime(tr(l, "no exercise '{}' (qkv exercises lists them); not graded")), id)));
            continue;
        }
        if (auto text = v.value<std::string>(); text && v.is_string()) s.answers[id] = *text;
        else if (v.is_integer() || v.is_floating_point()) s.answers[id] = fmt::format("{}", *v.value<double>());
        else s.problems.push_back(sheet_problem(at, fmt::format(fmt::runtime(tr(l, "the answer to {} must be a string (or a number)")), id)));
    }
    return s;
}

// Every sheet read; a sheet that cannot be read is a problem of that sheet, unless it is the only one.
std::vector<graded_sheet> read_sheets(const std::vector<std::string>& files, const exercise_set& set, lang l) {
    std::vector<graded_sheet> sheets;
    for (const std::string& f : files) {
        graded_sheet s;
        try {
            s = read_sheet(f, set, l);
        } catch (const input_error& e) {
            if (files.size() == 1) throw;  // nothing at all to grade: the one-line error
            s = graded_sheet{f, fs::path(f).stem().string(), false, {}, {e.what()}, {}, {}};
        }
        if (files.size() == 1 && s.answers.empty()) {  // nothing to grade: one line says why
            if (!s.problems.empty()) throw input_error(s.problems.front());
            throw input_error(source_loc{f, 0, 0}, tr(l, "the answer sheet has no answers (\"ID\" = \"ANSWER\" lines)"));
        }
        sheets.push_back(std::move(s));
    }
    return sheets;
}

// What the class is graded on: the exercises of an assignment file and of the lessons given;
// without either, every exercise of the lessons any sheet answers.
std::vector<const exercise*> assignment_of(const std::string& file, const std::vector<int>& lessons_given,
                                           const std::vector<graded_sheet>& sheets, const exercise_set& set, lang l) {
    std::vector<int> lessons = lessons_given;
    std::vector<std::string> ids;
    if (!file.empty()) {
        toml::table doc = parse_toml_file(file, "assignment", max_sheet_bytes);  // a list of ids, as small as a sheet
        for (auto&& [k, v] : doc) {
            source_loc at{file, static_cast<int>(v.source().begin.line), static_cast<int>(v.source().begin.column)};
            const toml::array* list = v.as_array();
            if (!list || (k.str() != "exercises" && k.str() != "lessons"))
                throw input_error(at, tr(l, "an assignment holds exercises = [\"3.1\", …] and lessons = [3, …], nothing else"));
            for (auto&& item : *list) {
                if (k.str() == "lessons" && item.is_integer() && has_exercises(set, static_cast<int>(*item.value<std::int64_t>())))
                    lessons.push_back(static_cast<int>(*item.value<std::int64_t>()));
                else if (k.str() == "exercises" && item.is_string() && find_exercise(set, *item.value<std::string>())) ids.push_back(*item.value<std::string>());
                else throw input_error(at, fmt::format(fmt::runtime(tr(l, "{} holds an item that is neither an exercise id nor a lesson with exercises")), k.str()));
            }
        }
    }
    if (file.empty() && lessons_given.empty())
        for (const graded_sheet& s : sheets)
            for (auto& [id, text] : s.answers) lessons.push_back(find_exercise(set, id)->lesson);
    std::vector<const exercise*> out;
    for (const exercise& e : set.all)
        if (std::find(lessons.begin(), lessons.end(), e.lesson) != lessons.end() || std::find(ids.begin(), ids.end(), e.id) != ids.end())
            out.push_back(&e);
    return out;
}

// One answer judged on the run of the sheet's student (the lesson's own numbers when it names none).
graded_answer grade_one(const exercise& e, const graded_sheet& s, const mistake_book& book, lang l) {
    const std::string& given = s.answers.at(e.id);
    graded_answer g{e.id, e.lesson, e.kind, given, grade_result::missing, {}, {}};
    try {
        // a matrix answer that is no matrix names a CSV file: inside the sheet's own folder, never
        // through "..", an absolute name or a link (a sheet saying "6.1" = "/etc/shadow" had the
        // report quote that file's first line)
        bool file = e.kind == answer_kind::matrix && !given.empty() && given.front() != '[' && !s.folder.empty();
        answer ans = file ? read_answer_beside(e.kind, s.folder, given, l) : parse_answer(e.kind, given, l);
        exercise_run run = run_exercise(e, l, "", s.own_numbers ? s.student : "");
        verdict v = judge(e, ans, run);
        g.result = v.correct ? grade_result::correct : grade_result::wrong;
        g.mistakes = v.mistakes;
        g.message = explain(v, e, ans, run, book, l);
    } catch (const input_error& err) {
        g.result = grade_result::unreadable;
        g.message = {err.what()};
    }
    return g;
}

// Every sheet graded on the assignment; an answer to a question outside it is that sheet's problem.
void grade_sheets(std::vector<graded_sheet>& sheets, const std::vector<const exercise*>& assignment, const exercise_set& set, lang l) {
    for (graded_sheet& s : sheets) {
        for (auto& [id, text] : s.answers)
            if (std::none_of(assignment.begin(), assignment.end(), [&](const exercise* e) { return e->id == id; }))
                s.problems.push_back(input_error(fmt::format(fmt::runtime(tr(l, "{}: {} is not in the assignment; not graded")), s.path, id)).what());
        for (const exercise* e : assignment) {
            if (!s.answers.count(e->id)) s.rows.push_back({e->id, e->lesson, e->kind, "", grade_result::missing, {}, {}});
            else s.rows.push_back(grade_one(*e, s, set.book, l));
        }
    }
}

}  // namespace

std::vector<question_count> count_questions(const std::vector<graded_sheet>& sheets, const mistake_book& book, lang l) {
    std::vector<question_count> out;
    std::map<std::string, std::size_t> at;
    for (const graded_sheet& s : sheets)
        for (const graded_answer& g : s.rows) {
            if (!at.count(g.id)) at[g.id] = out.size(), out.push_back({g.id, g.kind, 0, 0, sheets.size(), {}});
            question_count& q = out[at[g.id]];
            q.answered += g.result != grade_result::missing;
            q.right += g.result == grade_result::correct;
            for (const std::string& m : g.mistakes) {
                auto it = std::find_if(q.mistakes.begin(), q.mistakes.end(), [&](const mistake_count& c) { return c.id == m; });
                if (it == q.mistakes.end()) q.mistakes.push_back({m, book.count(m) ? book.at(m).in(l) : "", 1});
                else ++it->sheets;
            }
        }
    for (question_count& q : out)
        std::stable_sort(q.mistakes.begin(), q.mistakes.end(), [](const mistake_count& a, const mistake_count& b) { return a.sheets > b.sheets; });
    return out;
}

graded_class grade_read_sheets(std::vector<graded_sheet> sheets, const std::vector<int>& lessons, const exercise_set& set, lang l) {
    graded_class c{l, std::move(sheets), {}};
    grade_sheets(c.sheets, assignment_of("", lessons, c.sheets, set, l), set, l);
    c.questions = count_questions(c.sheets, set.book, l);
    return c;
}

graded_class grade_class(const std::vector<std::string>& files, const std::string& assignment_file,
                         const std::vector<int>& lessons, const exercise_set& set, lang l,
                         const std::vector<std::string>& links) {
    graded_class c{l, read_sheets(files, set, l), {}};
    for (const std::string& f : links)
        c.sheets.push_back(graded_sheet{f, fs::path(f).stem().string(), false, {},
                                        {sheet_problem(source_loc{f, 0, 0}, tr(l, "a symbolic link in the class folder: not read"))}, {}, {}});
    grade_sheets(c.sheets, assignment_of(assignment_file, lessons, c.sheets, set, l), set, l);
    c.questions = count_questions(c.sheets, set.book, l);
    return c;
}

}  // namespace qkv
