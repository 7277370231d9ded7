// qkv grade: answer sheets graded, for one student or a class, against one assignment (--assignment,
// --lesson, else every lesson any sheet answers). The grading is content's (grading.hpp), the words
// the report's (report_grade.hpp); this parses, checks the arguments and hands one to the other.
#include <optional>

#include <fmt/format.h>

#include "qkv/grading.hpp"
#include "qkv/report_grade.hpp"
#include "exercise_common.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

namespace {

// --format of grade: text and json as for every command (parse_format), and csv.
grade_format grade_format_of(std::string_view name) {
    if (name == "csv") return grade_format::csv;
    const std::optional<format> form = parse_format(name);
    if (form == format::text) return grade_format::text;
    if (form == format::json) return grade_format::json;
    throw usage_error(fmt::format("--format must be text, json or csv, not '{}'", name));
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
    const std::vector<std::string> files = sheet_files(named);
    if (files.empty()) throw usage_error(pick(l, "哪些答题卡？qkv grade 答题卡.toml…（或一个文件夹）", "which answer sheets? qkv grade SHEET.toml… (or a folder)"));
    const exercise_set set = load_exercises(exercises_dir());
    // A lesson with no exercises would grade every sheet 0/0 and call it a failed check: it is a
    // usage error, as it is for `qkv exercises --lesson N`.
    for (int n : lessons)
        if (!has_exercises(set, n))
            throw usage_error(fmt::format(fmt::runtime(pick(l, "第 {} 课没有练习；qkv exercises 列出全部", "lesson {} has no exercises; qkv exercises lists them all")), n));
    const graded_class graded = grade_class(files, assignment, lessons, set, l);
    io.print(grade_report(graded, form, o));
    return graded.all_right() ? 0 : 1;
}

}  // namespace qkv::cli
