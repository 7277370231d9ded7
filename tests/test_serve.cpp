// qkv serve, in-process and as the real program: the HTTP API answers with the engine's own
// numbers (held to the terminal's JSON trace, and the cells' terms to sums and softmaxes worked
// here by hand from that trace), refuses bad requests with a 4xx and one JSON error line while it
// goes on serving, reads no file a request names, escapes what it shows, and stops on SIGTERM.
#define BOOST_TEST_MODULE serve
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <chrono>
#include <cmath>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "qkv/lesson.hpp"
#include "qkv/serve.hpp"
#include "support/run_qkv.hpp"

using nlohmann::json;
using qkv::test::run_qkv;

namespace {

// A server on a free port of 127.0.0.1, serving on a thread of its own while the test runs.
struct running_server {
    qkv::serve::server s;
    std::thread t;
    explicit running_server(qkv::serve::options o = {}) : s(with_any_port(std::move(o))) {
        s.bind();
        t = std::thread([this] { s.run(); });
    }
    ~running_server() {
        s.stop();
        t.join();
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", s.port());
        c.set_read_timeout(120, 0);  // lesson 18 trains a model on its first run
        return c;
    }
    static qkv::serve::options with_any_port(qkv::serve::options o) {
        o.port = 0;
        o.data = {{"apple", qkv::data_dir() + "/apple.toml"}, {"induction", qkv::data_dir() + "/induction.toml"}};
        return o;
    }
};

json get_json(httplib::Client& c, const std::string& path, int status = 200) {
    auto res = c.Get(path);
    BOOST_REQUIRE_MESSAGE(res, "no answer to " << path);
    BOOST_TEST_CONTEXT(path.substr(0, 120) << " → " << res->status << " " << res->body.substr(0, 200)) {
        BOOST_TEST(res->status == status);
        BOOST_TEST(res->get_header_value("Content-Type").starts_with("application/json"));
    }
    return json::parse(res->body);
}

json cli_trace(const std::vector<std::string>& args) {
    const auto r = run_qkv(args);
    BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
    return json::parse(r.out);
}

// The value `name` of the trace, and the index of the first stage that shows it.
std::pair<json, int> value_of(const json& trace, const std::string& name) {
    for (const json& s : trace["stages"])
        for (const json& v : s["values"])
            if (v["name"] == name) return {v, s["index"].get<int>()};
    BOOST_FAIL("the trace shows no " << name);
    return {};
}

// A query's value percent-encoded, every byte but letters and digits (as a browser's form would).
std::string query_escaped(const std::string& text) {
    std::string out;
    for (unsigned char c : text) out += std::isalnum(c) ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
    return out;
}

// Two traces alike: every word the same, every number within a few float ulps. The test runs the
// server in its own process, whose OpenBLAS may split a product otherwise than qkv's does (qkv
// stops its idle workers): the last bit of a float may differ, and no word hinges on it.
bool same_trace(const json& a, const json& b, const std::string& at = "") {
    if (a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        if (std::abs(x - y) <= 1e-6 * std::max(1.0, std::abs(y))) return true;
        BOOST_TEST_MESSAGE(at << ": " << x << " and " << y);
        return false;
    }
    if (a.type() != b.type() || a.size() != b.size()) {
        BOOST_TEST_MESSAGE(at << ": " << a.dump().substr(0, 80) << " and " << b.dump().substr(0, 80));
        return false;
    }
    if (a.is_object()) {
        for (auto it = a.begin(); it != a.end(); ++it)
            if (!b.contains(it.key()) || !same_trace(it.value(), b[it.key()], at + "." + it.key())) return false;
        return true;
    }
    if (a.is_array()) {
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!same_trace(a[i], b[i], at + "[" + std::to_string(i) + "]")) return false;
        return true;
    }
    return a == b;
}

