// The one file that speaks MPI (ranks.hpp): MPI started under mpirun, the ranks as lesson 11's
// devices, and every collective non-blocking with a deadline, so that a rank that died or stopped
// ends every rank (one line on stderr, then it leaves with status 2 and mpirun ends the rest) instead of leaving them waiting.
#include "qkv/ranks.hpp"

#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include "qkv/devices.hpp"

namespace qkv::ranks {

namespace {

// Test-only faults, so that the suite can show that no rank is left waiting: QKV_TEST_RANK_DIES=r
// kills rank r (SIGKILL) at its first collective, QKV_TEST_RANK_HANGS=r stops it there for good.
void injected_fault(int rank) {
    static bool once = false;
    if (once) return;
    once = true;
    auto is_me = [rank](const char* var) {
        const char* v = std::getenv(var);
        return v && *v && std::atoi(v) == rank;
    };
    if (is_me("QKV_TEST_RANK_DIES")) std::raise(SIGKILL);
    if (is_me("QKV_TEST_RANK_HANGS"))
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

// Until the request completes or the deadline passes; polled with short sleeps, so that a waiting
// rank leaves its core to the ranks still computing (more ranks than cores is the usual case here).
void wait_for(MPI_Request& request, const char* what) {
    const double deadline = MPI_Wtime() + collective_timeout();
    for (int polls = 0;; ++polls) {
        int done = 0;
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done) return;
        if (MPI_Wtime() > deadline) {
            int size = 0;
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            std::fprintf(stderr, "qkv: rank %d of %d: the %s waited %.0f s for a rank that failed or stopped; ending every rank\n",
                         world_rank(), size, what, collective_timeout());
            std::fflush(stderr);
            // Not MPI_Abort: Open MPI 4.1's mpirun forwards MPI_Abort's help text through PMIx and
            // crashes there now and then (SIGSEGV in pmix_server_log_fn, 3 runs in 20 under load);
            // a rank that leaves without MPI_Finalize makes mpirun end the others just the same.
            std::_Exit(2);
        }
        if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

int count_of(std::size_t n) {
    if (n > std::size_t(INT_MAX)) throw std::length_error("a message of more than 2^31 numbers");
    return int(n);
}

class mpi_ranks final : public devices::group {
public:
    mpi_ranks(std::size_t rank, std::size_t size) : rank_(rank), size_(size) {}
    std::size_t rank() const override { return rank_; }
    std::size_t size() const override { return size_; }

    devices::message_cost all_gather(std::span<const float> mine, std::span<float> all) override {
        const int n = count_of(mine.size());
        return timed("all-gather", (size_ - 1) * mine.size(), (size_ - 1) * mine.size(), [&](MPI_Request& r) {
            MPI_Iallgather(mine.data(), n, MPI_FLOAT, all.data(), n, MPI_FLOAT, MPI_COMM_WORLD, &r);
        });
    }
    devices::message_cost all_reduce_sum(std::span<const float> mine, std::span<float> sum) override {
        // each rank hands MPI its partial sums and gets the total back (how MPI moves them between
        // the ranks, a ring or a tree, is its own affair)
        const std::size_t moved = size_ > 1 ? mine.size() : 0;
        return timed("all-reduce", moved, moved, [&](MPI_Request& r) {
            MPI_Iallreduce(mine.data(), sum.data(), count_of(mine.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        });
    }
    std::vector<double> all_gather_figures(std::span<const double> mine) override {
        std::vector<double> all(mine.size() * size_);
        const int n = count_of(mine.size());
        injected_fault(int(rank_));
        MPI_Request r;
        MPI_Iallgather(mine.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD, &r);
        wait_for(r, "gathering of figures");
        return all;
    }

private:
    template <typename Start>
    devices::message_cost timed(const char* what, std::size_t sent, std::size_t received, Start start) {
        injected_fault(int(rank_));
        int float_bytes = 0;
        MPI_Type_size(MPI_FLOAT, &float_bytes);
        const double t0 = MPI_Wtime();
        MPI_Request r;
        start(r);
        wait_for(r, what);
        return {sent * std::size_t(float_bytes), received * std::size_t(float_bytes), MPI_Wtime() - t0};
    }

    std::size_t rank_, size_;
};

mpi_ranks* the_ranks = nullptr;

}  // namespace

bool built_with_mpi() { return true; }

double collective_timeout() {
    const char* v = std::getenv("QKV_RANK_TIMEOUT");
    const double s = v ? std::atof(v) : 0;
    return s > 0 ? s : 60;
}

session::session() {
    if (!launched_by_mpirun()) return;
    int provided = 0;
    // the fused kernels run threads of their own; only the main thread calls MPI
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    started_ = true;
    int r = 0, p = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    rank_ = std::size_t(r), size_ = std::size_t(p);
    the_ranks = new mpi_ranks(rank_, size_);
    devices_ = the_ranks;
    if (rank_ != 0) {  // rank 0 prints; the others compute and send
        const int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0) ::dup2(null, 1), ::close(null);
    }
}

session::~session() {
    if (!started_) return;
    delete the_ranks;
    the_ranks = nullptr;
    MPI_Finalize();
}

}  // namespace qkv::ranks
