// qkv grade: answer sheets graded, for one student or a class, against one assignment (--assignment,
// --lesson, else every lesson any sheet answers): the same questions for every student, an
// unanswered one counted as such. An unknown id or an unreadable answer is reported for that sheet,
// the rest still count; for a class, each question's right answers out of the class and the
// mistakes most of the class made.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "qkv/answer.hpp"
#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/toml_file.hpp"
#include "qkv/render_json.hpp"
#include "exercise_common.hpp"
#include "exercise_words.hpp"

namespace qkv::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct graded {
    const exercise* e = nullptr;
    std::string given;   // as written on the sheet; empty: no answer
    std::string result;  // correct | wrong | unreadable | missing
    std::vector<std::string> mistakes;
    std::vector<std::string> message;
};

struct sheet {
    std::string path;
    std::string student;                     // `student = "…"`, else the file's name without .toml
    bool own_numbers = false;                // the sheet names its student: graded on their variant
    std::map<std::string, std::string> answers;  // id -> answer text
    std::vector<std::string> problems;       // "file:line:column: …": what could not be graded
    std::vector<graded> rows;
    std::size_t right() const {
        return static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const graded& g) { return g.result == "correct"; }));
    }
};

// The answers of a sheet; an id no exercise has is a problem of this sheet, not of the class.
sheet read_sheet(const std::string& path, const exercise_set& set, lang l) {
    sheet s{path, fs::path(path).stem().string(), false, {}, {}, {}};
    toml::table doc;
    try {
        doc = parse_toml_file(path, "answer sheet");  // unreadable: the caller reports it
    } catch (const duplicate_key& twice) {  // in the teacher's words, not TOML's
        throw input_error(twice.where(), fmt::format(fmt::runtime(pick(l, "答案 {} 写了两次", "answer {} is given twice")), twice.key()));
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
            s.problems.push_back(at.str() + ": " + fmt::format(fmt::runtime(pick(l, "没有练习 '{}'（qkv exercises 列出全部），这一项不计分",
                                                                              "no exercise '{}' (qkv exercises lists them); not graded")), id));
            continue;
        }
        if (auto text = v.value<std::string>(); text && v.is_string()) s.answers[id] = *text;
        else if (v.is_integer() || v.is_floating_point()) s.answers[id] = fmt::format("{}", *v.value<double>());
        else s.problems.push_back(at.str() + ": " + fmt::format(fmt::runtime(pick(l, "{} 的答案必须是字符串（或数）", "the answer to {} must be a string (or a number)")), id));
    }
    return s;
}

graded grade_one(const exercise& e, const sheet& s, const mistake_book& book, lang l) {
    const std::string& given = s.answers.at(e.id);
    graded g{&e, given, "", {}, {}};
    try {
        bool file = e.kind == answer_kind::matrix && !given.empty() && given.front() != '[';
        std::string dir = fs::path(s.path).parent_path().string();
        answer ans = file ? read_answer_file(e.kind, (fs::path(dir) / given).string(), l) : parse_answer(e.kind, given, l);
        exercise_run run = run_exercise(e, l, "", s.own_numbers ? s.student : "");
        verdict v = judge(e, ans, run);
        g.result = v.correct ? "correct" : "wrong";
        g.mistakes = v.mistakes;
        g.message = explain(v, e, ans, run, book, l);
    } catch (const input_error& err) {
        g.result = "unreadable";
        g.message = {err.what()};
    }
    return g;
}

std::string result_word(lang l, const std::string& r) {
    if (r == "correct") return pick(l, "正确", "correct");
    if (r == "wrong") return pick(l, "错误", "wrong");
    if (r == "unreadable") return pick(l, "无法读取", "unreadable");
    return pick(l, "未作答", "no answer");
}

// The sheets named: files, and the .toml files of a folder, in name order.
std::vector<std::string> sheet_files(const std::vector<std::string>& named) {
    std::vector<std::string> out;
    for (const std::string& n : named) {
        std::error_code ec;
        if (!fs::is_directory(n, ec)) {
            out.push_back(n);
            continue;
        }
        std::vector<std::string> in;
        for (const auto& e : fs::directory_iterator(n, ec))
            if (e.path().extension() == ".toml" && e.is_regular_file(ec)) in.push_back(e.path().string());
        std::sort(in.begin(), in.end());
        out.insert(out.end(), in.begin(), in.end());
    }
    return out;
}