double number(const json& x) {
    if (x.is_string()) return x == "-inf" ? -INFINITY : x == "inf" ? INFINITY : NAN;
    return x.get<double>();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_lesson_is_the_terminals_trace) {
    running_server srv;
    auto c = srv.client();
    const json served = get_json(c, "/api/lesson/3?format=json&lang=zh");
    const json terminal = cli_trace({"lesson", "3", "--format", "json", "--lang", "zh"});
    BOOST_TEST(same_trace(served, terminal));  // the same engine, the same numbers, the same words
    // the page form: every stage, its HTML from the renderer, and the heading the terminal prints
    const json page = get_json(c, "/api/lesson/3?lang=en");
    BOOST_TEST(page["stages"].size() == terminal["stages"].size());
    BOOST_TEST(page["heading"].get<std::string>().starts_with("Lesson 3"));
    BOOST_TEST(page["stages"][0]["html"].get<std::string>().find("<section class=\"stage\"") != std::string::npos);
    // stage=K: that stage's HTML, the same as the whole page's, and no other stage's
    const json one = get_json(c, "/api/lesson/3?lang=en&stage=2");
    BOOST_TEST(one["stages"].size() == page["stages"].size());
    for (std::size_t k = 0; k < one["stages"].size(); ++k)
        BOOST_TEST((k == 1 ? one["stages"][k]["html"] == page["stages"][k]["html"] : one["stages"][k]["html"].is_null()));
    get_json(c, fmt::format("/api/lesson/3?stage={}", page["stages"].size() + 1), 400);
}

BOOST_AUTO_TEST_CASE(a_product_cell_is_the_sum_of_its_products) {
    running_server srv;
    auto c = srv.client();
    const json trace = cli_trace({"lesson", "3", "--format", "json"});
    const auto [S, stage] = value_of(trace, "S");
    const json Q = value_of(trace, "Q").first, K = value_of(trace, "K").first;
    const json cell = get_json(c, fmt::format("/api/cell?lesson=3&stage={}&name=S&i=2&j=3", stage));
    BOOST_TEST(cell["op"] == "product");
    BOOST_TEST(cell["row_label"] == trace["stages"][0]["values"][0]["row_labels"][1]);
    // S[2, 3] = q_2 · k_3, worked here from the trace's Q and K
    double by_hand = 0;
    const std::size_t d = Q["data"][1].size();
    BOOST_TEST(cell["terms"]["products"].size() == d);
    for (std::size_t t = 0; t < d; ++t) {
        const double q = Q["data"][1][t].get<double>(), k = K["data"][2][t].get<double>();
        BOOST_TEST(cell["terms"]["a"][t].get<double>() == q);
        BOOST_TEST(cell["terms"]["b"][t].get<double>() == k);
        by_hand += q * k;
    }
    // float products summed by BLAS in another order: a few float ulps of the sum's size
    BOOST_TEST(cell["terms"]["sum"].get<double>() == by_hand, boost::test_tools::tolerance(1e-6));
    BOOST_TEST(cell["cell"].get<double>() == S["data"][1][2].get<double>());
    BOOST_TEST(std::abs(cell["cell"].get<double>() - by_hand) < 1e-5);
    BOOST_TEST(cell["lines"].size() >= 3u);
}

