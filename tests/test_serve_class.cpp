// qkv serve --class: students join only with the class's code and a name of their own; an answer
// is judged on the student's own numbers, as `qkv check --student NAME` judges it, and is in the
// database before its verdict is sent; the teacher's pages need the teacher's token; the teacher's
// figures equal `qkv grade` on the export; a student is held to the answers a minute; and a class
// killed with SIGKILL comes back whole. The right answers are worked here from the values the
// question shows, and the database is read with SQLite itself.
#define BOOST_TEST_MODULE serve_class
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <httplib.h>
#include <qrencode.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "qkv/serve.hpp"
#include "support/files.hpp"
#include "support/run_qkv.hpp"
#include "support/scratch.hpp"

using nlohmann::json;
using qkv::test::run_qkv;
namespace fs = std::filesystem;

namespace {

// A class's server on a free port of 127.0.0.1, its database in a scratch folder.
struct class_server {
    qkv::test::scratch_dir dir{"class"};
    qkv::serve::server s;
    std::thread t;
    explicit class_server(std::size_t answers_per_minute = 30) : s(options(dir, answers_per_minute)) {
        s.bind();
        t = std::thread([this] { s.run(); });
    }
    ~class_server() {
        s.stop();
        t.join();
    }
    static qkv::serve::options options(const qkv::test::scratch_dir& d, std::size_t per_minute) {
        qkv::serve::options o;
        o.port = 0;
        o.klass = qkv::serve::class_options{"t", (d / "t.sqlite").string(), "", per_minute};
        return o;
    }
    qkv::serve::class_started started() const { return *s.started_class(); }
    std::string teacher() const { return started().teacher_link.substr(started().teacher_link.find("#t=") + 3); }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", s.port());
        c.set_read_timeout(60, 0);
        return c;
    }
};

struct reply {
    int status = 0;
    json body;
};

reply post(httplib::Client& c, const std::string& path, const json& body, const httplib::Headers& h = {}) {
    auto res = c.Post(path, h, body.dump(), "application/json");
    BOOST_REQUIRE_MESSAGE(res, "no answer to " << path);
    return {res->status, json::parse(res->body)};
}

reply get(httplib::Client& c, const std::string& path, const httplib::Headers& h = {}) {
    auto res = c.Get(path, h);
    BOOST_REQUIRE_MESSAGE(res, "no answer to " << path);
    return {res->status, json::parse(res->body, nullptr, false)};
}

httplib::Headers as_student(const std::string& token) { return {{"X-Qkv-Student", token}}; }
httplib::Headers as_teacher(const std::string& token) { return {{"X-Qkv-Teacher", token}}; }

std::string join(httplib::Client& c, const std::string& code, const std::string& name) {
    const reply r = post(c, "/api/class/join", {{"code", code}, {"name", name}});
    BOOST_REQUIRE_MESSAGE(r.status == 201, r.body.dump());
    return r.body["token"].get<std::string>();
}

// Exercise 4.1 as the student sees it; its question asks for s13 scaled with d_k = 4, worked here:
// S[0][2] / √4 from the S it shows.
double scaled_s13(httplib::Client& c, const std::string& token) {
    const reply r = get(c, "/api/class/exercises", as_student(token));
    BOOST_REQUIRE(r.status == 200);
    for (const json& e : r.body["exercises"])
        if (e["id"] == "4.1") {
            const std::string q = e["question"];
            BOOST_REQUIRE(q.find("s13") != std::string::npos);
            BOOST_REQUIRE(q.find("d_k = 4") != std::string::npos);
            return e["values"][0]["data"][0][2].get<double>() / 2.0;
        }
    BOOST_FAIL("lesson 4 shows no exercise 4.1");
    return 0;
}

// The database's answers, read with SQLite: (name, exercise, given, result) in the order sent.
std::vector<std::vector<std::string>> answers_on_disk(const std::string& db) {
    sqlite3* h = nullptr;
    BOOST_REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    BOOST_REQUIRE(sqlite3_prepare_v2(h, "SELECT s.name, a.exercise, a.given, a.result FROM answers a JOIN students s ON s.id = a.student ORDER BY a.id",
                                     -1, &s, nullptr) == SQLITE_OK);
    std::vector<std::vector<std::string>> out;
    while (sqlite3_step(s) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int k = 0; k < 4; ++k) row.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, k)));
        out.push_back(row);
    }
    sqlite3_finalize(s);
    sqlite3_close(h);
    return out;
}

