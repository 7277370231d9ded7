// qkv check: one answer read and judged against the exercise computed on its scenario (the
// verdict, check_verdict.hpp), recorded in the learner's progress once its report is written.
#include <cctype>

#include <fmt/format.h>

#include "qkv/answer.hpp"
#include "qkv/check_verdict.hpp"
#include "qkv/exercise_words.hpp"
#include "qkv/report_check.hpp"
#include "exercise_common.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

namespace {

// The answer as typed: words after the id joined by spaces ("100 100"); a negative number such as
// -0.5 is taken as an answer, not as an option.
std::pair<args, std::string> split_answer(const args& a) {
    args options;
    std::vector<std::string> words;
    bool after_dashes = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string& s = a[i];
        bool negative_number = s.size() > 1 && s[0] == '-' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
        if (after_dashes || negative_number) words.push_back(s);
        else if (s == "--") after_dashes = true;
        else options.push_back(s);
    }
    std::string joined;
    for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
    return {options, joined};
}

answer read_answer(const exercise& e, const std::string& text, const std::string& file, lang l) {
    try {
        return file.empty() ? parse_answer(e.kind, text, l) : read_answer_file(e.kind, file, l);
    } catch (const input_error& err) {
        throw usage_error(fmt::format("{} ({} {} {}: {})", err.in(l), tr(l, "exercise"), e.id,
                                      tr(l, "wants"), answer_form(l, e.kind)));
    }
}

}  // namespace

int cmd_check(const args& all, const console& io) {
    auto [a, typed] = split_answer(all);
    output_choice choice;
    std::string id, file, data, student;
    std::vector<std::string> words;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_options(desc, choice, true, hl);
    add_student_options(desc, data, student, hl);
    desc.add_options()("id", po::value(&id), tr(hl, "the exercise, e.g. 3.2").c_str())
        ("answer", po::value(&words), tr(hl, "the answer (several words are joined: 100 100)").c_str())
        ("file", po::value(&file), tr(hl, "read the answer from a file (CSV for a matrix)").c_str());
    po::positional_options_description pos;
    pos.add("id", 1).add("answer", -1);
    po::variables_map vm;
    if (!parse(io, "check", a, desc, pos, vm)) return 0;
    for (const std::string& w : words) typed += (typed.empty() ? "" : " ") + w;
    const auto [o, form] = resolve(choice, io);
    const lang l = o.language;
    if (id.empty()) throw usage_error(tr(l, "which exercise? qkv check ID ANSWER, e.g. qkv check 3.2 1.57"));
    if (typed.empty() == file.empty())
        throw usage_error(file.empty() ? tr(l, "give the answer after the id, or --file FILE")
                                       : tr(l, "give the answer or --file, not both"));
    exercise_set set = load_exercises(exercises_dir());
    const exercise& e = need_exercise(set, id, l);
    const answer ans = read_answer(e, typed, file, l);  // an unreadable answer stops here: progress untouched
    const exercise_run run = run_exercise(e, l, data, student_name(student));
    check_verdict v;
    try {
        v = check_answer(e, ans, file.empty() ? typed : file, run, set.book, o.precision);
    } catch (const input_error& err) {  // an answer that cannot be compared: the learner's to fix
        throw usage_error(err.in(o.language));
    }
    const std::string out = form == format::json ? verdict_json(v) : verdict_text(v, o);
    // recorded once the verdict is on screen (a check whose output could not be written is not),
    // under the lock, so an unusable progress file stops it before anything is printed
    change_progress(io, progress_path(), [&](progress& p) {
        io.print(out);
        p.record(e.id, v.correct);
    });
    return v.correct ? 0 : 1;
}

}  // namespace qkv::cli
