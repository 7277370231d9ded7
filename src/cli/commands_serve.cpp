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
#include "join_card.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

struct serve_args {
    serve::options o;
    std::vector<std::string> data;
    std::string lang, color;
    std::string class_name, export_dir;
    std::size_t answers_per_minute = 30;
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
            throw usage_error(said("--data {}: a scenario named '{}' is there already ({}); rename the file", file, name, out[name]));
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

// What the teacher's terminal shows once the class's server listens: the class, where it is kept,
// the join link and code, the QR code of the link, and the teacher's own link.
void tell_class(const console& io, const serve::class_started& c, const serve::options& o) {
    const lang l = o.language;
    io.print(c.resumed ? fmt::format(fmt::runtime(tr(l, "class {}: resumed ({} students, {} answers), kept in {}\n")), c.name,
                                     c.students, c.answers, c.database)
                       : fmt::format(fmt::runtime(tr(l, "class {}: new, kept in {}\n")), c.name, c.database));
    io.print(fmt::format(fmt::runtime(tr(l, "students join at {}  (code {})\n")), c.join_link, c.code));
    for (const std::string& line : qr_lines(c.join_link)) io.print(line + "\n");
    if (o.host == "127.0.0.1" || o.host == "localhost" || o.host == "::1")
        io.print(tr(l, "(only this machine can join: --bind 0.0.0.0 lets the room's laptops and phones in)\n"));
    io.print(fmt::format(fmt::runtime(tr(l, "the teacher's page, for this screen only: {}\n")), c.teacher_link));
}

}  // namespace

int cmd_serve(const args& a, const console& io) {
    serve_args s;
    serve::limits& lim = s.o.limit;
    const lang l = interface_language(a);
    po::options_description desc = option_group(l, tr(l, "Options"));
    po::options_description limits =
        option_group(l, tr(l, "Limits (each visitor is one address; past a limit, a 4xx with a JSON error)"));
    add_help_option(desc, l);
    desc.add_options()
        ("port", po::value(&s.o.port)->default_value(8470), tr(l, "the port to listen on (0: any free one, printed)").c_str())
        ("bind", po::value(&s.o.host)->default_value("127.0.0.1"),
         tr(l, "the address to listen on: 127.0.0.1 is this machine alone; 0.0.0.0 every network it is on (a class)").c_str())
        ("data", po::value(&s.data),
         tr(l, "a scenario FILE pages may run on, by its name (data=NAME); data/'s are there already; repeatable").c_str())
        ("class", po::value(&s.class_name)->implicit_value("class")->value_name("NAME"),
         tr(l, "run a class named NAME (default 'class'): students join by link, code or QR code and answer; "
               "kept in XDG_STATE_HOME/qkv/classes/NAME.sqlite, resumed when started again").c_str())
        ("export", po::value(&s.export_dir),
         tr(l, "with --class: write the class's answer sheets, assignment, CSV and JSON (as qkv grade) into DIR, and stop").c_str());
    add_lang_option(desc, s.lang, l);
    // taken as every command takes it (an alias may add it); the page has its own colours
    add_color_option(desc, s.color, l, color_help_short);
    limits.add_options()
        ("max-tokens", po::value(&lim.tokens)->default_value(lim.tokens),
         tr(l, "tokens in a sentence (each at most 64 bytes; d_model at most 64)").c_str())
        ("requests-per-minute", po::value(&lim.requests_per_minute)->default_value(lim.requests_per_minute),
         tr(l, "requests a visitor makes in a minute").c_str())
        ("connections", po::value(&lim.connections)->default_value(lim.connections),
         tr(l, "connections served at once; more wait (a connection that sends nothing for 5 s is closed)").c_str())
        ("train-runs", po::value(&lim.train_runs)->default_value(lim.train_runs),
         tr(l, "training runs at once on the server (one per visitor)").c_str())
        ("train-steps", po::value(&lim.train_steps)->default_value(lim.train_steps), tr(l, "steps of one training run").c_str())
        ("answers-per-minute", po::value(&s.answers_per_minute)->default_value(s.answers_per_minute),
         tr(l, "answers, hints and solutions a student of a class asks in a minute (past it 429); a class's join code "
               "is 6 of 31 letters and digits, names at most 40 characters").c_str());
    desc.add(limits);
    po::variables_map vm;
    if (!parse(io, "serve", a, desc, {}, vm)) return 0;
    s.o.language = language_of(s.lang);
    if (s.o.port < 0 || s.o.port > 65535) throw usage_error(said("--port must be 0 to 65535, not {}", s.o.port));
    if (lim.tokens < 1 || lim.tokens > 512) throw usage_error(said("--max-tokens must be 1 to 512"));
    if (lim.connections < 2 || lim.connections > 1024) throw usage_error(said("--connections must be 2 to 1024"));
    if (lim.requests_per_minute < 1) throw usage_error(said("--requests-per-minute must be 1 or more"));
    if (lim.train_runs > 64) throw usage_error(said("--train-runs must be 0 to 64"));
    if (lim.train_steps < 1 || lim.train_steps > 100000) throw usage_error(said("--train-steps must be 1 to 100000"));
    try {
        s.o.data = scenarios_of(s.data);
    } catch (const usage_error&) {
        throw;
    } catch (const input_error& e) {
        throw usage_error(e.said_message());
    }
    if (!s.export_dir.empty() && s.class_name.empty()) throw usage_error(said("--export goes with --class NAME: which class?"));
    if (s.answers_per_minute < 1) throw usage_error(said("--answers-per-minute must be 1 or more"));
    if (!s.class_name.empty()) {
        try {
            serve::check_class_name(s.class_name);
            s.o.klass = serve::class_options{s.class_name, serve::class_database(s.class_name), "", s.answers_per_minute};
        } catch (const input_error& e) {
            throw usage_error(e.said_message());
        }
        if (s.o.host == "0.0.0.0") {  // every network: students are told this machine's address on one
            s.o.klass->join_host = lan_address();
            if (s.o.klass->join_host.empty()) {
                s.o.klass->join_host = "127.0.0.1";
                io.tell(tr(s.o.language, "qkv serve: this machine is on no network (no address but 127.0.0.1): only it can join\n"));
            }
        }
        if (!s.export_dir.empty()) {
            serve::export_class(*s.o.klass, s.export_dir, s.o.language);
            io.print(fmt::format(fmt::runtime(tr(s.o.language, "class {}: exported to {}\n")), s.class_name, s.export_dir));
            return 0;
        }
    }
    serve::server server(s.o);
    server.bind();
    const std::string host = s.o.host == "0.0.0.0" ? "127.0.0.1" : s.o.host;
    io.print(fmt::format(fmt::runtime(tr(s.o.language, "qkv serve: http://{}:{}/  (Ctrl-C stops)\n")),
                         host.find(':') != std::string::npos ? "[" + host + "]" : host, server.port()));
    if (const auto c = server.started_class()) tell_class(io, *c, s.o);
    {
        const stop_on_signals watch(server);
        server.run();
    }
    io.tell(tr(s.o.language, "qkv serve: stopped\n"));
    return 0;
}

}  // namespace qkv::cli
