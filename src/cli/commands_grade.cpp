// qkv grade: answer sheets graded, for one student or a class, against one assignment (--assignment,
// --lesson, else every lesson any sheet answers). The grading is content's (grading.hpp), the words
// the report's (report_grade.hpp); this parses, checks the arguments and hands one to the other.
#include <fmt/format.h>

#include "qkv/grading.hpp"
#include "qkv/report_grade.hpp"
#include "exercise_common.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

int cmd_grade(const args& a, const console& io) {
    output_choice choice;
    std::string form_name, assignment;
    std::vector<std::string> named;
    std::vector<int> lessons;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_help_option(desc, hl);
    add_lang_option(desc, choice.lang, hl);
    add_color_option(desc, choice.color, hl, color_help_short);
    const format_list writes{format::text, format::json, format::csv};
    add_format_option(desc, form_name, writes, hl, translatable("(a row per student, a column per question)"));
    desc.add_options()
        ("assignment", po::value(&assignment), tr(hl, "grade every sheet on these questions: exercises = [\"3.1\", …], lessons = [3, …]").c_str())
        ("lesson", po::value(&lessons), tr(hl, "grade every sheet on this lesson's exercises (again for more lessons)").c_str())
        ("sheet", po::value(&named), tr(hl, "answer sheets (\"ID\" = \"ANSWER\" lines, optionally student = \"NAME\"), or folders of them").c_str());
    if (!parse(io, "grade", a, desc, "sheet")) return 0;
    const format form = format_of(form_name, writes);
    const render_options o = resolve(choice, io).options;
    const lang l = o.language;
    std::vector<std::string> links;  // found in a folder: named in the report, never read
    const std::vector<std::string> files = sheet_files(named, &links);
    if (files.empty() && links.empty()) throw usage_error(tr(l, "which answer sheets? qkv grade SHEET.toml… (or a folder)"));
    const exercise_set set = load_exercises(exercises_dir());
    // A lesson with no exercises would grade every sheet 0/0 and call it a failed check: it is a
    // usage error, as it is for `qkv exercises --lesson N`.
    for (int n : lessons)
        if (!has_exercises(set, n))
            throw usage_error(fmt::format(fmt::runtime(tr(l, "lesson {} has no exercises; qkv exercises lists them all")), n));
    const graded_class graded = grade_class(files, assignment, lessons, set, l, links);
    io.print(grade_report(graded, form, o));
    return graded.all_right() ? 0 : 1;
}

}  // namespace qkv::cli
