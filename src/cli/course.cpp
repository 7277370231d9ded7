// The course and a learner's place in it (course.hpp).
#include "course.hpp"

#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/error.hpp"
#include "qkv/exercise.hpp"
#include "qkv/lesson.hpp"
#include "qkv/wrap.hpp"

namespace qkv::cli {

std::vector<course_lesson> load_course(lang l) {
    std::vector<course_lesson> out;
    for (auto& [n, path] : lesson_files(lessons_dir())) out.push_back({n, load_lesson(path).title.in(l), {}});
    try {
        exercise_set set = load_exercises(exercises_dir());
        for (course_lesson& c : out)
            for (const exercise& e : set.all)
                if (e.lesson == c.number) c.exercises.push_back(e.id);
    } catch (const input_error&) {
        // `qkv validate lessons/exercises/*.toml` says what is wrong; a lesson still runs
    }
    return out;
}

void add_what_next(std::vector<trace>& traces, const std::vector<course_lesson>& course) {
    for (trace& t : traces) {
        t.after.known = true;
        for (std::size_t i = 0; i < course.size(); ++i) {
            if (course[i].number != t.lesson) continue;
            t.after.exercises = course[i].exercises;
            if (i + 1 < course.size()) t.after.lesson = course[i + 1].number, t.after.lesson_title = course[i + 1].title;
        }
    }
}

void record_lessons_read(const console& io, const std::vector<trace>& traces) {
    try {
        update_progress(progress_path(), [&](progress& p) {
            for (const trace& t : traces)
                if (t.stages.size() == t.stage_count) p.lessons_read.insert(t.lesson);
        });
    } catch (const input_error& e) {
        io.tell(fmt::format("qkv: warning: the lesson was shown, but not recorded as read: {}\n", e.what()));
    }
}

next_step find_next(const std::vector<course_lesson>& course, const progress& p) {
    for (const course_lesson& c : course) {
        if (!p.lessons_read.count(c.number)) return {next_step::kind::lesson, c.number, c.title, ""};
        for (const std::string& id : c.exercises)
            if (p.state_of(id) != status::correct) return {next_step::kind::exercise, c.number, c.title, id};
    }
    return {};
}

std::string where_you_are(const std::vector<course_lesson>& course, const progress& p, const next_step& n, lang l,
                          std::size_t width) {
    std::size_t read = 0, exercises = 0, right = 0;
    for (const course_lesson& c : course) {
        read += p.lessons_read.count(c.number);
        exercises += c.exercises.size();
        for (const std::string& id : c.exercises) right += p.state_of(id) == status::correct;
    }
    std::string out;
    if (read || right)
        out = fmt::format(fmt::runtime(pick(l, "你已读完 {}/{} 课，做对 {}/{} 道练习。", "You have read {} of {} lessons and got {} of {} exercises right. ")),
                          read, course.size(), right, exercises);
    switch (n.k) {
    case next_step::kind::lesson:
        out += fmt::format(fmt::runtime(!read ? pick(l, "从这里开始：第 {} 课 · {}（qkv lesson {}，或 qkv next）", "Start here: lesson {} · {} (qkv lesson {}, or qkv next)")
                                              : pick(l, "下一步：第 {} 课 · {}（qkv lesson {}，或 qkv next）", "Next: lesson {} · {} (qkv lesson {}, or qkv next)")),
                           n.lesson, n.title, n.lesson);
        break;
    case next_step::kind::exercise:
        out += fmt::format(fmt::runtime(pick(l, "下一步：练习 {}（第 {} 课 · {}；qkv exercise {}，或 qkv next）", "Next: exercise {} (lesson {} · {}; qkv exercise {}, or qkv next)")),
                           n.exercise, n.lesson, n.title, n.exercise);
        break;
    case next_step::kind::done:
        out += pick(l, "全部课程和练习都完成了。", "You have finished every lesson and every exercise.");
        break;
    }
    std::string lines;
    for (const std::string& line : wrap_paragraph(out, width)) lines += (lines.empty() ? "" : "\n") + line;
    return lines;
}

}  // namespace qkv::cli
