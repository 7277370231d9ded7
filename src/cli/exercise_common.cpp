// The pieces the exercise commands share (exercise_common.hpp).
#include "exercise_common.hpp"

#include <algorithm>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/wrap.hpp"
#include "qkv/lesson.hpp"
#include "qkv/number_text.hpp"
#include "qkv/render_text.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/suggest.hpp"
#include "qkv/utf8.hpp"
#include "qkv/wrap.hpp"

namespace qkv::cli {

namespace po = boost::program_options;


void add_options(po::options_description& desc, output_choice& c, bool with_json) {
    add_help_option(desc);
    add_lang_option(desc, c.lang);
    add_color_option(desc, c.color, color_help_short);
    desc.add_options()
        ("precision", po::value(&c.precision)->default_value(4), "decimals shown (0 to 9)")
        ("full", po::bool_switch(&c.full), "show every row and column, never elide");
    if (with_json) add_format_option(desc, c.format, "text or json");
}

output resolve(const output_choice& c, const console& io) { return resolve_output(c, io, formats::text_or_json); }

const exercise& need_exercise(const exercise_set& set, const std::string& id, lang l) {
    if (const exercise* e = find_exercise(set, id)) return *e;
    std::vector<std::string> ids;
    for (const exercise& e : set.all) ids.push_back(e.id);
    std::string near = nearest(id, ids);
    std::string hint = near.empty() ? "" : fmt::format(fmt::runtime(pick(l, "（是不是 {}？）", " (did you mean {}?)")), near);
    throw usage_error(fmt::format(fmt::runtime(pick(l, "没有练习 '{}'{}；qkv exercises 列出全部", "no exercise '{}'{}; qkv exercises lists them")),
                                  id, hint));
}

void add_student_options(po::options_description& desc, std::string& data, std::string& student) {
    desc.add_options()("data", po::value(&data), "compute on another scenario file")
        ("student", po::value(&student), "your own numbers: the same questions on values drawn from your name "
                                         "(default: QKV_STUDENT, else the lessons' own)");
}

std::string student_name(const std::string& given) {
    if (!given.empty()) return given;
    const char* env = std::getenv("QKV_STUDENT");
    return env ? env : "";
}

// "S[2, 3] = 1.5669", or the expected matrix drawn as the lessons draw it.
std::string expected_text(const exercise& e, const exercise_run& r, const render_options& o) {
    switch (e.kind) {
    case answer_kind::choice: {  // the right choice under the letter this student was shown, and for whom
        const char shown = r.shown_letter(e.answer);
        const std::size_t file = static_cast<std::size_t>(e.answer - 'A');
        std::string out = hanging(fmt::format("{}. {}", shown, exercise_words(e.choices.at(file), e, r, o.language)), o, "", "   ");
        if (!r.student.empty())
            out += prose(fmt::format(fmt::runtime(pick(o.language, "（{0} 是 {1} 的选项顺序里的字母：每个学生的顺序不同；不带 --student、按练习文件的顺序是 {2}）",
                                                       "({0} is the letter in {1}'s order of the choices, each student's own; "
                                                       "without --student, in the exercise file's order, it is {2})")),
                                 shown, r.student, e.answer),
                         o);
        return out;
    }
    case answer_kind::shape: return fmt::format("{} = {}\n", e.expected_source, r.expected.shape_str());
    case answer_kind::number:
        return fmt::format("{} = {}\n", e.expected_source, number_text(r.expected.number, number_style::fixed, o.precision));
    case answer_kind::matrix: {
        workspace ws{{e.expected_source, r.expected}};
        return values_text({e.expected_source}, ws, o, &r.run.t);
    }
    }
    return "";
}



std::string prose(const std::string& text, const render_options& o) {
    std::string out;
    for (const std::string& line : reflow(escape_controls(text, true), std::max<std::size_t>(o.width, 20))) out += line + "\n";
    return out;
}

std::string hanging(const std::string& text, const render_options& o, std::string_view lead, std::string_view indent) {
    std::string out;
    for (const std::string& line : wrap_paragraph(escape_controls(text), std::max<std::size_t>(o.width, lead.size() + 20) - lead.size(), indent))
        out += std::string(lead) + line + "\n";
    return out;
}

progress open_progress(const console& io, const std::string& path) {
    std::string warning;
    progress p = load_progress(path, &warning);
    if (!warning.empty()) io.tell(fmt::format("qkv: warning: {}\n", escape_controls(warning)));
    return p;
}

progress change_progress(const console& io, const std::string& path, const std::function<void(progress&)>& change) {
    std::string warning;
    progress p = update_progress(path, change, &warning);
    if (!warning.empty()) io.tell(fmt::format("qkv: warning: {}\n", escape_controls(warning)));
    return p;
}

std::map<int, std::string> lesson_titles(lang l) {
    std::map<int, std::string> out;
    for (auto& [n, path] : lesson_files(lessons_dir())) out[n] = load_lesson(path).title.in(l);
    return out;
}

std::string bar(std::size_t done, std::size_t total, bool color) {
    const std::size_t width = 10;
    std::size_t full = total ? (done * width + total / 2) / total : 0;
    std::string filled, empty;
    for (std::size_t i = 0; i < width; ++i) (i < full ? filled : empty) += i < full ? "█" : "░";
    return styled(filled, fmt::fg(fmt::terminal_color::green), color) + styled(empty, fmt::emphasis::faint, color);
}

std::string first_line(const std::string& text, std::size_t columns) {
    return elide(escape_controls(text.substr(0, text.find('\n'))), columns);
}

std::string values_text(const std::vector<std::string>& names, const workspace& ws, const render_options& o,
                        const trace* lesson) {
    return render_values_text(shown_values(names, ws, lesson), o);
}

namespace {

// "A[3]" -> "A": the value a row is read from; anything else (a name, "S[2, 3]") -> "".
std::string row_source(const std::string& name) {
    static const std::regex row(R"(^([A-Za-z_][A-Za-z0-9_]*)\[[^,\[\]]+\]$)");
    std::smatch m;
    return std::regex_match(name, m, row) ? m[1].str() : std::string();
}

}  // namespace

std::vector<shown_value> shown_values(const std::vector<std::string>& names, const workspace& ws, const trace* lesson) {
    std::vector<shown_value> values;
    for (const std::string& name : names) {
        auto it = ws.find(name);
        if (it == ws.end()) throw input_error(fmt::format("the exercise shows '{}', which the lesson does not compute", name));
        value v = it->second;
        // a row read from a value ("A[3]") keeps that value's axes: the row of A is a query's weights
        const std::string of = row_source(name);
        if (lesson)  // what the lesson calls its rows and columns (S: queries · keys), not only "tokens"
            for (const stage_trace& s : lesson->stages)
                for (const shown_value& sv : s.values)
                    if (sv.name == name || sv.name == of)
                        v.rows.axis = sv.v.rows.axis, v.cols.axis = sv.v.cols.axis, v.stack_axis = sv.v.stack_axis;
        values.push_back({name, role::input, v, row_sums_of(v)});
    }
    return values;
}


}  // namespace qkv::cli