// The QR code the terminal drew, read back: a block is two light modules, ▀ the top one light, ▄
// the bottom one, a blank two dark; inside a light quiet zone of two modules. A row per module,
// '#' dark.
std::vector<std::string> drawn_qr(const std::string& said) {
    std::vector<std::string> rows;
    std::size_t at = said.find('\n', said.find("join at")) + 1;
    for (std::size_t end; (end = said.find('\n', at)) != std::string::npos && said.compare(at, 3, "█") == 0; at = end + 1) {
        std::string top, bottom;
        for (std::size_t i = at; i < end;) {
            const std::string ch = said.substr(i, said[i] == ' ' ? 1 : 3);
            i += ch.size();
            top += ch == "█" || ch == "▀" ? '.' : '#';
            bottom += ch == "█" || ch == "▄" ? '.' : '#';
        }
        rows.push_back(top), rows.push_back(bottom);
    }
    if (rows.size() < 8) return rows;
    const std::size_t side = rows.front().size();
    rows.resize(side);  // an odd side's last half line is below the picture
    std::vector<std::string> code;
    for (std::size_t r = 2; r + 2 < side; ++r) code.push_back(rows[r].substr(2, side - 4));
    return code;
}

// libqrencode's own modules for the text, as the terminal's are encoded (error correction M).
std::vector<std::string> qr_modules(const std::string& text) {
    QRcode* q = QRcode_encodeString(text.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    BOOST_REQUIRE(q);
    std::vector<std::string> code(static_cast<std::size_t>(q->width), std::string(static_cast<std::size_t>(q->width), '.'));
    for (int r = 0; r < q->width; ++r)
        for (int c = 0; c < q->width; ++c)
            if (q->data[r * q->width + c] & 1) code[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] = '#';
    QRcode_free(q);
    return code;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_student_joins_only_with_the_code_and_a_name_of_their_own) {
    class_server k;
    auto c = k.client();
    const std::string code = k.started().code;
    BOOST_TEST(code.size() == 6u);
    BOOST_TEST(post(c, "/api/class/join", {{"code", "ZZZZZZ"}, {"name", "ann"}}).status == 403);
    BOOST_TEST(post(c, "/api/class/join", {{"code", ""}, {"name", "ann"}}).status == 403);
    std::string lower = code;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const reply ok = post(c, "/api/class/join", {{"code", " " + lower.substr(0, 3) + "-" + lower.substr(3) + " "}, {"name", " ann "}});
    BOOST_TEST(ok.status == 201);  // as typed on a phone: lower case, a dash, blanks
    BOOST_TEST(ok.body["name"] == "ann");
    BOOST_TEST(ok.body["token"].get<std::string>().size() == 32u);
    BOOST_TEST(post(c, "/api/class/join", {{"code", code}, {"name", "ann"}}).status == 409);
    BOOST_TEST(post(c, "/api/class/join", {{"code", code}, {"name", "  "}}).status == 400);
    BOOST_TEST(post(c, "/api/class/join", {{"code", code}, {"name", std::string(41, 'x')}}).status == 400);
    BOOST_TEST(post(c, "/api/class/join", {{"code", code}, {"name", "a\nb"}}).status == 400);
    BOOST_TEST(post(c, "/api/class/join", {{"code", code}, {"name", std::string(40, 'x')}}).status == 201);
    auto bad = c.Post("/api/class/join", "[[[[[[[[[[]]]]]]]]]]", "application/json");
    BOOST_REQUIRE(bad);
    BOOST_TEST(bad->status == 400);
    BOOST_TEST(get(c, "/api/class/state").status == 401);
    BOOST_TEST(get(c, "/api/class/state", as_student("0123456789abcdef0123456789abcdef")).status == 401);
    const reply mine = get(c, "/api/class/state", as_student(ok.body["token"]));
    BOOST_TEST(mine.status == 200);
    BOOST_TEST(mine.body["name"] == "ann");
}

BOOST_AUTO_TEST_CASE(an_answer_is_judged_on_the_students_numbers_and_on_disk_before_its_verdict) {
    class_server k;
    auto c = k.client();
    const std::string code = k.started().code, teacher = k.teacher();
    const std::string ann = join(c, code, "ann"), bob = join(c, code, "bob");
    // lesson 4 is not open yet: its exercises cannot be answered
    BOOST_TEST(post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "0.5"}}, as_student(ann)).status == 403);
    BOOST_TEST(post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 1}}, as_teacher(teacher)).status == 200);
    const double a = scaled_s13(c, ann), b = scaled_s13(c, bob);
    BOOST_TEST(std::abs(a - b) > 0.02);  // their own numbers, not one answer for the class
    const reply right = post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", fmt::format("{:.5f}", a)}}, as_student(ann));
    BOOST_TEST(right.status == 200);
    BOOST_TEST(right.body["correct"] == true);
    BOOST_TEST(right.body["student"] == "ann");
    BOOST_TEST(answers_on_disk(k.started().database).size() == 1u);  // there when the verdict came
    // bob gives ann's answer: wrong on his numbers; then his raw score, a named mistake
    BOOST_TEST(post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", fmt::format("{:.5f}", a)}}, as_student(bob)).body["correct"] == false);
    const reply unscaled = post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", fmt::format("{:.5f}", 2 * b)}}, as_student(bob));
    BOOST_TEST(unscaled.body["correct"] == false);
    BOOST_REQUIRE(unscaled.body["mistakes"].size() == 1u);
    BOOST_TEST(unscaled.body["mistakes"][0]["id"] == "no_scale");
    BOOST_TEST(unscaled.body["expected"].is_null());  // a wrong answer does not give the right one away
    const reply unreadable = post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "a quarter"}}, as_student(bob));
    BOOST_TEST(unreadable.status == 422);
    BOOST_TEST(unreadable.body["error"].get<std::string>().find("is not a number") != std::string::npos);
    const auto rows = answers_on_disk(k.started().database);
    BOOST_REQUIRE(rows.size() == 4u);
    BOOST_TEST((rows[3] == std::vector<std::string>{"bob", "4.1", "a quarter", "unreadable"}));
    BOOST_TEST((rows[2] == std::vector<std::string>{"bob", "4.1", fmt::format("{:.5f}", 2 * b), "wrong"}));
    // each sees only their own
    const reply mine = get(c, "/api/class/exercises", as_student(ann));
    BOOST_TEST(mine.body["exercises"][0]["answer"] == fmt::format("{:.5f}", a));
    BOOST_TEST(mine.body["exercises"][0]["status"] == "correct");
    BOOST_TEST(mine.body["exercises"][0]["attempts"] == 1);
}

