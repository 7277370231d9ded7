// The stop flag and the two signal handlers that set it (stop_request.hpp). A lock-free atomic
// store is async-signal-safe; nothing else happens in the handler.
#include "qkv/stop_request.hpp"

namespace qkv::terminal {

namespace {

std::atomic<bool> stop_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is set from a signal handler");

extern "C" void note_stop(int) { stop_flag.store(true); }

}  // namespace

stop_request::stop_request() {
    stop_flag.store(false);
    struct sigaction sa {};
    sa.sa_handler = note_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
}

stop_request::~stop_request() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
}

const std::atomic<bool>& stop_request::flag() const { return stop_flag; }

void stop_request::ask() { stop_flag.store(true); }

}  // namespace qkv::terminal
