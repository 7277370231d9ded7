// Graded sheets in words, JSON and CSV (report_grade.hpp).
#include "qkv/report_grade.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/exercise_words.hpp"
#include "qkv/render_json.hpp"
#include "exercise_text.hpp"

namespace qkv {

using ojson = nlohmann::ordered_json;

std::string sheet_text(const graded_sheet& s, lang l) {
    std::string out = fmt::format("{}: {}{}\n", tr(l, "Answer sheet"), escape_controls(s.path),
                                  s.own_numbers ? fmt::format(" · {} {}", tr(l, "student"), escape_controls(s.student)) : "");
    for (const std::string& p : s.problems) out += "  ! " + escape_controls(p) + "\n";
    for (const graded_answer& g : s.rows) {
        std::string given = g.given.empty() ? "—" : detail::first_line(g.given, 18);
        out += fmt::format("  {:<5} {} {} {}\n", g.id, pad(kind_word(l, g.kind), 7), pad(given, 19), result_word(l, g.result));
        for (const std::string& m : g.message) out += "          " + escape_controls(m) + "\n";
    }
    return out + fmt::format("{}: {}/{}\n", tr(l, "Total"), s.right(), s.rows.size());
}

std::string class_text(const graded_class& c, const render_options& o) {
    const lang l = o.language;
    std::string out = fmt::format(fmt::runtime(tr(l, "Class: {} sheets\n\n")), c.sheets.size());
    std::size_t name_width = 8;
    for (const graded_sheet& s : c.sheets) name_width = std::max(name_width, display_width(escape_controls(s.student)));
    for (const graded_sheet& s : c.sheets) {
        out += fmt::format("  {} {} {}/{}\n", pad(escape_controls(s.student), name_width), detail::bar(s.right(), s.rows.size(), o.color),
                           s.right(), s.rows.size());
        for (const std::string& p : s.problems) out += "      ! " + escape_controls(p) + "\n";
    }
    out += fmt::format("\n{}\n", tr(l, "Each question:"));
    for (const question_count& q : c.questions) {
        out += fmt::format(fmt::runtime(tr(l, "  {:<5} {} {}/{} right ({} answered)\n")), q.id,
                           pad(kind_word(l, q.kind), 7), q.right, q.students, q.answered);
        for (const mistake_count& m : q.mistakes)  // a mistake the book lacks is named by its id
            out += fmt::format("          {} / {}: {}\n", m.sheets, q.students, m.text.empty() ? m.id : escape_controls(m.text));
    }
    return out;
}

namespace {

ojson sheet_object(const graded_sheet& s) {
    ojson arr = ojson::array();
    for (const graded_answer& g : s.rows)
        arr.push_back({{"id", g.id}, {"lesson", g.lesson}, {"kind", kind_name(g.kind)}, {"answer", g.given},
                       {"result", result_name(g.result)}, {"mistakes", g.mistakes}, {"message", g.message}});
    return {{"sheet", escape_controls(s.path)}, {"student", escape_controls(s.student)}, {"own_numbers", s.own_numbers}, {"exercises", arr},
            {"correct", s.right()}, {"total", s.rows.size()}, {"problems", s.problems}};
}

// A CSV field: escaped as every text qkv shows (a student's name with ESC, a file name not in
// UTF-8), then quoted when it holds a comma or a quote. A field that starts with =, +, - or @ (or a
// tab or a carriage return) is a formula to a spreadsheet program: a student named
// =HYPERLINK("http://…") would be a link in the teacher's sheet, and +cmd|… worse. It is written
// as text, quoted and behind a ', as the spreadsheet programs' own advice (and OWASP's) has it.
std::string csv_field(const std::string& raw) {
    std::string s = escape_controls(raw);
    const bool formula = !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos;
    if (formula) s.insert(0, 1, '\'');
    else if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

std::string sheet_json(const graded_sheet& s) { return render_json(sheet_object(s)) + "\n"; }

std::string class_json(const graded_class& c) {
    ojson out{{"lang", lang_code(c.language)}, {"sheets", ojson::array()}, {"questions", ojson::array()}};
    for (const graded_sheet& s : c.sheets) out["sheets"].push_back(sheet_object(s));
    for (const question_count& q : c.questions) {
        ojson ms = ojson::array();
        for (const mistake_count& m : q.mistakes) ms.push_back({{"id", m.id}, {"sheets", m.sheets}, {"explanation", m.text}});
        out["questions"].push_back({{"id", q.id}, {"right", q.right}, {"answered", q.answered}, {"students", q.students}, {"mistakes", ms}});
    }
    return render_json(out) + "\n";
}

std::string class_csv(const graded_class& c) {
    std::string out = "student,sheet,correct,total";
    for (const question_count& q : c.questions) out += "," + csv_field(q.id);
    out += "\n";
    for (const graded_sheet& s : c.sheets) {
        out += fmt::format("{},{},{},{}", csv_field(s.student), csv_field(s.path), s.right(), s.rows.size());
        for (const question_count& q : c.questions) {
            auto it = std::find_if(s.rows.begin(), s.rows.end(), [&](const graded_answer& g) { return g.id == q.id; });
            out += ",";
            if (it != s.rows.end() && it->result != grade_result::missing) out += it->result == grade_result::correct ? "1" : "0";
        }
        out += "\n";
    }
    return out;
}

std::string grade_report(const graded_class& c, format form, const render_options& o) {
    const bool one = c.sheets.size() == 1;
    if (form == format::csv) return class_csv(c);
    if (form == format::json) return one ? sheet_json(c.sheets.front()) : class_json(c);
    return one ? sheet_text(c.sheets.front(), o.language) : class_text(c, o);
}

}  // namespace qkv
