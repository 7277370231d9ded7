// parallel_for (parallel_for.hpp): a shared counter hands out tasks; the first exception is kept
// and rethrown after every worker has finished, so none outlives the work it was given.
//
// The workers are kept between calls: started afresh for every call, as they were at first, they
// often got going late on a machine of few cores, and a forward pass makes its calls one right
// after another. A kept worker spins a little while (kept_spin) after its task before it sleeps,
// so the next call, which in a forward pass follows within microseconds, finds it awake; but not
// while the machine looks busy (spin_until), when spinning takes the core from the work.
#include "qkv/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace qkv {

namespace {

// One call's work, shared by the calling thread (worker 0) and the kept workers 1 … helpers.
struct job {
    const std::function<void(std::size_t, int)>* fn = nullptr;
    std::size_t count = 0;
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_lock;

    void work(int worker) {
        try {
            for (std::size_t t; (t = next.fetch_add(1)) < count;) (*fn)(t, worker);
        } catch (...) {
            next = count;  // hand out nothing more
            const std::lock_guard<std::mutex> hold(failure_lock);
            if (!failure) failure = std::current_exception();
        }
    }
};

// How long a kept worker keeps looking for the next call before it sleeps: long enough to bridge
// the gaps inside a forward pass, short enough not to hold a core once the work is done.
constexpr auto kept_spin = std::chrono::microseconds(300);

// A spin that backs off when the machine is busy. A look that comes more than `preempted` after
// the one before means this thread lost its core meanwhile: another process wants it. Spinning
// then only takes turns from the threads doing the work (ours, descheduled with a task in hand,
// or the other process), so for `busy_for` every wait sleeps at once.
constexpr auto preempted = std::chrono::microseconds(100);
constexpr auto busy_for = std::chrono::milliseconds(50);
std::atomic<std::int64_t> busy_until{0};  // steady_clock ticks

std::int64_t ticks(std::chrono::steady_clock::time_point t) { return t.time_since_epoch().count(); }

// Spins until done() or kept_spin has passed, unless the machine was lately seen busy.
template <class Done>
void spin_until(Done done) {
    using clock = std::chrono::steady_clock;
    auto last = clock::now();
    if (ticks(last) < busy_until.load(std::memory_order_relaxed)) return;
    for (const auto until = last + kept_spin; !done() && last < until;) {
        std::this_thread::yield();
        const auto now = clock::now();
        if (now - last > preempted) {
            busy_until.store(ticks(now + busy_for), std::memory_order_relaxed);
            return;
        }
        last = now;
    }
}

class pool {
public:
    ~pool() {
        {
            const std::lock_guard<std::mutex> hold(lock_);
            stop_ = true;
            ++generation_;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }

    // Runs j on the calling thread and `helpers` kept workers; false when another call holds the
    // pool (a task calling parallel_for, or two threads at once), so the caller does it another way.
    bool run(job& j, int helpers) {
        bool idle = false;
        if (!busy_.compare_exchange_strong(idle, true)) return false;
        struct release {
            std::atomic<bool>& flag;
            ~release() { flag.store(false); }
        } const hold_busy{busy_};
        {
            const std::lock_guard<std::mutex> hold(lock_);
            while (int(threads_.size()) < helpers) {
                const int worker = int(threads_.size()) + 1;
                threads_.emplace_back([this, worker] { serve(worker); });
            }
            job_ = &j;
            helpers_ = helpers;
            running_.store(helpers);
            generation_.fetch_add(1);
        }
        wake_.notify_all();
        j.work(0);
        // the workers finish their last tasks; wait for them, spinning first like they do
        spin_until([&] { return running_.load() == 0; });
        std::unique_lock<std::mutex> hold(lock_);
        done_.wait(hold, [&] { return running_.load() == 0; });
        job_ = nullptr;
        return true;
    }

private:
    void serve(int worker) {
        std::uint64_t seen = 0;
        for (;;) {
            // look for a new call, spinning for kept_spin, then sleep until one comes
            spin_until([&] { return generation_.load() != seen; });
            std::unique_lock<std::mutex> hold(lock_);
            wake_.wait(hold, [&] { return generation_.load() != seen; });
            seen = generation_.load();
            if (stop_) return;
            if (worker > helpers_) continue;  // this call wants fewer workers
            job* j = job_;
            hold.unlock();
            j->work(worker);
            if (running_.fetch_sub(1) == 1) {
                const std::lock_guard<std::mutex> relock(lock_);
                done_.notify_one();
            }
        }
    }

    std::atomic<bool> busy_{false};  // true for a whole call
    std::mutex lock_;                // guards the fields below and the sleeping
    std::condition_variable wake_, done_;
    std::vector<std::thread> threads_;
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<int> running_{0};
    job* job_ = nullptr;
    int helpers_ = 0;
    bool stop_ = false;
};

pool& kept_workers() {
    static pool p;
    return p;
}

}  // namespace

void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t task, int worker)>& fn) {
    job j;
    j.fn = &fn;
    j.count = count;
    const std::size_t wanted = std::size_t(std::max(threads, 1));
    const int helpers = int(std::min(wanted, std::max<std::size_t>(count, 1))) - 1;  // workers beside this thread
    if (helpers == 0) {
        j.work(0);
    } else if (!kept_workers().run(j, helpers)) {  // the pool is busy: threads of this call's own
        std::vector<std::thread> own;
        for (int i = 1; i <= helpers; ++i) own.emplace_back([&j, i] { j.work(i); });
        j.work(0);
        for (auto& t : own) t.join();
    }
    if (j.failure) std::rethrow_exception(j.failure);
}

}  // namespace qkv
