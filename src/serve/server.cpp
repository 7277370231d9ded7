// The server: cpp-httplib's, with the routes of the HTTP API and the page, the limits of
// serve::limits, and one JSON error line for everything refused. Requests run lessons on the
// pool's threads; training runs on threads of their own (training_runs).
#include "qkv/serve.hpp"

#include <chrono>
#include <exception>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "qkv/error.hpp"
#include "qkv/kernels.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_json.hpp"
#include "qkv/sentence.hpp"
#include "class_routes.hpp"
#include "handler.hpp"
#include "lesson_requests.hpp"
#include "page_words.hpp"
#include "training_runs.hpp"
#include "web_assets.hpp"

namespace qkv::serve {

// Requests per visitor per minute, counted in whole minutes (a member of server::impl, so not in
// the anonymous namespace).
class rate_meter {
public:
    explicit rate_meter(std::size_t per_minute) : per_minute_(per_minute) {}
    bool admit(const std::string& visitor) {
        const auto minute = std::chrono::duration_cast<std::chrono::minutes>(std::chrono::steady_clock::now().time_since_epoch()).count();
        const std::lock_guard<std::mutex> hold(m_);
        if (minute != minute_) counts_.clear(), minute_ = minute;
        return ++counts_[visitor] <= per_minute_;
    }

private:
    std::size_t per_minute_;
    std::mutex m_;
    long long minute_ = -1;
    std::unordered_map<std::string, std::size_t> counts_;
};

namespace {

const web_asset* asset_at(std::string_view path) {
    for (const web_asset& a : web_assets())
        if (a.path == path) return &a;
    return nullptr;
}

}  // namespace

struct server::impl {
    options o;
    httplib::Server http;
    rate_meter rate;
    training_runs runs;
    std::unique_ptr<class_room> room;  // with --class
    int port = 0;

    explicit impl(options given) : o(std::move(given)), rate(o.limit.requests_per_minute), runs(o.limit) {
        kernels::keep_draws(std::size_t{64} << 20);  // a lesson's fixed random inputs, drawn once (lesson 4: 1.2 M samples)
        if (o.klass) room = std::make_unique<class_room>(*o.klass, o.language);
    }

    // http://HOST:PORT: the address given, or for every network (0.0.0.0) the one students are told.
    std::string address(const std::string& host) const {
        return fmt::format("http://{}:{}", host.find(':') != std::string::npos ? "[" + host + "]" : host, port);
    }
    std::string join_link() const {
        const std::string& host = o.klass && !o.klass->join_host.empty() ? o.klass->join_host : o.host;
        return address(host) + "/class?code=" + room->code();
    }

    void page(httplib::Response& res) {
        const web_asset* a = asset_at("/");
        res.set_header("Content-Security-Policy", page_policy);
        res.set_content(std::string(a->body), std::string(a->type));
    }

