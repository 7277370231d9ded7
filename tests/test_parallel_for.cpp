// parallel_for with its kept workers: every task runs once and on a worker the call allows, call
// after call with more or fewer threads; a task's exception reaches the caller and leaves the
// workers usable; a task may itself call parallel_for.
#define BOOST_TEST_MODULE parallel_for
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "qkv/parallel_for.hpp"

namespace {

// Runs count tasks on `threads`; true when each ran exactly once and only on workers 0 … threads−1.
bool each_task_once(std::size_t count, int threads) {
    std::vector<std::atomic<int>> runs(count);
    std::atomic<bool> worker_ok{true};
    qkv::parallel_for(count, threads, [&](std::size_t task, int worker) {
        runs[task].fetch_add(1);
        if (worker < 0 || worker >= std::max(threads, 1)) worker_ok = false;
    });
    bool once = true;
    for (const auto& r : runs) once &= r.load() == 1;
    return once && worker_ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_task_runs_once_call_after_call) {
    // the thread counts go up and down, so kept workers are added and some sit a call out
    for (int round = 0; round < 50; ++round)
        for (int threads : {2, 4, 1, 3, 0, 2})
            for (std::size_t count : {0, 1, 3, 64})
                BOOST_TEST(each_task_once(count, threads),
                           "round " << round << ", " << threads << " threads, " << count << " tasks");
}

BOOST_AUTO_TEST_CASE(a_second_worker_takes_tasks) {
    // the caller's first task waits (up to 10 s, however loaded the machine) for worker 1 to take
    // a task; a kept worker that never started would leave all of them to the caller
    std::atomic<int> on_helper{0};
    std::atomic<bool> waited{false};
    qkv::parallel_for(8, 2, [&](std::size_t, int worker) {
        if (worker == 1) {
            ++on_helper;
            return;
        }
        if (waited.exchange(true)) return;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (on_helper.load() == 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    });
    BOOST_TEST(on_helper.load() > 0);
}

BOOST_AUTO_TEST_CASE(an_exception_reaches_the_caller_and_the_workers_stay_usable) {
    for (int round = 0; round < 20; ++round) {
        std::string what;
        try {
            qkv::parallel_for(16, 2, [](std::size_t task, int) {
                if (task == 5) throw std::runtime_error("task 5 failed");
            });
        } catch (const std::runtime_error& e) {
            what = e.what();
        }
        BOOST_TEST(what == "task 5 failed");
        BOOST_TEST(each_task_once(16, 2));
    }
}

BOOST_AUTO_TEST_CASE(a_task_may_call_parallel_for) {
    // the inner calls find the kept workers busy and start threads of their own
    std::vector<std::atomic<int>> runs(4 * 8);
    qkv::parallel_for(4, 2, [&](std::size_t outer, int) {
        qkv::parallel_for(8, 2, [&](std::size_t inner, int) { runs[outer * 8 + inner].fetch_add(1); });
    });
    bool once = true;
    for (const auto& r : runs) once &= r.load() == 1;
    BOOST_TEST(once);
}