BOOST_AUTO_TEST_CASE(the_teachers_pages_need_the_teachers_token_and_solutions_wait_for_release) {
    class_server k;
    auto c = k.client();
    const std::string teacher = k.teacher(), ann = join(c, k.started().code, "ann");
    BOOST_TEST(teacher.size() == 32u);
    BOOST_TEST(get(c, "/api/class/teacher").status == 403);
    BOOST_TEST(get(c, "/api/class/teacher", as_teacher(ann)).status == 403);
    BOOST_TEST(get(c, "/api/class/teacher", {{"X-Qkv-Teacher", std::string(teacher.size(), '0')}}).status == 403);
    BOOST_TEST(get(c, "/api/class/teacher/export?format=csv", as_student(ann)).status == 403);
    BOOST_TEST(post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 1}}, as_student(ann)).status == 403);
    BOOST_TEST(post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 99}}, as_teacher(teacher)).status == 400);
    BOOST_TEST(post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 2}}, as_teacher(teacher)).status == 200);
    const reply where = get(c, "/api/class/state", as_student(ann));
    BOOST_TEST(where.body["lesson"] == 4);
    BOOST_TEST(where.body["stage"] == 2);
    BOOST_TEST(post(c, "/api/class/solution", {{"id", "4.1"}}, as_student(ann)).status == 403);
    const reply hint = post(c, "/api/class/hint", {{"id", "4.1"}}, as_student(ann));
    BOOST_TEST(hint.body["shown"].size() == 1u);
    BOOST_TEST(post(c, "/api/class/hint", {{"id", "4.1"}}, as_student(ann)).body["shown"].size() == 2u);
    BOOST_TEST(get(c, "/api/class/exercises", as_student(ann)).body["exercises"][0]["hints_seen"] == 2);
    BOOST_TEST(post(c, "/api/class/teacher/question", {{"id", "4.1"}, {"released", true}}, as_teacher(teacher)).status == 200);
    const reply solution = post(c, "/api/class/solution", {{"id", "4.1"}}, as_student(ann));
    BOOST_TEST(solution.status == 200);
    BOOST_TEST(std::abs(solution.body["expected"]["data"].get<double>() - scaled_s13(c, ann)) < 1e-4);
    BOOST_TEST(post(c, "/api/class/teacher/question", {{"id", "4.1"}, {"closed", true}}, as_teacher(teacher)).body["closed"] == true);
    BOOST_TEST(post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "1"}}, as_student(ann)).status == 409);
    BOOST_TEST(answers_on_disk(k.started().database).empty());
}