// One question across the class: how many got it right, and the named mistakes, most made first.
struct question {
    const exercise* e = nullptr;
    std::size_t right = 0, asked = 0, students = 0;  // asked: the sheets that answer it; students: the class
    std::vector<std::pair<std::string, std::size_t>> mistakes;  // (id, sheets)
};

std::vector<question> questions_of(const std::vector<sheet>& sheets) {
    std::vector<question> out;
    std::map<std::string, std::size_t> at;
    for (const sheet& s : sheets)
        for (const graded& g : s.rows) {
            if (!at.count(g.e->id)) at[g.e->id] = out.size(), out.push_back({g.e, 0, 0, sheets.size(), {}});
            question& q = out[at[g.e->id]];
            q.asked += g.result != "missing";
            q.right += g.result == "correct";
            for (const std::string& m : g.mistakes) {
                auto it = std::find_if(q.mistakes.begin(), q.mistakes.end(), [&](auto& p) { return p.first == m; });
                if (it == q.mistakes.end()) q.mistakes.emplace_back(m, 1);
                else ++it->second;
            }
        }
    for (question& q : out)
        std::stable_sort(q.mistakes.begin(), q.mistakes.end(), [](auto& a, auto& b) { return a.second > b.second; });
    return out;
}

std::string sheet_text(const sheet& s, lang l) {
    std::string out = fmt::format("{}: {}{}\n", pick(l, "答题卡", "Answer sheet"), escape_controls(s.path),
                                  s.own_numbers ? fmt::format(" · {} {}", pick(l, "学生", "student"), escape_controls(s.student)) : "");
    for (const std::string& p : s.problems) out += "  ! " + escape_controls(p) + "\n";
    for (const graded& g : s.rows) {
        std::string given = g.given.empty() ? "—" : first_line(g.given, 18);
        out += fmt::format("  {:<5} {} {} {}\n", g.e->id, pad(kind_word(l, g.e->kind), 7), pad(given, 19), result_word(l, g.result));
        for (const std::string& m : g.message) out += "          " + escape_controls(m) + "\n";
    }
    return out + fmt::format("{}: {}/{}\n", pick(l, "总分", "Total"), s.right(), s.rows.size());
}

std::string class_text(const std::vector<sheet>& sheets, const std::vector<question>& qs, const mistake_book& book, const render_options& o) {
    lang l = o.language;
    std::string out = fmt::format(fmt::runtime(pick(l, "全班：{} 份答题卡\n\n", "Class: {} sheets\n\n")), sheets.size());
    std::size_t name_width = 8;
    for (const sheet& s : sheets) name_width = std::max(name_width, display_width(escape_controls(s.student)));
    for (const sheet& s : sheets) {
        out += fmt::format("  {} {} {}/{}\n", pad(escape_controls(s.student), name_width), bar(s.right(), s.rows.size(), o.color), s.right(), s.rows.size());
        for (const std::string& p : s.problems) out += "      ! " + escape_controls(p) + "\n";
    }
    out += fmt::format("\n{}\n", pick(l, "每道题：", "Each question:"));
    for (const question& q : qs) {
        out += fmt::format(fmt::runtime(pick(l, "  {:<5} {} {}/{} 答对（{} 人作答）\n", "  {:<5} {} {}/{} right ({} answered)\n")), q.e->id,
                           pad(kind_word(l, q.e->kind), 7), q.right, q.students, q.asked);
        for (const auto& [id, count] : q.mistakes)
            out += fmt::format("          {} / {}: {}\n", count, q.students, book.count(id) ? escape_controls(book.at(id).in(l)) : id);
    }
    return out;
}

ojson sheet_json(const sheet& s) {
    ojson arr = ojson::array();
    for (const graded& g : s.rows)
        arr.push_back({{"id", g.e->id}, {"lesson", g.e->lesson}, {"kind", kind_name(g.e->kind)}, {"answer", g.given},
                       {"result", g.result}, {"mistakes", g.mistakes}, {"message", g.message}});
    return {{"sheet", escape_controls(s.path)}, {"student", escape_controls(s.student)}, {"own_numbers", s.own_numbers}, {"exercises", arr},
            {"correct", s.right()}, {"total", s.rows.size()}, {"problems", s.problems}};
}