BOOST_AUTO_TEST_CASE(a_softmax_cell_and_a_masked_one) {
    running_server srv;
    auto c = srv.client();
    const json trace = cli_trace({"lesson", "7", "--format", "json"});
    const auto [A, stage] = value_of(trace, "A_causal");
    const json S = value_of(trace, "S_masked").first;
    // row 3 sees keys 1–3: A[3, 2] = exp(s_32 − max) / Σ_j exp(s_3j − max), worked here
    const json cell = get_json(c, fmt::format("/api/cell?lesson=7&stage={}&name=A_causal&i=3&j=2", stage));
    BOOST_TEST(cell["op"] == "softmax");
    double top = -INFINITY, sum = 0;
    for (const json& s : S["data"][2]) top = std::max(top, number(s));
    for (const json& s : S["data"][2]) sum += std::isinf(number(s)) ? 0 : std::exp(number(s) - top);
    const double by_hand = std::exp(number(S["data"][2][1]) - top) / sum;
    BOOST_TEST(cell["terms"]["quotient"].get<double>() == by_hand, boost::test_tools::tolerance(1e-6));
    BOOST_TEST(cell["cell"].get<double>() == A["data"][2][1].get<double>(), boost::test_tools::tolerance(1e-6));
    // above the diagonal: −∞ in, nothing out, and the lines say it was masked
    const json masked = get_json(c, fmt::format("/api/cell?lesson=7&stage={}&name=A_causal&i=1&j=3", stage));
    BOOST_TEST(masked["cell"].get<double>() == 0.0);
    BOOST_TEST(masked["terms"]["row"][2] == "-inf");
    const auto [M, mask_stage] = value_of(trace, "M");
    const json m = get_json(c, fmt::format("/api/cell?lesson=7&stage={}&name=M&i=1&j=2", mask_stage));
    BOOST_TEST(m["op"] == "mask");
    BOOST_TEST(number(M["data"][0][1]) == -INFINITY);
    // X is the scenario's: no formula made it
    const json x = get_json(c, fmt::format("/api/cell?lesson=7&stage=1&name=X&i=1&j=1"));
    BOOST_TEST(x["op"] == "given");
}

namespace {

// The first stage of a terminal trace whose built-in recorded steps, and a step's recorded value.
int first_stage_with_steps(const json& trace) {
    for (const json& s : trace["stages"])
        if (s.contains("steps")) return s["index"];
    BOOST_FAIL("no stage records steps");
    return 0;
}

json recorded_in(const json& step, const std::string& name) {
    for (const json& v : step["values"])
        if (v["name"] == name) return v["data"];
    BOOST_FAIL("no " << name);
    return json();
}

}  // namespace

// The tiled softmax's running statistics, held to its recurrence worked here from the recorded
// S_j, m and l of the terminal's trace: m = max(m before, the block row's largest score), l =
// rescale · l before + Σ exp(S_j − m).
BOOST_AUTO_TEST_CASE(a_recorded_step_is_explained_by_its_recurrence) {
    running_server srv;
    auto c = srv.client();
    const json trace = cli_trace({"lesson", "13", "--format", "json"});
    const int stage = first_stage_with_steps(trace);
    const json& steps = trace["stages"][stage - 1]["steps"];
    BOOST_REQUIRE(steps.size() >= 2u);
    auto recorded = [&](std::size_t k, const std::string& name) { return recorded_in(steps[k], name); };
    const std::size_t i = 1;  // row 2, the second step
    const json S = recorded(1, "S_j");
    double block_max = -INFINITY, sum = 0;
    for (const json& x : S[i]) block_max = std::max(block_max, number(x));
    const double m_before = number(recorded(0, "m")[i][0]), m = number(recorded(1, "m")[i][0]);
    BOOST_TEST(m == std::max(m_before, block_max));
    for (const json& x : S[i]) sum += std::exp(number(x) - m);
    const double l_by_hand = std::exp(m_before - m) * number(recorded(0, "l")[i][0]) + sum;
    const json cm = get_json(c, fmt::format("/api/cell?lesson=13&stage={}&step=2&name=m&i=2&j=1", stage));
    BOOST_TEST(cm["op"] == "running_max");
    BOOST_TEST(cm["cell"].get<double>() == m, boost::test_tools::tolerance(1e-6));
    BOOST_TEST(cm["before"].get<double>() == m_before, boost::test_tools::tolerance(1e-6));
    const json cl = get_json(c, fmt::format("/api/cell?lesson=13&stage={}&step=2&name=l&i=2&j=1", stage));
    BOOST_TEST(cl["op"] == "running_sum");
    BOOST_TEST(cl["cell"].get<double>() == l_by_hand, boost::test_tools::tolerance(1e-5));
    get_json(c, fmt::format("/api/cell?lesson=13&stage={}&step=99&name=l&i=2&j=1", stage), 400);
}

