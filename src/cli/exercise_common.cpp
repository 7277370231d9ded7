// The pieces the exercise commands share (exercise_common.hpp).
#include "exercise_common.hpp"

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/course.hpp"
#include "qkv/suggest.hpp"

namespace qkv::cli {

namespace po = boost::program_options;

void add_options(po::options_description& desc, output_choice& c, bool with_json, lang l) {
    add_help_option(desc, l);
    add_lang_option(desc, c.lang, l);
    add_color_option(desc, c.color, l, color_help_short);
    desc.add_options()
        ("precision", po::value(&c.precision)->default_value(4), tr(l, "decimals shown (0 to 9)").c_str())
        ("full", po::bool_switch(&c.full), tr(l, "show every row and column, never elide").c_str());
    if (with_json) add_format_option(desc, c.format, text_and_json, l);
}

output resolve(const output_choice& c, const console& io) { return resolve_output(c, io, text_and_json); }

const exercise& need_exercise(const exercise_set& set, const std::string& id, lang l) {
    if (const exercise* e = find_exercise(set, id)) return *e;
    std::vector<std::string> ids;
    for (const exercise& e : set.all) ids.push_back(e.id);
    std::string near = nearest(id, ids);
    std::string hint = near.empty() ? "" : fmt::format(fmt::runtime(tr(l, " (did you mean {}?)")), near);
    throw usage_error(fmt::format(fmt::runtime(tr(l, "no exercise '{}'{}; qkv exercises lists them")),
                                  id, hint));
}

void add_student_options(po::options_description& desc, std::string& data, std::string& student, lang l) {
    desc.add_options()("data", po::value(&data), tr(l, "compute on another scenario file").c_str())
        ("student", po::value(&student), tr(l, "your own numbers: the same questions on values drawn from your name "
                                               "(default: QKV_STUDENT, else the lessons' own)").c_str());
}

std::string student_name(const std::string& given) {
    if (!given.empty()) return given;
    const char* env = std::getenv("QKV_STUDENT");
    return env ? env : "";
}

progress open_progress(const console& io, const std::string& path) {
    std::string warning;
    progress p = load_progress(path, &warning);
    if (!warning.empty()) io.tell(fmt::format("qkv: warning: {}\n", escape_controls(warning)));
    return p;
}

namespace {

// Under mpirun every rank runs the command: `mpirun -np 2 qkv check 3.1 0.25` recorded two attempts
// for one check. One learner, one record: only rank 0 (or a process that is no rank) records.
// Open MPI says the rank in OMPI_COMM_WORLD_RANK; PMIx and the older PMI launchers in their own.
bool is_first_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
        if (const char* v = std::getenv(name); v && *v) return std::string_view(v) == "0";
    return true;
}

}  // namespace

progress change_progress(const console& io, const std::string& path, const std::function<void(progress&)>& change) {
    if (!is_first_rank()) {  // the other ranks print as rank 0 does, and neither read nor change the file
        progress p;
        change(p);
        return p;
    }
    std::string warning;
    progress p = update_progress(path, change, &warning);
    if (!warning.empty()) io.tell(fmt::format("qkv: warning: {}\n", escape_controls(warning)));
    return p;
}

void record_lessons_read(const console& io, const std::vector<trace>& traces) {
    if (!is_first_rank()) return;
    try {
        update_progress(progress_path(), [&](progress& p) { mark_read(p, traces); });
    } catch (const input_error& e) {
        io.tell(fmt::format("qkv: warning: the lesson was shown, but not recorded as read: {}\n", e.what()));
    }
}

}  // namespace qkv::cli