ojson class_json(const std::vector<sheet>& sheets, const std::vector<question>& qs, const mistake_book& book, lang l) {
    ojson out{{"lang", lang_code(l)}, {"sheets", ojson::array()}, {"questions", ojson::array()}};
    for (const sheet& s : sheets) out["sheets"].push_back(sheet_json(s));
    for (const question& q : qs) {
        ojson ms = ojson::array();
        for (const auto& [id, count] : q.mistakes)
            ms.push_back({{"id", id}, {"sheets", count}, {"explanation", book.count(id) ? book.at(id).in(l) : ""}});
        out["questions"].push_back({{"id", q.e->id}, {"right", q.right}, {"answered", q.asked}, {"students", q.students}, {"mistakes", ms}});
    }
    return out;
}

// A CSV field: escaped as every text qkv shows (a student's name with ESC, a file name not in
// UTF-8), then quoted when it holds a comma or a quote.
std::string csv_field(const std::string& raw) {
    const std::string s = escape_controls(raw);
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// A row per student, a column per question: 1 right, 0 wrong or unreadable, empty not answered.
std::string class_csv(const std::vector<sheet>& sheets, const std::vector<question>& qs) {
    std::string out = "student,sheet,correct,total";
    for (const question& q : qs) out += "," + q.e->id;
    out += "\n";
    for (const sheet& s : sheets) {
        out += fmt::format("{},{},{},{}", csv_field(s.student), csv_field(s.path), s.right(), s.rows.size());
        for (const question& q : qs) {
            auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](const graded& g) { return g.e == q.e; });
            out += ",";
            if (it != s.rows.end() && it->result != "missing") out += it->result == "correct" ? "1" : "0";
        }
        out += "\n";
    }
    return out;
}

// What grade writes: text or JSON, for one sheet or a class, or CSV, a row per student.
enum class grade_format { text, json, csv };

// --format of grade: text and json as for every command (parse_format), and csv.
grade_format grade_format_of(std::string_view name) {
    if (name == "csv") return grade_format::csv;
    const std::optional<format> form = parse_format(name);
    if (form == format::text) return grade_format::text;
    if (form == format::json) return grade_format::json;
    throw usage_error(fmt::format("--format must be text, json or csv, not '{}'", name));
}

// What the class is graded on: the exercises of an assignment file (exercises = ["3.1", …] and/or
// lessons = [3, …]) and of --lesson; without either, every exercise of the lessons any sheet answers.
std::vector<const exercise*> assignment_of(const std::string& file, const std::vector<int>& lessons_given,
                                           const std::vector<sheet>& sheets, const exercise_set& set, lang l) {
    // A lesson with no exercises would grade every sheet 0/0 and call it a failed check: it is a
    // usage error, as it is for `qkv exercises --lesson N`.
    auto has_exercises = [&](int n) { return std::any_of(set.all.begin(), set.all.end(), [&](const exercise& e) { return e.lesson == n; }); };
    for (int n : lessons_given)
        if (!has_exercises(n))
            throw usage_error(fmt::format(fmt::runtime(pick(l, "第 {} 课没有练习；qkv exercises 列出全部", "lesson {} has no exercises; qkv exercises lists them all")), n));
    std::vector<int> lessons = lessons_given;
    std::vector<std::string> ids;
    if (!file.empty()) {
        toml::table doc = parse_toml_file(file, "assignment");
        for (auto&& [k, v] : doc) {
            source_loc at{file, static_cast<int>(v.source().begin.line), static_cast<int>(v.source().begin.column)};
            const toml::array* list = v.as_array();
            if (!list || (k.str() != "exercises" && k.str() != "lessons"))
                throw input_error(at, pick(l, "作业文件只有 exercises = [\"3.1\", …] 和 lessons = [3, …] 两项",
                                           "an assignment holds exercises = [\"3.1\", …] and lessons = [3, …], nothing else"));
            for (auto&& item : *list) {
                if (k.str() == "lessons" && item.is_integer() && has_exercises(static_cast<int>(*item.value<std::int64_t>())))
                    lessons.push_back(static_cast<int>(*item.value<std::int64_t>()));
                else if (k.str() == "exercises" && item.is_string() && find_exercise(set, *item.value<std::string>())) ids.push_back(*item.value<std::string>());
                else throw input_error(at, fmt::format(fmt::runtime(pick(l, "{} 里有一项既不是练习编号，也不是有练习的课号", "{} holds an item that is neither an exercise id nor a lesson with exercises")), k.str()));
            }
        }
    }
    if (file.empty() && lessons_given.empty())
        for (const sheet& s : sheets)
            for (auto& [id, text] : s.answers) lessons.push_back(find_exercise(set, id)->lesson);
    std::vector<const exercise*> out;
    for (const exercise& e : set.all)
        if (std::find(lessons.begin(), lessons.end(), e.lesson) != lessons.end() || std::find(ids.begin(), ids.end(), e.id) != ids.end())
            out.push_back(&e);
    return out;
}

