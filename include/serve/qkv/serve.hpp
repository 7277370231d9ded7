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
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
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

struct options {
    std::string host = "127.0.0.1";
    int port = 8470;                            // 0: any free port
    std::map<std::string, std::string> data;    // scenario name → file: data/ and the files given
    lang language = lang::en;                   // the page's language when the URL names none
    limits limit;
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
    // Serves until stop() (from another thread, or a signal's watcher).
    void run();
    void stop();

private:
    struct impl;
    std::unique_ptr<impl> p_;
};

}  // namespace qkv::serve
