// The class's database (class_store.hpp) on SQLite's C API: one connection, one statement at a
// time under the store's lock; every write a transaction of its own, synced (synchronous = FULL).
#include "class_store.hpp"

#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/stat.h>

#include "qkv/error.hpp"

namespace qkv::serve {
namespace {

constexpr const char* schema = R"(
CREATE TABLE IF NOT EXISTS class(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS students(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, token TEXT NOT NULL UNIQUE,
                                    joined TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE IF NOT EXISTS lessons(seq INTEGER PRIMARY KEY, lesson INTEGER NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS questions(exercise TEXT PRIMARY KEY, closed INTEGER NOT NULL, released INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS answers(id INTEGER PRIMARY KEY, student INTEGER NOT NULL REFERENCES students(id),
                                   exercise TEXT NOT NULL, given TEXT NOT NULL, result TEXT NOT NULL,
                                   mistakes TEXT NOT NULL, at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE INDEX IF NOT EXISTS answers_of_student ON answers(student, exercise, id);
CREATE TABLE IF NOT EXISTS helps(student INTEGER NOT NULL REFERENCES students(id), exercise TEXT NOT NULL,
                                 hints INTEGER NOT NULL, solution INTEGER NOT NULL, PRIMARY KEY(student, exercise));
)";

// One prepared statement, bound, stepped and finalized.
class statement {
public:
    statement(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) fail();
    }
    ~statement() { sqlite3_finalize(s_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;

    statement& bind(int k, const std::string& v) {
        sqlite3_bind_text(s_, k, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    statement& bind(int k, long long v) {
        sqlite3_bind_int64(s_, k, v);
        return *this;
    }
    // A row to read: true; the end: false.
    bool step() {
        const int r = sqlite3_step(s_);
        if (r == SQLITE_ROW) return true;
        if (r == SQLITE_DONE) return false;
        fail();
    }
    void run() {
        while (step()) {
        }
    }
    std::string text(int c) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, c))) : std::string();
    }
    long long integer(int c) const { return sqlite3_column_int64(s_, c); }
    int result() const { return sqlite3_extended_errcode(db_); }

private:
    [[noreturn]] void fail() {
        const int code = sqlite3_extended_errcode(db_);
        if (code == SQLITE_CONSTRAINT_UNIQUE) throw name_taken{};
        throw std::runtime_error(fmt::format("the class's database refused: {}", sqlite3_errmsg(db_)));
    }
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        std::string said = message ? message : sqlite3_errmsg(db);
        sqlite3_free(message);
        throw std::runtime_error(said);
    }
}

std::string mistakes_text(const std::vector<std::string>& ids) { return nlohmann::json(ids).dump(); }

std::vector<std::string> mistakes_of(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& id : j)
            if (id.is_string()) out.push_back(id.get<std::string>());
    return out;
}

stored_answer answer_row(const statement& s) {
    return {s.integer(0), s.text(1), s.text(2), s.text(3), mistakes_of(s.text(4))};
}

}  // namespace

class_store::class_store(const std::string& path) : path_(path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path folder = fs::path(path).parent_path();
    if (!folder.empty() && !fs::is_directory(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec) throw input_error(source_loc{folder.string(), 0, 0}, fmt::format("cannot make the classes' folder: {}", ec.message()));
        ::chmod(folder.c_str(), 0700);
    }
    const mode_t before = ::umask(077);  // the database and its journals: the owner's alone
    const int opened = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW, nullptr);
    ::umask(before);
    try {
        if (opened != SQLITE_OK) throw std::runtime_error(db_ ? sqlite3_errmsg(db_) : "out of memory");
        sqlite3_busy_timeout(db_, 5000);
        exec(db_, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
        exec(db_, schema);
    } catch (const std::exception& e) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw input_error(source_loc{path, 0, 0}, fmt::format("not a class's database, or it cannot be opened: {}", e.what()));
    }
}

class_store::~class_store() { sqlite3_close(db_); }

std::optional<std::string> class_store::setting(const std::string& key) {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT value FROM class WHERE key = ?");
    s.bind(1, key);
    if (!s.step()) return std::nullopt;
    return s.text(0);
}

void class_store::set_setting(const std::string& key, const std::string& value) {
    const std::lock_guard<std::mutex> hold(m_);
    statement(db_, "INSERT INTO class(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        .bind(1, key).bind(2, value).run();
}

void class_store::settle(const std::map<std::string, std::string>& defaults) {
    const std::lock_guard<std::mutex> hold(m_);
    for (const auto& [key, value] : defaults)
        statement(db_, "INSERT OR IGNORE INTO class(key, value) VALUES(?, ?)").bind(1, key).bind(2, value).run();
}

std::vector<class_student> class_store::students() {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT id, name, token FROM students ORDER BY id");
    std::vector<class_student> out;
    while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2)});
    return out;
}

