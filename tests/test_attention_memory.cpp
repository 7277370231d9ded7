// What the fused attention says it allocates (fused_extra_floats, backward_extra_floats: the
// extra memory `qkv bench` reports and bench/compare_torch.py holds against PyTorch's) held to
// what it does allocate: this program's every operator new counted, and the peak of the bytes
// live during one call taken above what was live before it.
#define BOOST_TEST_MODULE attention_memory
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <utility>

#include "qkv/attention_backward.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/kernels.hpp"

namespace {

std::atomic<std::size_t> live{0}, peak{0};

// Each block is preceded by a header of `head` bytes whose last 8 hold the block's size.
void* counted(std::size_t size, std::size_t head) {
    void* raw = std::aligned_alloc(head, (head + size + head - 1) / head * head);
    if (!raw) throw std::bad_alloc();
    char* p = static_cast<char*>(raw) + head;
    reinterpret_cast<std::size_t*>(p)[-1] = size;
    const std::size_t now = live.fetch_add(size) + size;
    for (std::size_t top = peak.load(); now > top && !peak.compare_exchange_weak(top, now);) {
    }
    return p;
}

void uncounted(void* p, std::size_t head) {
    if (!p) return;
    live.fetch_sub(reinterpret_cast<std::size_t*>(p)[-1]);
    std::free(static_cast<char*>(p) - head);
}

constexpr std::size_t plain_head = 16;  // __STDCPP_DEFAULT_NEW_ALIGNMENT__ on x86-64
std::size_t head_for(std::align_val_t a) { return std::max(plain_head, std::size_t(a)); }

}  // namespace

void* operator new(std::size_t n) { return counted(n, plain_head); }
void* operator new[](std::size_t n) { return counted(n, plain_head); }
void* operator new(std::size_t n, std::align_val_t a) { return counted(n, head_for(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted(n, head_for(a)); }
void operator delete(void* p) noexcept { uncounted(p, plain_head); }
void operator delete[](void* p) noexcept { uncounted(p, plain_head); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p, plain_head); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p, plain_head); }
void operator delete(void* p, std::align_val_t a) noexcept { uncounted(p, head_for(a)); }
void operator delete[](void* p, std::align_val_t a) noexcept { uncounted(p, head_for(a)); }
void operator delete(void* p, std::size_t, std::align_val_t a) noexcept { uncounted(p, head_for(a)); }
void operator delete[](void* p, std::size_t, std::align_val_t a) noexcept { uncounted(p, head_for(a)); }

using namespace qkv;

namespace {

// The most bytes live at once while fn runs, above those live when it started.
template <class F>
std::size_t peak_during(F&& fn) {
    const std::size_t base = live.load();
    peak.store(base);
    std::forward<F>(fn)();
    return peak.load() - base;
}

// Besides its plan's memory, a call allocates a few small things (its workers' task handles, the
// per-worker stage records): 64 KiB covers them many times over at these sizes.
constexpr double slack = 64 * 1024;

attention::weights random_weights(std::size_t d) {  // [d, d] each
    return {kernels::randn(d, d, 11), kernels::randn(d, d, 12), kernels::randn(d, d, 13), kernels::randn(d, d, 14)};
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_forward_and_the_backward_allocate_what_they_say) {
    // n = 1024, d_model = 512, h = 8 (as the bench, at a quarter of its n); causal or not, 1 or 2
    // threads (2 threads on 8 heads: each worker owns whole heads) and 2 threads on 2 heads (the
    // key blocks shared out, a copy of dQ per extra worker)
    const std::size_t n = 1024, d = 512;
    const matrix X = kernels::randn(n, d, 1), dZ = kernels::randn(n, d, 2);  // [n, d]
    const attention::weights W = random_weights(d);
    struct run {
        std::size_t heads;
        bool causal;
        int threads;
    };
    for (const run r : {run{8, false, 1}, run{8, true, 1}, run{8, false, 2}, run{2, false, 2}}) {
        BOOST_TEST_CONTEXT("h = " << r.heads << (r.causal ? ", causal" : ", full") << ", " << r.threads
                                  << " threads") {
            const attention::options o{.heads = r.heads, .causal = r.causal, .threads = r.threads};
            attention::saved_forward kept;
            // Z [n, d]; kept: Q, K, V, O [n, d] and the log-sum-exps [h, n]; the plan's own
            const double said_forward = 4.0 * double(n * d + 4 * n * d + r.heads * n + attention::fused_extra_floats(n, d, o));
            const double forward = double(peak_during([&] { attention::forward_fused_keep(X, W, o, kept); }));
            BOOST_TEST(forward <= said_forward + slack);
            BOOST_TEST(forward >= 0.95 * said_forward);  // nor does the figure claim more than is used
            // the five gradients: dX [n, d], dW_Q, dW_K, dW_V, dW_O [d, d]; the backward's own
            const double said_backward = 4.0 * double(n * d + 4 * d * d + attention::backward_extra_floats(n, d, o));
            const double backward = double(peak_during([&] { attention::backward_fused(X, W, kept, dZ, o); }));
            BOOST_TEST(backward <= said_backward + slack);
            BOOST_TEST(backward >= 0.95 * said_backward);
        }
    }
}