// A KV-cache step's weights and output, held to the step's own recorded numbers worked here: s_t =
// q_t K_cacheᵀ / √d_k, a_t = softmax(s_t), z_t = a_t V_cache.
BOOST_AUTO_TEST_CASE(a_kv_cache_step_is_explained_by_its_softmax_and_its_product) {
    running_server srv;
    auto c = srv.client();
    const json trace = cli_trace({"lesson", "9", "--format", "json"});
    const int stage = first_stage_with_steps(trace);
    const json& steps = trace["stages"][stage - 1]["steps"];
    BOOST_REQUIRE(steps.size() >= 3u);
    auto recorded = [&](const std::string& name) { return recorded_in(steps[2], name); };
    const json q = recorded("q_t"), K = recorded("K_cache"), V = recorded("V_cache"), a = recorded("a_t"), z = recorded("z_t");
    const std::size_t t = K.size(), d_k = K[0].size();
    BOOST_REQUIRE(t == 3u);
    std::vector<double> s(t), e(t);
    double top = -INFINITY, sum = 0;
    for (std::size_t j = 0; j < t; ++j) {
        for (std::size_t k = 0; k < d_k; ++k) s[j] += number(q[0][k]) * number(K[j][k]);
        s[j] /= std::sqrt(double(d_k));
        top = std::max(top, s[j]);
    }
    for (std::size_t j = 0; j < t; ++j) sum += e[j] = std::exp(s[j] - top);
    const json w = get_json(c, fmt::format("/api/cell?lesson=9&stage={}&step=3&name=a_t&i=1&j=2", stage));
    BOOST_TEST(w["op"] == "softmax");
    // the scores are float products as the engine made them; the hand sums are in double
    for (std::size_t j = 0; j < t; ++j) BOOST_TEST(w["terms"]["row"][j].get<double>() == s[j], boost::test_tools::tolerance(1e-5));
    BOOST_TEST(w["terms"]["quotient"].get<double>() == e[1] / sum, boost::test_tools::tolerance(1e-5));
    BOOST_TEST(w["cell"].get<double>() == number(a[0][1]), boost::test_tools::tolerance(1e-6));
    BOOST_TEST(w["terms"]["quotient"].get<double>() == number(a[0][1]), boost::test_tools::tolerance(1e-5));
    double z_by_hand = 0;
    for (std::size_t k = 0; k < t; ++k) z_by_hand += number(a[0][k]) * number(V[k][0]);
    const json o = get_json(c, fmt::format("/api/cell?lesson=9&stage={}&step=3&name=z_t&i=1&j=1", stage));
    BOOST_TEST(o["op"] == "product");
    BOOST_TEST(o["terms"]["sum"].get<double>() == z_by_hand, boost::test_tools::tolerance(1e-5));
    BOOST_TEST(number(z[0][0]) == z_by_hand, boost::test_tools::tolerance(1e-5));
    BOOST_TEST(o["lines"].size() >= 3u);
}

BOOST_AUTO_TEST_CASE(your_sentence_is_the_terminals_sentence) {
    running_server srv;
    auto c = srv.client();
    const json served = get_json(c, "/api/lesson/4?format=json&tokens=the%20cat%20sat%20on%20the%20mat&seed=7");
    const json terminal = cli_trace({"lesson", "4", "--format", "json", "--tokens", "the cat sat on the mat", "--seed", "7"});
    BOOST_TEST(same_trace(served, terminal));
    const json page = get_json(c, "/api/lesson/4?tokens=the%20cat%20sat%20on%20the%20mat&seed=7");
    BOOST_TEST(page["scenario_file"].get<std::string>().find("tokens = [") != std::string::npos);
    // a named scenario of the server's: the trained model, causal
    const json trained = get_json(c, "/api/lesson/5?format=json&data=induction");
    BOOST_TEST(trained["causal"] == true);
}

