// `qkv serve`: the lessons, a live training run and a projector view in a browser, from the same
// engine. Every page is built from the engine's own results (the traces, the cells' terms, the
// training run's probes); the browser lays them out and computes nothing. Its assets are inside
// the program: no request reaches a file by its path.
//
// HTTP API (JSON; README.md documents each):
//   GET  /api/lessons?lang=                 the lesson list, as `qkv list --format json`
//   GET  /api/lesson/N?lang=&tokens=&d_model=&heads=&seed=&data=&format=json
//                                           a lesson run: its stages as the page shows them, or
//                                           with format=json the trace `qkv lesson N --format json` prints
//   GET  /api/cell?lesson=N&stage=K&name=S&head=&i=&j=&…   how one shown number was computed
//   GET  /api/scenarios                     the scenario names data= takes
//   GET  /api/colours                       the one colour map, 256 steps from weight 0 to 1
//   POST /api/train?task=&steps=&seed=&…    start a training run (one per visitor at a time)
//   GET  /api/train/ID/events               its progress as server-sent events; the last is the
//                                           JSON `qkv train --format json` prints
//   POST /api/train/ID/stop                 stop it
//
// A class (`qkv serve --class NAME`; class_room.hpp). Bodies are JSON; a student sends the token
// join gave in the header X-Qkv-Student, the teacher the terminal's token in X-Qkv-Teacher.
//   GET  /class, /class/teacher, /class/present   the class's pages (class.html)
//   POST /api/class/join {"code", "name"}   201 {"token", "name", "class", "lang"}; 403 a wrong
//                                           code, 409 a name in use, 400 a name that is none
//   GET  /api/class/state                   {"class", "lesson", "stage", "stages", "title", "name"}
//   GET  /api/class/exercises?lang=         the open lesson's exercises on the student's numbers
//                                           (as `qkv exercise --format json`), each with "status",
//                                           "attempts", "hints_seen", "answer", "closed", "released"
//   POST /api/class/answer {"id", "answer"} the verdict, as `qkv check --format json`, once the answer
//                                           is on disk; 422 an answer that cannot be read (on disk
//                                           too), 409 a closed question, 403 a lesson not opened
//   POST /api/class/hint {"id"}             the hints so far and the next, as `qkv hint`
//   POST /api/class/solution {"id"}         the worked solution, once the teacher released it
//   GET  /api/class/teacher                 the room: state, join link and code, the students, and
//                                           per question right / answered / mistakes, as `qkv grade`
//   POST /api/class/teacher/move {"lesson", "stage"}        where the class is
//   POST /api/class/teacher/question {"id", "closed", "released"}
//   GET  /api/class/teacher/export?format=csv|json          what `qkv grade` writes of the class
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "qkv/i18n.hpp"

namespace qkv::serve {

// What the server holds a request and a visitor to; `qkv serve --help` states them.
struct limits {
    std::size_t tokens = 64;             // a sentence's tokens
    std::size_t token_bytes = 64;        // one token's bytes
    std::size_t d_model = 64;            // --tokens' width
    std::size_t body_bytes = 16 * 1024;  // a request's body
    std::size_t requests_per_minute = 1200;  // per visitor (address); past it 429
    std::size_t connections = 64;        // served at once (threads); more wait their turn
    int read_timeout_seconds = 5;        // a client that sends nothing for this long is dropped
    std::size_t train_runs = 2;          // training runs at once on the whole server
    std::size_t train_steps = 4000;      // one run's steps
};

// A class's: its name, its database (class_database(name) unless a test says otherwise), the
// address its students are told to join at, and how many answers a student sends a minute.
struct class_options {
    std::string name;
    std::string database;
    std::string join_host;                // empty: the address the server listens on
    std::size_t answers_per_minute = 30;  // answers, hints and solutions, per student
};

// A class's name as a file's: 1 to 64 of A-Z a-z 0-9 - _; input_error otherwise.
void check_class_name(const std::string& name);
// $XDG_STATE_HOME/qkv/classes/NAME.sqlite (else ~/.local/state/qkv/classes/NAME.sqlite).
std::string class_database(const std::string& name);
// Writes DIR/sheets/student-NNNN.toml (each student's last answers), DIR/assignment.toml (the
// lessons opened), DIR/class.csv and DIR/class.json (what `qkv grade` writes of them) from the
// class's database; input_error when it is not there or a file cannot be written.
void export_class(const class_options& c, const std::string& dir, lang l);

// What the terminal says of a class once the server listens.
struct class_started {
    std::string name, database, code, join_link, teacher_link;
    bool resumed = false;
    std::size_t students = 0;
    long long answers = 0;
};

struct options {
    std::string host = "127.0.0.1";
    int port = 8470;                            // 0: any free port
    std::map<std::string, std::string> data;    // scenario name → file: data/ and the files given
    lang language = lang::en;                   // the page's language when the URL names none
    limits limit;
    std::optional<class_options> klass;         // --class: a class is kept and its pages served
};

class server {
public:
    explicit server(options o);
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    // Binds host:port; throws input_error naming the address when it cannot.
    void bind();
    int port() const;
    // The class, once bound (nullopt without --class).
    std::optional<class_started> started_class() const;
    // Serves until stop() (from another thread, or a signal's watcher).
    void run();
    void stop();

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace qkv::serve