BOOST_AUTO_TEST_CASE(the_teachers_figures_are_what_qkv_grade_reports_on_the_export) {
    class_server k;
    auto c = k.client();
    const std::string code = k.started().code, teacher = k.teacher();
    post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 1}}, as_teacher(teacher));
    const std::string names[] = {"ann", "bob", "<script>alert(1)</script>", "=1+2", "dan"};
    for (const std::string& name : names) {
        const std::string t = join(c, code, name);
        const double right = scaled_s13(c, t);
        const std::string given = name == "ann" ? fmt::format("{:.5f}", right)
                                : name == "bob" || name == "=1+2" ? fmt::format("{:.5f}", 2 * right)  // no_scale
                                : name == "dan" ? "1/0.0" : "12345";
        post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", given}}, as_student(t));
        post(c, "/api/class/answer", {{"id", "4.4"}, {"answer", "b"}}, as_student(t));
    }
    const reply room = get(c, "/api/class/teacher", as_teacher(teacher));
    BOOST_REQUIRE(room.status == 200);
    BOOST_TEST(room.body["students"].size() == 5u);
    BOOST_TEST(room.body["students"][2]["name"] == "<script>alert(1)</script>");  // JSON carries it as text
    const qkv::test::scratch_dir out("class-export");
    const auto exported = run_qkv({"serve", "--class", "t", "--export", out.path.string()}, "",
                                  {{"XDG_STATE_HOME", (k.dir / "state").string()}});
    // the export command finds classes under XDG_STATE_HOME; this one's database is in the scratch
    // folder, so it is exported in-process, as the command does it
    BOOST_TEST(exported.status == 2);  // no class 't' under that state folder: nothing written
    BOOST_TEST(!fs::exists(out / "sheets"));
    qkv::serve::export_class(qkv::serve::class_options{"t", k.started().database, "", 30}, out.path.string(), qkv::lang::en);
    const auto graded = run_qkv({"grade", "--assignment", (out / "assignment.toml").string(), (out / "sheets").string(), "--format", "json"});
    BOOST_REQUIRE_MESSAGE(graded.status == 1, graded.err);  // not everyone is right
    const json g = json::parse(graded.out);
    BOOST_REQUIRE(g["questions"].size() == room.body["questions"].size());
    for (std::size_t q = 0; q < g["questions"].size(); ++q) {
        const json& a = g["questions"][q];
        const json& b = room.body["questions"][q];
        BOOST_TEST_CONTEXT(a["id"]) {
            BOOST_TEST(a["id"] == b["id"]);
            BOOST_TEST(a["right"] == b["right"]);
            BOOST_TEST(a["answered"] == b["answered"]);
            BOOST_TEST(a["students"] == b["students"]);
            BOOST_REQUIRE(a["mistakes"].size() == b["mistakes"].size());
            for (std::size_t m = 0; m < a["mistakes"].size(); ++m) {
                BOOST_TEST(a["mistakes"][m]["id"] == b["mistakes"][m]["id"]);
                BOOST_TEST(a["mistakes"][m]["sheets"] == b["mistakes"][m]["sheets"]);
            }
        }
    }
    const json& q41 = room.body["questions"][0];
    BOOST_TEST(q41["id"] == "4.1");
    BOOST_TEST(q41["right"] == 1);
    BOOST_TEST(q41["answered"] == 5);
    BOOST_TEST(q41["mistakes"][0]["id"] == "no_scale");
    BOOST_TEST(q41["mistakes"][0]["sheets"] == 2);
    // the CSV quotes a name a spreadsheet would run as a formula, in the export and over HTTP alike
    auto csv = c.Get("/api/class/teacher/export?format=csv", as_teacher(teacher));
    BOOST_REQUIRE(csv);
    BOOST_TEST(csv->body.find("\n\"'=1+2\",") != std::string::npos);
    BOOST_TEST(csv->body.find("\n=1+2") == std::string::npos);
    BOOST_TEST(qkv::test::read_file(out / "class.csv").find("\n\"'=1+2\",") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_student_is_held_to_the_answers_a_minute) {
    class_server k(3);
    auto c = k.client();
    post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 1}}, as_teacher(k.teacher()));
    const std::string ann = join(c, k.started().code, "ann"), bob = join(c, k.started().code, "bob");
    for (int i = 0; i < 3; ++i) BOOST_TEST(post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "1"}}, as_student(ann)).status == 200);
    const reply over = post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "2"}}, as_student(ann));
    BOOST_TEST(over.status == 429);
    BOOST_TEST(over.body["error"].get<std::string>().find("3 answers") != std::string::npos);
    BOOST_TEST(post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "1"}}, as_student(bob)).status == 200);  // bob's own count
    BOOST_TEST(answers_on_disk(k.started().database).size() == 4u);
}

