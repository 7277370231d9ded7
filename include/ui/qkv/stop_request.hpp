// Long work that Ctrl-C stops cleanly instead of ending the process: while a stop_request lives,
// SIGINT and SIGTERM only set its flag (the work checks it between steps, finishes the step, and
// reports what it has); the handlers that were there before come back when it ends. Made after a
// full-screen raw_mode, it takes Ctrl-C over from it, and the screen still comes back as the
// raw_mode ends. Ctrl-\ (SIGQUIT) still ends the process, with the terminal restored.
#pragma once

#include <atomic>
#include <csignal>

namespace qkv::terminal {

class stop_request {
public:
    stop_request();
    ~stop_request();
    stop_request(const stop_request&) = delete;
    stop_request& operator=(const stop_request&) = delete;

    // Set once Ctrl-C or SIGTERM came (or ask() was called).
    const std::atomic<bool>& flag() const;
    bool requested() const { return flag().load(); }
    // What a key (q) does: the same as Ctrl-C.
    void ask();

private:
    struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace qkv::terminal
