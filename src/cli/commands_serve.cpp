// `qkv serve`: parses the address, the scenarios a page may run on and the limits, starts the
// server, prints where to open it, and serves until Ctrl-C or SIGTERM, which stop it cleanly.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/lesson.hpp"
#include "qkv/scenario.hpp"
#include "qkv/serve.hpp"
#include "qkv/stop_request.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

struct serve_args {
    serve::options o;
    std::vector<std::string> data;
    std::string lang, color;
};

// data/'s scenarios by name (apple, induction, …), then each --data FILE by its file's name.
std::map<std::string, std::string> scenarios_of(const std::vector<std::string>& given) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(data_dir(), ec))
        if (entry.path().extension() == ".toml") out[entry.path().stem().string()] = entry.path().string();
    for (const std::string& file : given) {
        load_scenario(file);  // a bad file is refused before the server starts, naming its line
        const std::string name = fs::path(file).stem().string();
        if (out.count(name) && out[name] != file)
            throw usage_error(fmt::format("--data {}: a scenario named '{}' is there already ({}); rename the file", file, name, out[name]));
        out[name] = file;
    }
    return out;
}

// While the server runs, Ctrl-C and SIGTERM only ask it to stop (stop_request: on whichever thread
// they land, OpenBLAS's own included); a watcher sees the request and stops the server, which ends
// the requests under way and the training runs first. The old handlers come back when it goes.
class stop_on_signals {
public:
    explicit stop_on_signals(serve::server& s) : watcher_([this, &s] {
        while (!done_ && !stop_.requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        s.stop();
    }) {}
    ~stop_on_signals() {
        done_ = true;
        watcher_.join();
    }

private:
    terminal::stop_request stop_;
    std::atomic<bool> done_{false};
    std::thread watcher_;
};

}  // namespace

int cmd_serve(const args& a, const console& io) {
    serve_args s;
    serve::limits& l = s.o.limit;
    po::options_description desc("Options"), limits("Limits (each visitor is one address; past a limit, a 4xx with a JSON error)");
    add_help_option(desc);
    desc.add_options()
        ("port", po::value(&s.o.port)->default_value(8470), "the port to listen on (0: any free one, printed)")
        ("bind", po::value(&s.o.host)->default_value("127.0.0.1"),
         "the address to listen on: 127.0.0.1 is this machine alone; 0.0.0.0 every network it is on (a class)")
        ("data", po::value(&s.data), "a scenario FILE pages may run on, by its name (data=NAME); data/'s are there already; repeatable");
    add_lang_option(desc, s.lang);
    // taken as every command takes it (an alias may add it); the page has its own colours
    add_color_option(desc, s.color, color_help_short);
    limits.add_options()
        ("max-tokens", po::value(&l.tokens)->default_value(l.tokens), "tokens in a sentence (each at most 64 bytes; d_model at most 64)")
        ("requests-per-minute", po::value(&l.requests_per_minute)->default_value(l.requests_per_minute), "requests a visitor makes in a minute")
        ("connections", po::value(&l.connections)->default_value(l.connections),
         "connections served at once; more wait (a connection that sends nothing for 5 s is closed)")
        ("train-runs", po::value(&l.train_runs)->default_value(l.train_runs), "training runs at once on the server (one per visitor)")
        ("train-steps", po::value(&l.train_steps)->default_value(l.train_steps), "steps of one training run");
    desc.add(limits);
    po::variables_map vm;
    if (!parse(io, "serve", a, desc, {}, vm)) return 0;
    s.o.language = language_of(s.lang);
    if (s.o.port < 0 || s.o.port > 65535) throw usage_error(fmt::format("--port must be 0 to 65535, not {}", s.o.port));
    if (l.tokens < 1 || l.tokens > 512) throw usage_error("--max-tokens must be 1 to 512");
    if (l.connections < 2 || l.connections > 1024) throw usage_error("--connections must be 2 to 1024");
    if (l.requests_per_minute < 1) throw usage_error("--requests-per-minute must be 1 or more");
    if (l.train_runs > 64) throw usage_error("--train-runs must be 0 to 64");
    if (l.train_steps < 1 || l.train_steps > 100000) throw usage_error("--train-steps must be 1 to 100000");
    try {
        s.o.data = scenarios_of(s.data);
    } catch (const usage_error&) {
        throw;
    } catch (const input_error& e) {
        throw usage_error(e.message());
    }
    serve::server server(s.o);
    server.bind();
    const std::string host = s.o.host == "0.0.0.0" ? "127.0.0.1" : s.o.host;
    io.print(fmt::format("qkv serve: http://{}:{}/  (Ctrl-C stops)\n", host.find(':') != std::string::npos ? "[" + host + "]" : host,
                         server.port()));
    {
        const stop_on_signals watch(server);
        server.run();
    }
    io.tell("qkv serve: stopped\n");
    return 0;
}

}  // namespace qkv::cli
