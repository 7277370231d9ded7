// The course and a learner's place in it (course.hpp).
#include "qkv/course.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "qkv/error.hpp"
#include "qkv/lesson.hpp"
#include "qkv/toml_file.hpp"

namespace qkv {

std::vector<course_lesson> load_course(lang l) {
    std::vector<course_lesson> out;
    for (auto& [n, path] : lesson_files(lessons_dir())) out.push_back({n, read_course_entry(path).title.in(l), {}});
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

std::vector<course_lesson> load_course(lang l, const std::vector<trace>& ran) {
    std::vector<course_lesson> out;
    for (auto& [n, path] : lesson_files(lessons_dir())) out.push_back({n, read_course_entry(path).title.in(l), {}});
    std::optional<mistake_book> book;
    const auto files = numbered_files(exercises_dir(), R"(^(\d{1,4})\.toml$)");
    for (course_lesson& c : out) {
        if (std::none_of(ran.begin(), ran.end(), [&](const trace& t) { return t.lesson == c.number; })) continue;
        for (const auto& [n, path] : files) {
            if (n != c.number) continue;
            try {
                if (!book) book = read_mistakes(read_toml_file((std::filesystem::path(exercises_dir()) / "mistakes.toml").string(), "mistake book"));
                for (const exercise& e : read_exercises(read_toml_file(path, "exercise file"), *book))
                    if (e.lesson == c.number) c.exercises.push_back(e.id);
            } catch (const input_error&) {
                c.exercises.clear();  // as load_course: `qkv validate` says what is wrong; the lesson still runs
            }
        }
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

void mark_read(progress& p, const std::vector<trace>& traces) {
    for (const trace& t : traces)
        if (t.stages.size() == t.stage_count) p.lessons_read.insert(t.lesson);  // --stage K shows one: not read
}

next_step find_next(const std::vector<course_lesson>& course, const progress& p) {
    for (const course_lesson& c : course) {
        if (!p.lessons_read.count(c.number)) return {next_step::kind::lesson, c.number, c.title, ""};
        for (const std::string& id : c.exercises)
            if (p.state_of(id) != status::correct) return {next_step::kind::exercise, c.number, c.title, id};
    }
    return {};
}

course_position position_in(const std::vector<course_lesson>& course, const progress& p) {
    course_position at;
    at.lessons = course.size();
    for (const course_lesson& c : course) {
        at.read += p.lessons_read.count(c.number);
        at.exercises += c.exercises.size();
        for (const std::string& id : c.exercises) at.right += p.state_of(id) == status::correct;
    }
    at.next = find_next(course, p);
    return at;
}

progress_summary summarize(const exercise_set& set, const progress& p, const std::string& path) {
    progress_summary s;
    s.path = path;
    s.lessons_read = p.lessons_read;
    std::map<int, progress_summary::lesson_count> per_lesson;
    for (const exercise& e : set.all) {
        const exercise_progress mine = p.of(e);
        progress_summary::lesson_count& c = per_lesson[e.lesson];
        c.lesson = e.lesson;
        ++c.total;
        if (mine.state == status::correct) ++c.right, ++s.right;
        s.hints += static_cast<std::size_t>(mine.hints);
        s.exercises.push_back({e.id, mine});
    }
    s.total = set.all.size();
    for (auto& [n, c] : per_lesson) s.lessons.push_back(c);
    return s;
}

}  // namespace qkv