class_student class_store::add_student(const std::string& name, const std::string& token) {
    const std::lock_guard<std::mutex> hold(m_);
    statement(db_, "INSERT INTO students(name, token) VALUES(?, ?)").bind(1, name).bind(2, token).run();
    return {sqlite3_last_insert_rowid(db_), name, token};
}

std::vector<int> class_store::lessons_opened() {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT lesson FROM lessons ORDER BY seq");
    std::vector<int> out;
    while (s.step()) out.push_back(static_cast<int>(s.integer(0)));
    return out;
}

void class_store::open_lesson(int lesson) {
    const std::lock_guard<std::mutex> hold(m_);
    statement(db_, "INSERT OR IGNORE INTO lessons(lesson) VALUES(?)").bind(1, lesson).run();
}

std::map<std::string, question_flags> class_store::questions() {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT exercise, closed, released FROM questions");
    std::map<std::string, question_flags> out;
    while (s.step()) out[s.text(0)] = {s.integer(1) != 0, s.integer(2) != 0};
    return out;
}

void class_store::set_question(const std::string& exercise, question_flags f) {
    const std::lock_guard<std::mutex> hold(m_);
    statement(db_, "INSERT INTO questions(exercise, closed, released) VALUES(?, ?, ?) "
                   "ON CONFLICT(exercise) DO UPDATE SET closed = excluded.closed, released = excluded.released")
        .bind(1, exercise).bind(2, f.closed ? 1LL : 0LL).bind(3, f.released ? 1LL : 0LL).run();
}

void class_store::add_answer(const stored_answer& a) {
    const std::lock_guard<std::mutex> hold(m_);
    statement(db_, "INSERT INTO answers(student, exercise, given, result, mistakes) VALUES(?, ?, ?, ?, ?)")
        .bind(1, a.student).bind(2, a.exercise).bind(3, a.given).bind(4, a.result).bind(5, mistakes_text(a.mistakes)).run();
}

std::vector<stored_answer> class_store::last_answers() {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT student, exercise, given, result, mistakes FROM answers "
                     "WHERE id IN (SELECT max(id) FROM answers GROUP BY student, exercise) ORDER BY student, id");
    std::vector<stored_answer> out;
    while (s.step()) out.push_back(answer_row(s));
    return out;
}

std::map<std::string, std::pair<stored_answer, int>> class_store::answers_of(long long student) {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT student, exercise, given, result, mistakes FROM answers WHERE student = ? ORDER BY id");
    s.bind(1, student);
    std::map<std::string, std::pair<stored_answer, int>> out;
    while (s.step()) {
        stored_answer a = answer_row(s);
        auto& [last, sent] = out[a.exercise];
        last = std::move(a);
        ++sent;
    }
    return out;
}

long long class_store::answer_count() {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT count(*) FROM answers");
    return s.step() ? s.integer(0) : 0;
}

help_record class_store::help(long long student, const std::string& exercise) {
    const std::lock_guard<std::mutex> hold(m_);
    statement s(db_, "SELECT hints, solution FROM helps WHERE student = ? AND exercise = ?");
    s.bind(1, student).bind(2, exercise);
    if (!s.step()) return {};
    return {static_cast<int>(s.integer(0)), s.integer(1) != 0};
}

void class_store::set_help(long long student, const std::string& exercise, help_record h) {
    const std::lock_guard<std::mutex> hold(m_);
    statement(db_, "INSERT INTO helps(student, exercise, hints, solution) VALUES(?, ?, ?, ?) "
                   "ON CONFLICT(student, exercise) DO UPDATE SET hints = excluded.hints, solution = excluded.solution")
        .bind(1, student).bind(2, exercise).bind(3, static_cast<long long>(h.hints)).bind(4, h.solution ? 1LL : 0LL).run();
}

}  // namespace qkv::serve