// Every sheet read; a sheet that cannot be read is a problem of that sheet, unless it is the only one.
std::vector<sheet> read_sheets(const std::vector<std::string>& files, const exercise_set& set, lang l) {
    std::vector<sheet> sheets;
    for (const std::string& f : files) {
        sheet s;
        try {
            s = read_sheet(f, set, l);
        } catch (const input_error& e) {
            if (files.size() == 1) throw;  // nothing at all to grade: the one-line error
            s = sheet{f, fs::path(f).stem().string(), false, {}, {e.what()}, {}};
        }
        if (files.size() == 1 && s.answers.empty()) {  // nothing to grade: one line says why
            if (!s.problems.empty()) throw input_error(s.problems.front());
            throw input_error(source_loc{f, 0, 0}, pick(l, "答题卡上没有答案（\"编号\" = \"答案\" 的行）",
                                                        "the answer sheet has no answers (\"ID\" = \"ANSWER\" lines)"));
        }
        sheets.push_back(std::move(s));
    }
    return sheets;
}

// Every sheet graded on the assignment; an answer to a question outside it is that sheet's problem.
void grade_sheets(std::vector<sheet>& sheets, const std::vector<const exercise*>& assignment, const exercise_set& set, lang l) {
    for (sheet& s : sheets) {
        for (auto& [id, text] : s.answers)
            if (std::none_of(assignment.begin(), assignment.end(), [&](const exercise* e) { return e->id == id; }))
                s.problems.push_back(fmt::format(fmt::runtime(pick(l, "{}：{} 不在这次作业里，不计分", "{}: {} is not in the assignment; not graded")), s.path, id));
        for (const exercise* e : assignment) {
            if (!s.answers.count(e->id)) s.rows.push_back({e, "", "missing", {}, {}});
            else s.rows.push_back(grade_one(*e, s, set.book, l));
        }
    }
}

}  // namespace

int cmd_grade(const args& a, const console& io) {
    output_choice choice;
    std::string form_name, assignment;
    std::vector<std::string> named;
    std::vector<int> lessons;
    po::options_description desc("Options");
    add_help_option(desc);
    add_lang_option(desc, choice.lang);
    add_color_option(desc, choice.color, color_help_short);
    add_format_option(desc, form_name, "text, json or csv (a row per student, a column per question)");
    desc.add_options()
        ("assignment", po::value(&assignment), "grade every sheet on these questions: exercises = [\"3.1\", …], lessons = [3, …]")
        ("lesson", po::value(&lessons), "grade every sheet on this lesson's exercises (again for more lessons)")
        ("sheet", po::value(&named), "answer sheets (\"ID\" = \"ANSWER\" lines, optionally student = \"NAME\"), or folders of them");
    if (!parse(io, "grade", a, desc, "sheet")) return 0;
    const grade_format form = grade_format_of(form_name);
    const render_options o = resolve(choice, io).options;
    const lang l = o.language;
    std::vector<std::string> files = sheet_files(named);
    if (files.empty()) throw usage_error(pick(l, "哪些答题卡？qkv grade 答题卡.toml…（或一个文件夹）", "which answer sheets? qkv grade SHEET.toml… (or a folder)"));
    exercise_set set = load_exercises(exercises_dir());
    std::vector<sheet> sheets = read_sheets(files, set, l);
    grade_sheets(sheets, assignment_of(assignment, lessons, sheets, set, l), set, l);
    std::vector<question> qs = questions_of(sheets);
    const bool one = sheets.size() == 1;
    switch (form) {
        case grade_format::csv: io.print(class_csv(sheets, qs)); break;
        case grade_format::json: io.print(render_json(one ? sheet_json(sheets.front()) : class_json(sheets, qs, set.book, l)) + "\n"); break;
        case grade_format::text: io.print(one ? sheet_text(sheets.front(), l) : class_text(sheets, qs, set.book, o)); break;
    }
    bool all_right = std::all_of(sheets.begin(), sheets.end(), [](const sheet& s) { return s.problems.empty() && s.right() == s.rows.size(); });
    return all_right ? 0 : 1;
}

}  // namespace qkv::cli
