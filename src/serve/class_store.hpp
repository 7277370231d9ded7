// Where a class is kept: one SQLite database (WAL, every commit synced before it returns), so that
// an answer acknowledged is an answer on disk, `kill -9` loses nothing acknowledged, and a restart
// finds the class as it was. Plain rows in, plain rows out; class_room gives them meaning.
//
//   class(key, value)                 name, code, teacher, lang, lesson, stage
//   students(id, name, token, joined) a name once, a token each
//   lessons(seq, lesson)              the lessons the teacher opened, in order
//   questions(exercise, closed, released)
//   answers(id, student, exercise, given, result, mistakes, at)   every answer sent, in order;
//                                     result correct | wrong | unreadable, mistakes a JSON list
//   helps(student, exercise, hints, solution)   hints seen, the worked solution seen
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace qkv::serve {

struct class_student {
    long long id = 0;
    std::string name, token;
};

struct stored_answer {
    long long student = 0;
    std::string exercise, given, result;
    std::vector<std::string> mistakes;
};

struct question_flags {
    bool closed = false, released = false;
};

struct help_record {
    int hints = 0;
    bool solution = false;
};

// The name a student asked for is someone's already.
struct name_taken {};

class class_store {
public:
    // Opens the database at `path`, making it (and its folder, 0700) when it is not there; the file
    // is the owner's alone (0600). input_error naming the file when it cannot be opened or is not
    // a class's.
    explicit class_store(const std::string& path);
    ~class_store();
    class_store(const class_store&) = delete;
    class_store& operator=(const class_store&) = delete;

    std::optional<std::string> setting(const std::string& key);
    void set_setting(const std::string& key, const std::string& value);
    // Settings not there yet are written; those there are kept (a class resumed keeps its code).
    void settle(const std::map<std::string, std::string>& defaults);

    std::vector<class_student> students();
    // Throws name_taken when the name is in use.
    class_student add_student(const std::string& name, const std::string& token);

    std::vector<int> lessons_opened();
    void open_lesson(int lesson);

    std::map<std::string, question_flags> questions();
    void set_question(const std::string& exercise, question_flags f);

    // Committed and synced when it returns.
    void add_answer(const stored_answer& a);
    // Each student's last answer to each question, in the order they joined.
    std::vector<stored_answer> last_answers();
    // One student's: their last answer to each question and how many they sent.
    std::map<std::string, std::pair<stored_answer, int>> answers_of(long long student);
    long long answer_count();

    help_record help(long long student, const std::string& exercise);
    void set_help(long long student, const std::string& exercise, help_record h);

private:
    std::mutex m_;
    sqlite3* db_ = nullptr;
    std::string path_;
};

}  // namespace qkv::serve
