// A class (class_room.hpp): requests read, judged by content's exercise code, kept by class_store,
// and answered with report's JSON, the same JSON `qkv exercise`, `check`, `hint` and `solution` print.
#include "class_room.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "qkv/answer.hpp"
#include "qkv/check_verdict.hpp"
#include "qkv/error.hpp"
#include "qkv/exercise_view.hpp"
#include "qkv/file_write.hpp"
#include "qkv/judge.hpp"
#include "qkv/lesson.hpp"
#include "qkv/progress.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/render_json.hpp"
#include "qkv/report_check.hpp"
#include "qkv/report_exercise.hpp"
#include "qkv/report_grade.hpp"
#include "qkv/utf8.hpp"
#include "http_error.hpp"
#include "lesson_requests.hpp"
#include "secret.hpp"

namespace qkv::serve {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string compact(const json& j) { return render_json(j, -1) + "\n"; }

// A string field of a request's body, or 400.
std::string text_field(const nlohmann::json& body, const char* key, std::size_t max_bytes) {
    if (!body.is_object() || !body.contains(key) || !body[key].is_string())
        refuse(400, said("the request's JSON body needs \"{}\" as a string", key));
    std::string v = body[key].get<std::string>();
    if (v.size() > max_bytes) refuse(413, said("\"{}\" is longer than {} bytes", key, max_bytes));
    if (!utf8::valid(v)) refuse(400, said("\"{}\" is not UTF-8", key));
    return v;
}

long long number_field(const nlohmann::json& body, const char* key, long long lo, long long hi) {
    if (!body.is_object() || !body.contains(key) || !body[key].is_number_integer())
        refuse(400, said("the request's JSON body needs \"{}\" as a whole number", key));
    const long long v = body[key].get<long long>();
    if (v < lo || v > hi) refuse(400, said("\"{}\" must be {} to {}", key, lo, hi));
    return v;
}

// A name as the teacher's page and the sheets show it: its blanks trimmed, 1 to 40 characters, no
// control character (a line end would break the class's CSV row and the teacher's list).
std::string student_name_of(const std::string& given) {
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    std::size_t b = 0, e = given.size();
    while (b < e && blank(given[b])) ++b;
    while (e > b && blank(given[e - 1])) --e;
    std::string name = given.substr(b, e - b);
    if (name.empty()) refuse(400, said("a name, please: the teacher sees it beside your answers"));
    if (utf8::count(name) > 40) refuse(400, said("a name of at most 40 characters, please"));
    for (std::size_t i = 0; i < name.size(); i = utf8::next(name, i)) {
        const char32_t c = utf8::decode(name, i).code;
        if (c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x2028 || c == 0x2029) refuse(400, said("a name without control characters, please"));
    }
    return name;
}

long long this_minute() {
    return std::chrono::duration_cast<std::chrono::minutes>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A matrix answer as a sheet writes it, so that `qkv grade` reads it as the class did: numpy's
// "array([[…]])" and CSV text become "[[…], […]]" (a sheet takes anything else for a file's name).
std::string sheet_form(const exercise& e, const std::string& given) {
    if (e.kind != answer_kind::matrix || (!given.empty() && given.front() == '[')) return given;
    try {
        const matrix m = parse_matrix(given);
        std::string out = "[";
        for (std::size_t i = 0; i < m.rows; ++i) {
            out += i ? ", [" : "[";
            for (std::size_t j = 0; j < m.cols; ++j) out += fmt::format("{}{}", j ? ", " : "", m(i, j));
            out += "]";
        }
        return out + "]";
    } catch (const input_error&) {
        return given;  // unreadable in the class, unreadable on the sheet
    }
}

}  // namespace

void check_class_name(const std::string& name) {
    const bool ok = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
    if (!ok) throw input_error(said("a class's name is 1 to 64 letters, digits, '-' or '_' (it names its file): not '{}'", name));
}

std::string class_database(const std::string& name) {
    check_class_name(name);
    return (fs::path(progress_path()).parent_path() / "classes" / (name + ".sqlite")).string();
}

class_room::class_room(class_options o, lang l)
    : o_(std::move(o)), language_(l), set_(load_exercises(exercises_dir())), store_(o_.database) {
    resumed_ = store_.setting("code").has_value();
    const std::vector<std::pair<int, std::string>> lessons = lesson_files(lessons_dir());
    if (lessons.empty()) throw input_error(said("no lessons in {}", lessons_dir()));
    store_.settle({{"name", o_.name}, {"code", random_code(6)}, {"teacher", random_hex(16)}, {"lang", std::string(lang_code(l))},
                   {"lesson", std::to_string(lessons.front().first)}, {"stage", "1"}});
    code_ = *store_.setting("code");
    teacher_ = *store_.setting("teacher");
    store_.open_lesson(std::stoi(*store_.setting("lesson")));
    students_ = store_.students();
}

std::size_t class_room::student_count() {
    const std::lock_guard<std::mutex> hold(m_);
    return students_.size();
}

long long class_room::answer_count() { return store_.answer_count(); }

std::optional<class_student> class_room::student_of(std::string_view token) {
    const std::lock_guard<std::mutex> hold(m_);
    std::optional<class_student> found;
    for (const class_student& s : students_)  // every one compared: the time says nothing of which
        if (same_secret(s.token, token)) found = s;
    return found;
}

bool class_room::is_teacher(std::string_view token) const { return same_secret(teacher_, token); }

std::string class_room::join(const nlohmann::json& body) {
    const std::string code = text_field(body, "code", 64), given = text_field(body, "name", 1024);
    std::string typed;
    for (char c : typed_ascii(code))
        if (c != ' ' && c != '-') typed += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    if (!same_secret(code_, typed)) refuse(403, said("that is not this class's code: the teacher's screen shows it"));
    const std::string name = student_name_of(given);
    class_student s;
    try {
        s = store_.add_student(name, random_hex(16));
    } catch (const name_taken&) {
        refuse(409, said("the name '{}' is taken in this class: add an initial", name));
    }
    {
        const std::lock_guard<std::mutex> hold(m_);
        students_.push_back(s);
    }
    return compact(json{{"token", s.token}, {"name", s.name}, {"class", o_.name}, {"lang", lang_code(language_)}});
}

std::string class_room::state(const class_student* student, lang l) {
    const int n = std::stoi(*store_.setting("lesson")), k = std::stoi(*store_.setting("stage"));
    const std::shared_ptr<const lesson> ls = lesson_numbered(n);
    return compact(json{{"class", o_.name}, {"lesson", n}, {"stage", k}, {"stages", ls->stages.size()}, {"title", ls->title.in(l)},
                        {"name", student ? json(student->name) : json()}});
}

std::vector<int> class_room::assigned_lessons() {
    // every lesson opened that has exercises, but one passed through before anyone answered it
    const int now = std::stoi(*store_.setting("lesson"));
    std::set<int> answered;
    for (const stored_answer& a : store_.last_answers())
        if (const exercise* e = find_exercise(set_, a.exercise)) answered.insert(e->lesson);
    std::vector<int> out;
    for (int n : store_.lessons_opened())
        if (has_exercises(set_, n) && (n == now || answered.count(n))) out.push_back(n);
    return out;
}

std::vector<const exercise*> class_room::assignment() {
    const std::vector<int> opened = assigned_lessons();
    std::vector<const exercise*> out;
    for (const exercise& e : set_.all)
        if (std::find(opened.begin(), opened.end(), e.lesson) != opened.end()) out.push_back(&e);
    return out;
}

exercise_run class_room::run_for(const exercise& e, const class_student& s, lang l) {
    const std::shared_ptr<const lesson> ls = lesson_numbered(e.lesson);
    const std::string file = e.scenario.empty() ? ls->scenario_file : (fs::path(data_dir()) / e.scenario).string();
    std::shared_ptr<const scenario> variant;
    {
        const std::lock_guard<std::mutex> hold(variants_m_);
        for (auto it = variants_.begin(); it != variants_.end(); ++it)
            if (it->scenario_file == file && it->student == s.name) {
                variants_.splice(variants_.begin(), variants_, it);
                variant = it->variant;
                break;
            }
    }
    if (!variant) {
        variant = std::make_shared<const scenario>(student_variant(load_scenario(file), s.name));
        std::size_t bytes = 0;
        for (const auto& [name, m] : variant->matrices) bytes += m.data.size() * sizeof(float);
        const std::lock_guard<std::mutex> hold(variants_m_);
        variants_.push_front({file, s.name, variant, bytes});
        variants_bytes_ += bytes;
        while (variants_bytes_ > variants_budget && variants_.size() > 1)
            variants_bytes_ -= variants_.back().bytes, variants_.pop_back();
    }
    return run_exercise_for(e, *ls, *variant, l, s.name);
}

const exercise& class_room::open_exercise(const nlohmann::json& body) {
    const std::string id = text_field(body, "id", 16);
    const exercise* e = find_exercise(set_, id);
    if (!e) refuse(404, said("no exercise '{}'", id));
    const std::vector<int> opened = store_.lessons_opened();
    if (std::find(opened.begin(), opened.end(), e->lesson) == opened.end())
        refuse(403, said("lesson {} is not open in this class yet", e->lesson));
    return *e;
}

void class_room::admit(const class_student& s) {
    const std::lock_guard<std::mutex> hold(m_);
    const long long now = this_minute();
    if (now != minute_) sent_this_minute_.clear(), minute_ = now;
    if (++sent_this_minute_[s.id] > o_.answers_per_minute)
        refuse(429, said("more than {} answers, hints and solutions a minute; wait a moment", o_.answers_per_minute));
}

std::string class_room::exercises(const class_student& s, lang l) {
    const int n = std::stoi(*store_.setting("lesson"));
    const auto flags = store_.questions();
    const auto mine = store_.answers_of(s.id);
    json out{{"lesson", n}, {"exercises", json::array()}};
    for (const exercise& e : set_.all) {
        if (e.lesson != n) continue;
        const exercise_run run = run_for(e, s, l);
        json j = json::parse(exercise_json(view_exercise(e, run)));
        const auto it = mine.find(e.id);
        const auto f = flags.count(e.id) ? flags.at(e.id) : question_flags{};
        const bool right = it != mine.end() && it->second.first.result == "correct";
        j["status"] = it == mine.end() ? "not tried" : right ? "correct" : "wrong";
        j["attempts"] = it == mine.end() ? 0 : it->second.second;
        const int seen = store_.help(s.id, e.id).hints;
        j["hints_seen"] = seen;
        j["hints"] = seen ? hints_of(e, run, seen - 1).shown : std::vector<std::string>{};  // again after a reload
        j["answer"] = it == mine.end() ? json() : json(it->second.first.given);
        j["closed"] = f.closed;
        j["released"] = f.released;
        out["exercises"].push_back(std::move(j));
    }
    return compact(out);
}

std::string class_room::answer(const class_student& s, const nlohmann::json& body, lang l) {
    const exercise& e = open_exercise(body);
    const std::string given = text_field(body, "answer", 8192);
    const auto flags = store_.questions();
    if (flags.count(e.id) && flags.at(e.id).closed) refuse(409, said("the teacher has closed {}", e.id));
    admit(s);
    check_verdict v;
    std::string unreadable;
    try {
        const qkv::answer a = parse_answer(e.kind, given, l);
        v = check_answer(e, a, given, run_for(e, s, l), set_.book);
    } catch (const input_error& err) {  // as `qkv grade` counts it: answered, and unreadable
        unreadable = err.in(l);  // the page says what form each kind takes
    }
    stored_answer kept{s.id, e.id, given, unreadable.empty() ? (v.correct ? "correct" : "wrong") : "unreadable", {}};
    for (const named_mistake& m : v.mistakes) kept.mistakes.push_back(m.id);
    store_.add_answer(kept);  // on disk before the student hears of it
    if (!unreadable.empty()) refuse(422, sentence::plain(unreadable));  // worded in the answer's language already
    return verdict_json(v);
}

std::string class_room::hint(const class_student& s, const nlohmann::json& body, lang l) {
    const exercise& e = open_exercise(body);
    admit(s);
    help_record h = store_.help(s.id, e.id);
    const hints_view view = hints_of(e, run_for(e, s, l), h.hints);
    h.hints = static_cast<int>(view.shown.size());
    store_.set_help(s.id, e.id, h);
    return hints_json(view);
}

std::string class_room::solution(const class_student& s, const nlohmann::json& body, lang l) {
    const exercise& e = open_exercise(body);
    const auto flags = store_.questions();
    if (!flags.count(e.id) || !flags.at(e.id).released) refuse(403, said("the teacher has not released the solution of {} yet", e.id));
    admit(s);
    help_record h = store_.help(s.id, e.id);
    const std::string out = solution_json(solution_of(e, run_for(e, s, l)));
    h.solution = true;
    store_.set_help(s.id, e.id, h);
    return out;
}

std::vector<class_room::sheet_answers> class_room::sheets() {
    std::vector<sheet_answers> out;
    std::map<long long, std::size_t> at;
    for (const class_student& s : store_.students()) at[s.id] = out.size(), out.push_back({s, {}});
    for (const stored_answer& a : store_.last_answers())
        if (at.count(a.student)) out[at[a.student]].answers.emplace_back(a.exercise, a.given);
    return out;
}

std::string class_room::teacher_view(lang l, const std::string& join_link) {
    // Counted from the verdicts kept when each answer came in, as `qkv grade` counts its rows.
    const std::vector<const exercise*> asked = assignment();
    std::map<std::pair<long long, std::string>, stored_answer> last;
    for (stored_answer& a : store_.last_answers()) last[{a.student, a.exercise}] = std::move(a);
    std::vector<graded_sheet> graded;
    json students = json::array();
    for (const class_student& s : store_.students()) {
        graded_sheet g;
        g.student = s.name;
        g.own_numbers = true;
        for (const exercise* e : asked) {
            graded_answer row{e->id, e->lesson, e->kind, "", grade_result::missing, {}, {}};
            if (auto it = last.find({s.id, e->id}); it != last.end()) {
                row.given = it->second.given;
                row.result = it->second.result == "correct" ? grade_result::correct
                             : it->second.result == "wrong" ? grade_result::wrong
                                                            : grade_result::unreadable;
                row.mistakes = it->second.mistakes;
            }
            g.rows.push_back(std::move(row));
        }
        const auto answered = std::count_if(g.rows.begin(), g.rows.end(), [](const graded_answer& r) { return r.result != grade_result::missing; });
        students.push_back({{"name", s.name}, {"answered", answered}, {"right", g.right()}});
        graded.push_back(std::move(g));
    }
    const auto flags = store_.questions();
    json questions = json::array();
    for (const question_count& q : count_questions(graded, set_.book, l)) {
        const exercise* e = find_exercise(set_, q.id);
        json mistakes = json::array();
        for (const mistake_count& m : q.mistakes) mistakes.push_back({{"id", m.id}, {"sheets", m.sheets}, {"explanation", m.text}});
        const auto f = flags.count(q.id) ? flags.at(q.id) : question_flags{};
        questions.push_back({{"id", q.id}, {"lesson", e ? e->lesson : 0}, {"kind", kind_name(q.kind)}, {"right", q.right},
                             {"answered", q.answered}, {"students", q.students}, {"mistakes", mistakes}, {"closed", f.closed},
                             {"released", f.released}});
    }
    json out = json::parse(state(nullptr, l));
    out["code"] = code_;
    out["join"] = join_link;
    out["students"] = students;
    out["questions"] = questions;
    out["answers"] = store_.answer_count();
    return compact(out);
}

std::string class_room::move(const nlohmann::json& body, lang l) {
    const int n = static_cast<int>(number_field(body, "lesson", 0, 9999));
    const std::shared_ptr<const lesson> ls = lesson_numbered(n);
    const int k = static_cast<int>(number_field(body, "stage", 1, static_cast<long long>(ls->stages.size())));
    store_.open_lesson(n);
    store_.set_setting("lesson", std::to_string(n));
    store_.set_setting("stage", std::to_string(k));
    return state(nullptr, l);
}

std::string class_room::question(const nlohmann::json& body) {
    const std::string id = text_field(body, "id", 16);
    if (!find_exercise(set_, id)) refuse(404, said("no exercise '{}'", id));
    const auto flags = store_.questions();
    question_flags f = flags.count(id) ? flags.at(id) : question_flags{};
    for (auto [key, field] : {std::pair{"closed", &f.closed}, std::pair{"released", &f.released}}) {
        if (!body.contains(key)) continue;
        if (!body[key].is_boolean()) refuse(400, said("\"{}\" is true or false", key));
        *field = body[key].get<bool>();
    }
    store_.set_question(id, f);
    return compact(json{{"id", id}, {"closed", f.closed}, {"released", f.released}});
}

namespace {

std::string sheet_file(std::size_t k) { return fmt::format("sheets/student-{:04}.toml", k + 1); }

void write_file(const fs::path& path, const std::string& bytes) {
    if (auto refused = replace_file(path.string(), bytes)) throw input_error(source_loc{path.string(), 0, 0}, *refused);
}

}  // namespace

graded_class class_room::graded(lang l) {
    std::vector<graded_sheet> read;
    const std::vector<sheet_answers> all = sheets();
    for (std::size_t k = 0; k < all.size(); ++k) {
        graded_sheet g;
        g.path = sheet_file(k);
        g.student = all[k].who.name;
        g.own_numbers = true;
        for (const auto& [id, given] : all[k].answers) g.answers[id] = sheet_form(*find_exercise(set_, id), given);
        read.push_back(std::move(g));
    }
    return grade_read_sheets(std::move(read), assigned_lessons(), set_, l);
}

void class_room::export_to(const std::string& dir, lang l) {
    const std::vector<sheet_answers> all = sheets();
    for (const fs::path& folder : {fs::path(dir), fs::path(dir) / "sheets"})
        if (auto refused = make_folder(folder.string())) throw input_error(source_loc{folder.string(), 0, 0}, *refused);
    for (std::size_t k = 0; k < all.size(); ++k) {
        std::vector<std::pair<std::string, std::string>> answers;
        for (const auto& [id, given] : all[k].answers) answers.emplace_back(id, sheet_form(*find_exercise(set_, id), given));
        write_file((fs::path(dir) / sheet_file(k)), write_sheet(all[k].who.name, answers));
    }
    std::string lessons;
    for (int n : assigned_lessons()) lessons += fmt::format("{}{}", lessons.empty() ? "" : ", ", n);
    write_file((fs::path(dir) / "assignment.toml"), fmt::format("lessons = [{}]\n", lessons));
    const graded_class c = graded(l);
    render_options o;
    o.language = l;
    write_file((fs::path(dir) / "class.csv"), grade_report(c, format::csv, o));
    write_file((fs::path(dir) / "class.json"), grade_report(c, format::json, o));
}

void export_class(const class_options& c, const std::string& dir, lang l) {
    if (!fs::exists(c.database)) throw input_error(source_loc{c.database, 0, 0}, said("no class '{}' here: nothing to export", c.name));
    class_room(c, l).export_to(dir, l);
}

}  // namespace qkv::serve