BOOST_AUTO_TEST_CASE(bad_requests_get_a_4xx_and_one_json_line_and_the_server_goes_on) {
    running_server srv;
    auto c = srv.client();
    std::string many, more;
    for (int i = 0; i < 10000; ++i) many += "w ";
    for (int i = 0; i < 65; ++i) more += "w ";
    const std::vector<std::pair<std::string, int>> bad = {
        {"/api/lesson/3?tokens=" + query_escaped(many), 414},  // past the address's 8 KiB
        {"/api/lesson/3?tokens=" + query_escaped(more), 413},  // past the 64 tokens
        {"/api/lesson/3?tokens=" + std::string(100, 'x'), 413},  // a token past 64 bytes
        {"/api/lesson/3?tokens=%ff%fe", 400},             // not UTF-8
        {"/api/lesson/3?tokens=a&data=apple", 400},        // two scenarios
        {"/api/lesson/3?data=..%2F..%2Fetc%2Fpasswd", 404},  // a path is no scenario name
        {"/api/lesson/3?data=%2Fetc%2Fpasswd", 404},
        {"/api/lesson/3?lang=fr", 400},
        {"/api/lesson/3?tokens=a%20b&d_model=100000", 400},
        {"/api/lesson/3?tokens=a%20b&heads=3", 400},     // 3 does not divide 4
        {"/api/lesson/99", 404},
        {"/api/lesson/..%2F..%2Fetc", 404},
        {"/api/cell?lesson=3&stage=1&name=Q&i=99&j=1", 400},
        {"/api/cell?lesson=3&stage=1&name=nothing&i=1&j=1", 400},
        {"/api/cell?lesson=3&stage=x&name=Q&i=1&j=1", 400},
        {"/assets/..%2F..%2Fetc%2Fpasswd", 404},
        {"/../../etc/passwd", 404},
        {"/etc/passwd", 404},
        {"/api/train/1/events", 404},
    };
    for (const auto& [path, status] : bad) {
        const json e = get_json(c, path, status);
        BOOST_TEST_CONTEXT(path.substr(0, 120)) {
            BOOST_TEST(e.contains("error"));
            BOOST_TEST(e["error"].get<std::string>().find('\n') == std::string::npos);
            BOOST_TEST(e["error"].get<std::string>().find("root:") == std::string::npos);
        }
    }
    // an over-long header and an over-long body
    auto res = c.Get("/api/lessons", {{"X-Long", std::string(20000, 'x')}});
    BOOST_REQUIRE(res);
    BOOST_TEST(res->status >= 400);
    BOOST_TEST(res->status < 500);
    auto post = c.Post("/api/train", std::string(100000, 'x'), "text/plain");
    BOOST_REQUIRE(post);
    BOOST_TEST(post->status == 413);
    // and it still serves
    BOOST_TEST(get_json(c, "/api/lessons")["lessons"].size() >= 19u);
}

