// The class's routes (class_routes.hpp).
#include "class_routes.hpp"

#include <fmt/format.h>

#include "qkv/report_grade.hpp"
#include "handler.hpp"
#include "lesson_requests.hpp"
#include "web_assets.hpp"

namespace qkv::serve {
namespace {

// A body is a flat object ({"id": "4.1", "answer": "…"}): nesting deeper than this is refused before
// it is parsed, so no body makes the parser or its values' destructors recurse far.
constexpr int max_nesting = 4;

nlohmann::json body_of(const httplib::Request& req) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (char c : req.body) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
        } else if (c == '"') in_string = true;
        else if ((c == '{' || c == '[') && ++depth > max_nesting) throw http_error{400, said("the JSON body nests too deep")};
        else if (c == '}' || c == ']') --depth;
    }
    nlohmann::json j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw http_error{400, said("the body is not a JSON object")};
    return j;
}

class_student student(class_room& room, const httplib::Request& req) {
    const std::string token = req.get_header_value("X-Qkv-Student");
    if (token.empty()) throw http_error{401, said("join the class first (POST /api/class/join); send its token as X-Qkv-Student")};
    std::optional<class_student> s = room.student_of(token);
    if (!s) throw http_error{401, said("no student of this class has that token: join again")};
    return *s;
}

void teacher(class_room& room, const httplib::Request& req) {
    if (!room.is_teacher(req.get_header_value("X-Qkv-Teacher")))
        throw http_error{403, said("the teacher's pages need the teacher's token (the terminal that started the class shows it)")};
}

void class_page(httplib::Response& res) {
    for (const web_asset& a : web_assets())
        if (a.path == "/assets/class.html") {
            res.set_header("Content-Security-Policy", page_policy);
            return res.set_content(std::string(a.body), std::string(a.type));
        }
    throw http_error{404, said("the class's page is not in this program")};
}

}  // namespace

void add_class_routes(httplib::Server& http, class_room& room, const options& o, std::function<std::string()> join_link) {
    class_room* r = &room;
    const options* opt = &o;
    for (const char* path : {"/class", "/class/teacher", "/class/present"})
        http.Get(path, guarded(o.language, [](const httplib::Request&, httplib::Response& res) { class_page(res); }));

    http.Post("/api/class/join", guarded(o.language, [r](const httplib::Request& req, httplib::Response& res) {
        res.status = 201;
        res.set_content(r->join(body_of(req)), json_type);
    }));
    http.Get("/api/class/state", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        const lang l = language_of(req.params, *opt);
        if (req.has_header("X-Qkv-Teacher")) {
            teacher(*r, req);
            return res.set_content(r->state(nullptr, l), json_type);
        }
        const class_student s = student(*r, req);
        res.set_content(r->state(&s, l), json_type);
    }));
    http.Get("/api/class/exercises", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        res.set_content(r->exercises(student(*r, req), language_of(req.params, *opt)), json_type);
    }));
    http.Post("/api/class/answer", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        const class_student s = student(*r, req);
        res.set_content(r->answer(s, body_of(req), language_of(req.params, *opt)), json_type);
    }));
    http.Post("/api/class/hint", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        const class_student s = student(*r, req);
        res.set_content(r->hint(s, body_of(req), language_of(req.params, *opt)), json_type);
    }));
    http.Post("/api/class/solution", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        const class_student s = student(*r, req);
        res.set_content(r->solution(s, body_of(req), language_of(req.params, *opt)), json_type);
    }));

    http.Get("/api/class/teacher", guarded(o.language, [r, opt, join_link](const httplib::Request& req, httplib::Response& res) {
        teacher(*r, req);
        res.set_content(r->teacher_view(language_of(req.params, *opt), join_link()), json_type);
    }));
    http.Post("/api/class/teacher/move", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        teacher(*r, req);
        res.set_content(r->move(body_of(req), language_of(req.params, *opt)), json_type);
    }));
    http.Post("/api/class/teacher/question", guarded(o.language, [r](const httplib::Request& req, httplib::Response& res) {
        teacher(*r, req);
        res.set_content(r->question(body_of(req)), json_type);
    }));
    http.Get("/api/class/teacher/export", guarded(o.language, [r, opt](const httplib::Request& req, httplib::Response& res) {
        teacher(*r, req);
        const std::string form = param(req.params, "format", "json");
        if (form != "json" && form != "csv") throw http_error{400, said("format=json or format=csv")};
        render_options ro;
        ro.language = language_of(req.params, *opt);
        const graded_class c = r->graded(ro.language);
        res.set_header("Content-Disposition", fmt::format("attachment; filename=\"{}.{}\"", r->name(), form));
        res.set_content(grade_report(c, form == "csv" ? format::csv : format::json, ro),
                        form == "csv" ? "text/csv; charset=utf-8" : json_type);
    }));
}

}  // namespace qkv::serve
