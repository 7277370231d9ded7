// A class (`qkv serve --class NAME`): who joined, where the teacher has the class, and every
// answer, judged as `qkv check` judges it on the student's own numbers (`--student NAME`) and kept
// in the class's database before its verdict is sent. The teacher's figures are counted as
// `qkv grade` counts a class (grading.hpp's count_questions), and the export is `qkv grade`'s own
// work on the sheets it writes. Every request's answer is JSON; a refusal is an http_error.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkv/exercise.hpp"
#include "qkv/grading.hpp"
#include "qkv/i18n.hpp"
#include "qkv/judge.hpp"
#include "qkv/scenario.hpp"
#include "qkv/serve.hpp"
#include "class_store.hpp"

namespace qkv::serve {

class class_room {
public:
    // Opens the class's database, or starts the class in it: a new join code and teacher token,
    // the first lesson open. A class resumed keeps its code, token, students and answers.
    class_room(class_options o, lang l);

    const std::string& name() const { return o_.name; }
    const std::string& code() const { return code_; }
    const std::string& teacher_token() const { return teacher_; }
    bool resumed() const { return resumed_; }
    std::size_t student_count();
    long long answer_count();

    // Who sends this token: a student, or nobody (every token compared in constant time).
    std::optional<class_student> student_of(std::string_view token);
    bool is_teacher(std::string_view token) const;

    // POST /api/class/join: {"code", "name"} → {"token", "name", "class", "lang"}
    std::string join(const nlohmann::json& body);
    // GET /api/class/state: where the class is; `student` null for the teacher.
    std::string state(const class_student* student, lang l);
    // GET /api/class/exercises: the current lesson's exercises on the student's numbers.
    std::string exercises(const class_student& s, lang l);
    // POST /api/class/answer: the verdict once the answer is on disk. An answer that cannot be read
    // is on disk too, then refused with 422.
    std::string answer(const class_student& s, const nlohmann::json& body, lang l);
    // POST /api/class/hint, /api/class/solution
    std::string hint(const class_student& s, const nlohmann::json& body, lang l);
    std::string solution(const class_student& s, const nlohmann::json& body, lang l);

    // GET /api/class/teacher: the room; `join_link` is where students join.
    std::string teacher_view(lang l, const std::string& join_link);
    // POST /api/class/teacher/move {"lesson", "stage"}
    std::string move(const nlohmann::json& body, lang l);
    // POST /api/class/teacher/question {"id", "closed", "released"}
    std::string question(const nlohmann::json& body);

    // The class as `qkv grade` grades the sheets export writes.
    graded_class graded(lang l);
    // DIR/sheets/student-NNNN.toml, DIR/assignment.toml, DIR/class.csv, DIR/class.json
    void export_to(const std::string& dir, lang l);

private:
    struct sheet_answers {
        class_student who;
        std::vector<std::pair<std::string, std::string>> answers;  // id → as the sheet writes it
    };
    // What the class is graded on: the lessons opened that have exercises, but for one the class
    // only passed through (not where it is now, and nobody answered it); their exercises.
    std::vector<int> assigned_lessons();
    std::vector<const exercise*> assignment();
    std::vector<sheet_answers> sheets();
    const exercise& open_exercise(const nlohmann::json& body);
    // The exercise run on the student's own numbers: run_exercise(e, l, "", name), with the
    // student's variant of the scenario kept (a lesson's variant of a 512-wide scenario is 4 MB of
    // draws, a tenth of a second to make) while the kept ones stay under variants_budget.
    exercise_run run_for(const exercise& e, const class_student& s, lang l);
    void admit(const class_student& s);

    class_options o_;
    lang language_;
    exercise_set set_;
    class_store store_;
    std::string code_, teacher_;
    bool resumed_ = false;
    struct kept_variant {
        std::string scenario_file, student;
        std::shared_ptr<const scenario> variant;
        std::size_t bytes = 0;
    };
    static constexpr std::size_t variants_budget = std::size_t{256} << 20;
    std::mutex variants_m_;
    std::list<kept_variant> variants_;  // the one used last, first
    std::size_t variants_bytes_ = 0;

    std::mutex m_;  // the students and the rate meter below
    std::vector<class_student> students_;
    long long minute_ = -1;
    std::unordered_map<long long, std::size_t> sent_this_minute_;
};

}  // namespace qkv::serve