    void routes() {
        http.set_payload_max_length(o.limit.body_bytes);
        http.set_read_timeout(o.limit.read_timeout_seconds, 0);
        http.set_write_timeout(o.limit.read_timeout_seconds, 0);
        http.set_keep_alive_timeout(2);
        const std::size_t threads = o.limit.connections;
        http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
        http.set_default_headers({{"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"},
                                  {"Cache-Control", "no-store"}});
        http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
            if (rate.admit(req.remote_addr)) return httplib::Server::HandlerResponse::Unhandled;
            send_error(res, 429, said("more than {} requests a minute from {}; wait a minute", o.limit.requests_per_minute, req.remote_addr)
                                     .in(reply_language(req, o.language)));
            return httplib::Server::HandlerResponse::Handled;
        });
        http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
            if (!res.body.empty()) return;
            const lang l = reply_language(req, o.language);
            send_error(res, res.status, res.status == 404 ? tr(l, "no such page: / lists the lessons")
                                        : res.status == 413 ? tr(l, "the request is larger than this server takes")
                                        : res.status == 414 ? tr(l, "the address is longer than this server takes (8 KiB)")
                                        : res.status == 400 ? tr(l, "the request is not well-formed HTTP (a POST says Content-Length, 0 too)")
                                                            : said("the request was refused ({})", res.status).in(l));
        });

        // the page: one document, which reads the rest of its address itself
        for (const char* path : {"/", R"(/lesson/\d{1,4})", R"(/present/\d{1,4})", "/train"})
            http.Get(path, guarded(o.language, [this](const httplib::Request&, httplib::Response& res) { page(res); }));
        if (room) add_class_routes(http, *room, o, [this] { return join_link(); });
        http.Get(R"(/assets/[A-Za-z0-9_.-]{1,64})", guarded(o.language, [](const httplib::Request& req, httplib::Response& res) {
            // the lessons' own style sheet is the HTML handout's, one for both
            if (req.path == "/assets/lesson.css") return res.set_content(std::string(html_style()), "text/css; charset=utf-8");
            const web_asset* a = asset_at(req.path);
            if (!a || a->path == "/" || a->path.ends_with(".html")) throw http_error{404, said("no such file among the page's")};
            res.set_content(std::string(a->body), std::string(a->type));
        }));

        http.Get("/api/lessons", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            res.set_content(lessons_json(req.params, o), json_type);
        }));
        http.Get(R"(/api/lesson/([^/]{1,8}))", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            res.set_content(lesson_json(req.matches[1], req.params, o), json_type);
        }));
        http.Get("/api/cell", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            res.set_content(cell_json(req.params, o), json_type);
        }));
        http.Get("/api/scenarios", guarded(o.language, [this](const httplib::Request&, httplib::Response& res) {
            res.set_content(scenarios_json(o), json_type);
        }));
        http.Get("/api/words", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            res.set_content(page_words_json(language_of(req.params, o)), json_type);
        }));
        http.Get("/api/colours", guarded(o.language, [](const httplib::Request&, httplib::Response& res) {
            res.set_content(colours_json(), json_type);
        }));
        http.Post("/api/train", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            res.status = 201;
            res.set_content(runs.start(req.params, req.remote_addr, language_of(req.params, o)), json_type);
        }));
        http.Post(R"(/api/train/(\d{1,9})/stop)", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            runs.stop(req.matches[1], req.remote_addr);
            res.set_content("{\"stopping\": true}\n", json_type);
        }));
        http.Get(R"(/api/train/(\d{1,9})/events)", guarded(o.language, [this](const httplib::Request& req, httplib::Response& res) {
            std::shared_ptr<training_run> r = runs.find(req.matches[1]);
            auto sent = std::make_shared<std::size_t>(0);
            res.set_header("X-Accel-Buffering", "no");
            res.set_chunked_content_provider("text/event-stream", [r, sent](std::size_t, httplib::DataSink& sink) {
                std::unique_lock<std::mutex> hold(r->m);
                r->more.wait_for(hold, std::chrono::seconds(1), [&] { return *sent < r->events.size() || r->finished; });
                std::vector<std::string> news(r->events.begin() + static_cast<long>(*sent), r->events.end());
                *sent = r->events.size();
                const bool end = r->finished;
                hold.unlock();
                if (news.empty() && !end) return sink.write(": waiting\n\n", 11);  // a comment: is the reader still there?
                for (const std::string& e : news)
                    if (!sink.write(e.data(), e.size())) return false;
                if (end) sink.done();
                return true;
            });
        }));
    }
};

server::server(options o) : p_(std::make_unique<impl>(std::move(o))) { p_->routes(); }
server::~server() = default;

void server::bind() {
    if (p_->o.port == 0) p_->port = p_->http.bind_to_any_port(p_->o.host);
    else p_->port = p_->http.bind_to_port(p_->o.host, p_->o.port) ? p_->o.port : -1;
    if (p_->port <= 0)
        throw input_error(said("cannot listen on {}:{}: the address is not this machine's, or the port is taken", p_->o.host, p_->o.port));
}

int server::port() const { return p_->port; }

std::optional<class_started> server::started_class() const {
    if (!p_->room) return std::nullopt;
    class_room& r = *p_->room;
    const std::string local = p_->o.host == "0.0.0.0" ? "127.0.0.1" : p_->o.host;
    return class_started{r.name(), p_->o.klass->database, r.code(), p_->join_link(),
                         p_->address(local) + "/class/teacher#t=" + r.teacher_token(), r.resumed(), r.student_count(), r.answer_count()};
}

void server::run() { p_->http.listen_after_bind(); }

void server::stop() {
    p_->runs.stop_all();
    p_->http.stop();
}

}  // namespace qkv::serve
