// The clock the fused passes' breakdowns read (attention_fused.hpp, attention_backward.hpp): the
// calling thread's own processor time, so a stage's share stays true while other processes take
// turns on the cores (a steady clock would charge their turns to whichever stage was running).
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace qkv::attention::detail {

struct thread_clock {
    using time_point = std::chrono::steady_clock::time_point;
    static time_point now() {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return time_point(std::chrono::nanoseconds(std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec));
    }
};

// The start of a stage's lap: the thread's clock when times are kept (st not null), else nothing.
template <class Times>
thread_clock::time_point start(const Times* st) {
    return st ? thread_clock::now() : thread_clock::time_point{};
}

// Adds the seconds since `t` to st's `into` and restarts t; nothing without st.
template <class Times>
void lap(Times* st, thread_clock::time_point& t, double Times::*into) {
    if (!st) return;
    const auto now = thread_clock::now();
    st->*into += std::chrono::duration<double>(now - t).count();
    t = now;
}

}  // namespace qkv::attention::detail
