// parallel_for (parallel_for.hpp): a shared counter hands out tasks; the first exception is kept
// and rethrown after every thread has joined, so none outlives the work it was given.
#include "qkv/parallel_for.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace qkv {

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t task, int worker)>& fn) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_lock;
    auto work = [&](int worker) {
        try {
            for (std::size_t t; (t = next.fetch_add(1)) < count;) fn(t, worker);
        } catch (...) {
            next = count;
            const std::lock_guard<std::mutex> hold(failure_lock);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < threads && std::size_t(i) < count; ++i) pool.emplace_back(work, i);
    work(0);
    for (auto& th : pool) th.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace qkv