BOOST_AUTO_TEST_CASE(a_class_killed_with_sigkill_resumes_whole) {
    const qkv::test::scratch_dir state("class-state");
    const auto start = [&](std::string& said) {
        int out[2];
        BOOST_REQUIRE(pipe(out) == 0);
        const pid_t pid = fork();
        if (pid == 0) {
            dup2(out[1], 1), dup2(out[1], 2), close(out[0]), close(out[1]);
            setenv("XDG_STATE_HOME", state.path.c_str(), 1);
            const char* bin = std::getenv("QKV_BIN");
            execl(bin, bin, "serve", "--class", "k", "--port", "0", static_cast<char*>(nullptr));
            _exit(127);
        }
        close(out[1]);
        char buf[4096];
        while (said.find("class/teacher#t=") == std::string::npos || said.find('\n', said.find("#t=")) == std::string::npos) {
            const ssize_t n = read(out[0], buf, sizeof buf);
            if (n <= 0) break;
            said.append(buf, static_cast<std::size_t>(n));
        }
        close(out[0]);
        return pid;
    };
    const auto after = [](const std::string& said, const std::string& key, std::size_t n) { return said.substr(said.find(key) + key.size(), n); };
    std::string first;
    const pid_t one = start(first);
    const int port = std::stoi(after(first, "127.0.0.1:", 5));
    const std::string code = after(first, "?code=", 6), teacher = after(first, "#t=", 32);
    const std::string link = first.substr(first.find("http://", first.find("join at")), first.find("  (code") - first.find("http://", first.find("join at")));
    BOOST_TEST(link == fmt::format("http://127.0.0.1:{}/class?code={}", port, code));
    BOOST_TEST(drawn_qr(first) == qr_modules(link));  // the picture is the join link's QR code
    httplib::Client c("127.0.0.1", port);
    post(c, "/api/class/teacher/move", {{"lesson", 4}, {"stage", 3}}, as_teacher(teacher));
    const std::string ann = join(c, code, "ann");
    BOOST_TEST(post(c, "/api/class/answer", {{"id", "4.1"}, {"answer", "12345"}}, as_student(ann)).status == 200);
    const json before = get(c, "/api/class/teacher", as_teacher(teacher)).body;
    kill(one, SIGKILL);
    int status = 0;
    waitpid(one, &status, 0);
    std::string second;
    const pid_t two = start(second);
    BOOST_TEST(second.find("resumed (1 students, 1 answers)") != std::string::npos);
    BOOST_TEST(after(second, "?code=", 6) == code);
    BOOST_TEST(after(second, "#t=", 32) == teacher);
    httplib::Client again("127.0.0.1", std::stoi(after(second, "127.0.0.1:", 5)));
    const reply where = get(again, "/api/class/state", as_student(ann));  // a reload goes on where it was
    BOOST_TEST(where.status == 200);
    BOOST_TEST(where.body["stage"] == 3);
    json now = get(again, "/api/class/teacher", as_teacher(teacher)).body;
    BOOST_TEST(now["join"] != before["join"]);  // a new port
    now.erase("join");
    json was = before;
    was.erase("join");
    BOOST_TEST(now == was);
    kill(two, SIGTERM);
    waitpid(two, &status, 0);
    BOOST_TEST(WIFEXITED(status));
}