BOOST_AUTO_TEST_CASE(what_a_token_carries_is_shown_as_text) {
    running_server srv;
    auto c = srv.client();
    const json page = get_json(c, "/api/lesson/3?tokens=" + query_escaped("</script> <img/src=x/onerror=alert(1)> a&b"));
    for (const json& s : page["stages"]) {
        const std::string html = s["html"];
        BOOST_TEST(html.find("<img") == std::string::npos);
        BOOST_TEST(html.find("</script>") == std::string::npos);
    }
    BOOST_TEST(page["stages"][0]["html"].get<std::string>().find("&lt;img/src=x/onerror=alert(1)&gt;") != std::string::npos);
    auto res = c.Get("/lesson/3");
    BOOST_REQUIRE(res);
    BOOST_TEST(res->get_header_value("Content-Security-Policy").find("script-src 'self'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_visitor_past_the_rate_is_told_to_wait) {
    qkv::serve::options o;
    o.limit.requests_per_minute = 5;
    running_server srv(o);
    auto c = srv.client();
    for (int i = 0; i < 5; ++i) get_json(c, "/api/scenarios");
    const json e = get_json(c, "/api/scenarios", 429);
    BOOST_TEST(e["error"].get<std::string>().find("a minute") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_slow_client_does_not_hold_up_the_others) {
    running_server srv;
    // slowloris: a connection that sends a header a byte at a time, and never ends it
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(srv.s.port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    BOOST_REQUIRE(write(s, "GET /api/lessons HTTP/1.1\r\nX-Slow: ", 35) == 35);
    auto c = srv.client();
    const auto t0 = std::chrono::steady_clock::now();
    get_json(c, "/api/scenarios");
    BOOST_TEST((std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)));
    // after the read timeout the server has let it go: the next read sees the connection closed
    char buf[256];
    timeval tv{20, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    BOOST_TEST(read(s, buf, sizeof buf) >= 0);
    close(s);
}

BOOST_AUTO_TEST_CASE(a_training_run_streams_and_ends_as_qkv_train_json) {
    running_server srv;
    auto c = srv.client();
    auto started = c.Post("/api/train?steps=60&seed=3&lang=en");
    BOOST_REQUIRE(started);
    BOOST_REQUIRE_MESSAGE(started->status == 201, started->body);
    const json run = json::parse(started->body);
    // one run per visitor at a time
    auto second = c.Post("/api/train?steps=60&seed=3");
    BOOST_REQUIRE(second);
    BOOST_TEST((second->status == 409 || second->status == 201));  // 201 only when the first had ended
    std::string stream;
    auto res = c.Get(run["events"].get<std::string>(), [&](const char* data, std::size_t n) {
        stream.append(data, n);
        return true;
    });
    BOOST_REQUIRE(res);
    BOOST_TEST(stream.find("event: start") != std::string::npos);
    BOOST_TEST(stream.find("event: progress") != std::string::npos);
    BOOST_TEST(stream.find("event: report") != std::string::npos);
    // the first probe is before step 1: its loss is null, not a step that was never taken
    const std::size_t first = stream.find("event: progress\ndata: ");
    BOOST_REQUIRE(first != std::string::npos);
    const std::size_t at = first + 22;
    const json probe0 = json::parse(stream.substr(at, stream.find("\n\n", at) - at));
    BOOST_TEST(probe0["step"].get<int>() == 0);
    BOOST_TEST(probe0["loss"].is_null());
    const std::size_t done = stream.find("event: done\ndata: ");
    BOOST_REQUIRE(done != std::string::npos);
    const std::size_t from = done + 18;
    json served = json::parse(stream.substr(from, stream.find("\n\n", from) - from));
    json terminal = cli_trace({"train", "--steps", "60", "--seed", "3", "--format", "json"});
    served.erase("seconds"), terminal.erase("seconds");
    BOOST_TEST(same_trace(served, terminal));  // the same run, step for step
    auto refused = c.Post("/api/train?steps=999999");
    BOOST_REQUIRE(refused);
    BOOST_TEST(refused->status == 400);
    BOOST_TEST(json::parse(refused->body).contains("error"));
}

BOOST_AUTO_TEST_CASE(sigterm_stops_the_program_cleanly) {
    int out[2];
    BOOST_REQUIRE(pipe(out) == 0);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1), dup2(out[1], 2), close(out[0]), close(out[1]);
        const char* bin = std::getenv("QKV_BIN");
        execl(bin, bin, "serve", "--port", "0", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]);
    std::string said;
    char buf[512];
    while (said.find("(Ctrl-C stops)") == std::string::npos) {
        const ssize_t n = read(out[0], buf, sizeof buf);
        if (n <= 0) break;
        said.append(buf, static_cast<std::size_t>(n));
    }
    BOOST_TEST(said.find("http://127.0.0.1:") != std::string::npos);
    const int port = std::atoi(said.c_str() + said.find("127.0.0.1:") + 10);
    httplib::Client c("127.0.0.1", port);
    auto res = c.Get("/api/scenarios");
    BOOST_REQUIRE(res);
    BOOST_TEST(res->status == 200);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
    close(out[0]);
}
