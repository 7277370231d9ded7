// The three attention implementations against hand-worked cases and against each other, the
// fast exp against std::exp, and KV-cache decoding against the causal forward pass. No timing.
#define BOOST_TEST_MODULE attention
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "qkv/attention.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/kernel_builds.hpp"
#include "qkv/kernels.hpp"
#include "qkv/kv_cache.hpp"
#include "qkv/row_kernels.hpp"
#include "qkv/tile_kernels.hpp"
#include "support/attention_weights.hpp"
#include "support/close.hpp"
#include "support/cpu_flags.hpp"

using qkv::matrix;
namespace att = qkv::attention;

namespace att_detail = qkv::attention::detail;

using qkv::test::check_close;
using qkv::test::random_weights;
using qkv::test::rel_diff;
using qkv::test::scaled;

namespace {

// Runs check(build) for each kernel build, widest first, that switch_to(build) puts in use; the
// others are skipped, and the test log names both (the test case's name first). Putting back the
// builds that were in use is the caller's, which knows which kernels it switched.
template <class Switch, class Check>
void for_each_build(Switch switch_to, Check check) {
    std::vector<std::string> checked, skipped;
    for (const att::kernel_build& b : att::kernel_builds()) {
        const std::string name(b.name);
        const char* build = name.c_str();
        if (!switch_to(build)) {
            skipped.push_back(build);
            continue;
        }
        checked.push_back(build);
        check(build);
    }
    qkv::test::report_builds(boost::unit_test::framework::current_test_case().p_name, checked, skipped);
}

const matrix I2 = matrix::of({{1, 0}, {0, 1}});

}  // namespace

BOOST_AUTO_TEST_CASE(reference_two_tokens_one_head_by_hand) {
    // X = I, W_Q = W_K = W_V = I: Q = K = V = I; S = Q K^T / sqrt(2) = diag(0.707107, 0.707107).
    // Row 1 softmax: [e^0.707107, e^0] / (2.028115 + 1) = [0.669762, 0.330238]; row 2 mirrored.
    // Z = A V = A; out = Z W_O with W_O = [1 2; 0 1]: row 1 = [0.669762, 2·0.669762 + 0.330238].
    const att::weights W{I2, I2, I2, matrix::of({{1, 2}, {0, 1}})};
    att::options o;
    o.heads = 1;
    const matrix out = att::forward_reference(I2, W, o);
    const matrix expect = matrix::of({{0.669762f, 1.669762f}, {0.330238f, 1.330238f}});
    BOOST_TEST(qkv::max_abs_diff(out, expect) < 1e-5f, fmt::format("{:.6f}", out));

    // Causal: token 1 sees only itself (weight 1), token 2 is unchanged.
    o.causal = true;
    const matrix causal = att::forward_reference(I2, W, o);
    const matrix expect_causal = matrix::of({{1.0f, 2.0f}, {0.330238f, 1.330238f}});
    BOOST_TEST(qkv::max_abs_diff(causal, expect_causal) < 1e-5f, fmt::format("{:.6f}", causal));
}

BOOST_AUTO_TEST_CASE(reference_two_tokens_two_heads_by_hand) {
    // h = 2, d_k = 1 (scale 1); head 0 reads column 0 of Q, K, V = I, head 1 column 1.
    // head 0: S = [1 0; 0 0] -> rows [e/(e+1), 1/(e+1)] = [0.731059, 0.268941] and [0.5, 0.5];
    //         Z_0 = A [1; 0] = [0.731059; 0.5].
    // head 1: S = [0 0; 0 1] -> rows [0.5, 0.5] and [0.268941, 0.731059]; Z_1 = A [0; 1] = [0.5; 0.731059].
    // W_O = I, so out = [Z_0 Z_1].
    const att::weights W{I2, I2, I2, I2};
    att::options o;
    o.heads = 2;
    const matrix out = att::forward_reference(I2, W, o);
    const matrix expect = matrix::of({{0.731059f, 0.5f}, {0.5f, 0.731059f}});
    BOOST_TEST(qkv::max_abs_diff(out, expect) < 1e-5f, fmt::format("{:.6f}", out));
}

BOOST_AUTO_TEST_CASE(three_implementations_agree) {
    // n not a multiple of any block size, with and without the mask; sharp scores (X scaled by 4)
    // make the running max change between key blocks, so the online rescaling is exercised.
    const std::size_t d = 32;
    const att::weights W = random_weights(d, 100);
    for (std::size_t n : {1, 2, 3, 17, 64, 100, 131}) {
        for (float sharp : {1.0f, 4.0f}) {
            const matrix X = scaled(qkv::kernels::randn(n, d, 7 + n), sharp);
            for (bool causal : {false, true}) {
                att::options o;
                o.heads = 4;
                o.causal = causal;
                const matrix ref = att::forward_reference(X, W, o);
                const std::string where = fmt::format("n = {}, sharp = {}, causal = {}", n, sharp, causal);
                BOOST_TEST(rel_diff(att::forward_blas(X, W, o), ref) < 1e-4f, "blas " << where);
                BOOST_TEST(rel_diff(att::forward_fused(X, W, o), ref) < 1e-4f, "fused " << where);
                // small blocks, heads in passes of one and of two, two threads
                for (std::size_t g : {1, 2}) {
                    att::options s = o;
                    s.block_q = 16;
                    s.block_k = 24;
                    s.heads_per_pass = g;
                    s.threads = 2;
                    BOOST_TEST(rel_diff(att::forward_fused(X, W, s), ref) < 1e-4f, "fused small blocks g = " << g << ", " << where);
                }
                o.threads = 2;
                BOOST_TEST(rel_diff(att::forward_blas(X, W, o), ref) < 1e-4f, "blas 2 threads " << where);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(every_build_of_the_kernels_agrees) {
    // Every build of the softmax loops and of the fused path's block products (on x86-64 AVX-512,
    // AVX2 and plain), each against the reference; a build this processor cannot run is skipped
    // (and said so). d = 36, h = 3: d_k = 12 fills part of one vector in every product.
    const std::size_t n = 77, d = 36;
    const att::weights W = random_weights(d, 300);
    const matrix X = scaled(qkv::kernels::randn(n, d, 5), 3.0f);
    const std::string was(att_detail::row_kernels_in_use()), tiles_were(att_detail::tile_kernels_in_use());
    for_each_build(att_detail::use_row_kernels, [&](const char* build) {
        BOOST_TEST_REQUIRE(att_detail::use_tile_kernels(build));
        BOOST_TEST(att_detail::row_kernels_in_use() == build);
        for (bool causal : {false, true}) {
            att::options o;
            o.heads = 3;
            o.causal = causal;
            o.block_q = 16;
            o.block_k = 40;  // 40 = 2·16 + 8: full vectors and a scalar tail in every row
            const matrix ref = att::forward_reference(X, W, o);
            BOOST_TEST(rel_diff(att::forward_fused(X, W, o), ref) < 1e-4f, build << ", causal = " << causal);
            BOOST_TEST(rel_diff(att::forward_blas(X, W, o), ref) < 1e-4f, build << ", causal = " << causal);
            o.block_q = o.block_k = 0;  // the tuned blocks: 64 query rows, 256 keys, one partial block
            BOOST_TEST(rel_diff(att::forward_fused(X, W, o), ref) < 1e-4f, build << " tuned blocks, causal = " << causal);
        }
    });
    BOOST_TEST(att_detail::use_row_kernels(was));
    BOOST_TEST(att_detail::use_tile_kernels(tiles_were));
    BOOST_TEST(!att_detail::use_row_kernels("avx1024"));
}

BOOST_AUTO_TEST_CASE(scores_rising_far_from_one_key_block_to_the_next) {
    // The fused softmax keeps a row's max m from earlier key blocks until a block's scores pass it
    // by more than 16 (log2 units; for a block whose 2^(s − m) came finished from the product,
    // its max is read only when their sum passes 2^16); then it rescales that block (a rise up to
    // 100) or computes its scores again (beyond, where 2^(s − m) may have saturated: inf in
    // AVX-512's 2^x, 2^127 in the portable one). Here every path is taken: W_Q = W_K = W_O = I,
    // one head, d_k = 4, blocks of 8 keys, and token j is c_j·(1, 1, 1, 1) plus a little noise,
    // so s_ij ≈ c_i·c_j·4 / √4 · log2 e = 2.885·c_i·c_j.
    // - c_j = (j + 1) / 2 (48 tokens): from one block to the next a row's max rises by
    //   2.885·c_i·4 = 11.5·c_i: 5.8 for row 0 (kept, until three blocks add up past 16), 23 for
    //   row 3 (rescaled), 121 for row 20 (computed again). The weights run from spread out (row 0)
    //   to one-hot.
    // - c_j = 1 for the first block, 2.8 for the two after (24 tokens): rows of the later blocks
    //   rise by 2.885·2.8·1.8 = 14.5 there, so 8 weights of 2^14.5 sum past 2^16 while the max
    //   stays within 16 (read, then kept).
    const matrix I4 = matrix::of({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});
    const std::size_t d = 4;
    const att::weights W{I4, I4, qkv::kernels::randn(d, d, 41), I4};
    const std::string was(att_detail::row_kernels_in_use()), tiles_were(att_detail::tile_kernels_in_use());
    auto rows_and_tiles = [](const char* build) {
        return att_detail::use_row_kernels(build) && att_detail::use_tile_kernels(build);
    };
    for (bool steps : {false, true}) {
        const std::size_t n = steps ? 24 : 48;
        matrix X = scaled(qkv::kernels::randn(n, d, 42), steps ? 0.02f : 0.1f);
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t c = 0; c < d; ++c) X(j, c) += steps ? (j < 8 ? 1.0f : 2.8f) : 0.5f * float(j + 1);
        for_each_build(rows_and_tiles, [&](const char* build) {
            for (bool causal : {false, true}) {
                att::options o;
                o.heads = 1;
                o.causal = causal;
                o.block_q = 16;
                o.block_k = 8;
                const matrix ref = att::forward_reference(X, W, o);
                BOOST_TEST(rel_diff(att::forward_fused(X, W, o), ref) < 1e-4f,
                           build << ", causal = " << causal << (steps ? ", two steps" : ", a ramp"));
            }
        });
    }
    BOOST_TEST(att_detail::use_row_kernels(was));
    BOOST_TEST(att_detail::use_tile_kernels(tiles_were));
}

BOOST_AUTO_TEST_CASE(first_values_shown) {
    // Prints the first output values of all three, so a reader can see them agree.
    const matrix X = qkv::kernels::randn(5, 8, 3);
    const att::weights W = random_weights(8, 50);
    att::options o;
    o.heads = 2;
    for (att::impl i : {att::impl::reference, att::impl::blas, att::impl::fused}) {
        const matrix Z = att::forward(i, X, W, o);
        BOOST_TEST_MESSAGE(fmt::format("{:>9}: {:.6f} {:.6f} {:.6f}", att::impl_name(i), Z(0, 0), Z(0, 1), Z(4, 7)));
    }
    BOOST_TEST(rel_diff(att::forward(att::impl::fused, X, W, o), att::forward(att::impl::reference, X, W, o)) < 1e-4f);
}

BOOST_AUTO_TEST_CASE(fast_exp2_within_a_millionth) {
    // Against std::exp2 in double over the range the softmax uses (s - max <= 0), in steps that
    // fall between the integers (where the range reduction switches k).
    double worst = 0.0;
    for (int i = 0; i <= 240000; ++i) {
        const float x = -120.0f + 120.0f * float(i) / 240000.0f;
        const double exact = std::exp2(double(x));
        worst = std::max(worst, std::fabs(att_detail::exp2_approx(x) - exact) / exact);
    }
    BOOST_TEST_MESSAGE("worst relative error of exp2_approx on [-120, 0]: " << worst);
    BOOST_TEST(worst < 1e-6);
    // Each build's row of exps (AVX-512 has its own reduction and polynomial) over the same
    // points, taken against m = 3 so the row holds x + 3: the exps, their sum and the row's max.
    const std::string was(att_detail::row_kernels_in_use());
    for_each_build(att_detail::use_row_kernels, [](const char* build) {
        std::vector<float> s(240001);
        for (std::size_t i = 0; i < s.size(); ++i) s[i] = 3.0f + (-120.0f + 120.0f * float(i) / 240000.0f);
        const std::vector<float> scores = s;
        float s_max = 0;
        const float sum = att_detail::active_row_kernels().exp2_sum(s.data(), s.size(), 3.0f, s_max);
        double row_worst = 0.0, exact_sum = 0.0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double exact = std::exp2(double(scores[i]) - 3.0);
            exact_sum += exact;
            row_worst = std::max(row_worst, std::fabs(s[i] - exact) / exact);
        }
        BOOST_TEST(row_worst < 1e-6, build << ": worst relative error " << row_worst);
        BOOST_TEST(std::fabs(sum - exact_sum) / exact_sum < 1e-5, build << ": sum " << sum << " against " << exact_sum);
        BOOST_TEST(s_max == scores.back(), build);
    });
    BOOST_TEST(att_detail::use_row_kernels(was));
    BOOST_TEST(att_detail::exp2_approx(0.0f) == 1.0f);   // 2^0 · (1 + 0): exactly one
    BOOST_TEST(att_detail::exp2_approx(-3.0f) == 0.125f);  // r = 0: exactly 2^-3
    BOOST_TEST(att_detail::exp2_approx(-1000.0f) < 1e-37f);
}

BOOST_AUTO_TEST_CASE(decoding_with_the_cache_equals_the_causal_pass) {
    // Token t's output under the causal mask depends only on tokens 0 … t, so feeding the tokens
    // one at a time through the cache must give the causal forward pass row by row.
    const std::size_t n = 37, d = 16, h = 4;
    const matrix X = qkv::kernels::randn(n, d, 11);
    const att::weights W = random_weights(d, 200);
    att::options o;
    o.heads = h;
    o.causal = true;
    const matrix ref = att::forward_reference(X, W, o);
    att::kv_cache cache(n, d);
    matrix steps(n, d);
    for (std::size_t t = 0; t < n; ++t) {
        const matrix z = att::decode_step(cache, matrix(1, d, std::vector<float>(X.row(t), X.row(t) + d)), W, h);
        std::copy(z.data.begin(), z.data.end(), steps.row(t));
    }
    BOOST_TEST(cache.len == n);
    BOOST_TEST(rel_diff(steps, ref) < 1e-4f);
    BOOST_CHECK_THROW(att::decode_step(cache, matrix(1, d), W, h), std::invalid_argument);  // cache full
}

BOOST_AUTO_TEST_CASE(extra_memory_plans) {
    att::options o;
    o.heads = 8;
    o.threads = 2;
    // blas holds one head's S: 16384² floats = 2^28 · 4 bytes = 1 GiB, and more besides.
    BOOST_TEST(att::extra_bytes(att::impl::blas, 16384, 512, o) > (std::size_t(1) << 30));
    // fused at n = 16384: K and V of 4 heads at a time, 2 · 16384 · 256 floats = 32 MiB, plus
    // two threads' block scratch; the fused kernel is meant to stay within 64 MiB at this size.
    const std::size_t fused = att::extra_bytes(att::impl::fused, 16384, 512, o);
    BOOST_TEST(fused >= (std::size_t(32) << 20));
    BOOST_TEST(fused <= (std::size_t(64) << 20));
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_refused) {
    const att::weights W = random_weights(6, 1);
    att::options o;
    o.heads = 4;  // does not divide 6
    BOOST_CHECK_THROW(att::forward_fused(qkv::kernels::randn(3, 6, 1), W, o), std::invalid_argument);
    o.heads = 2;
    BOOST_CHECK_THROW(att::forward_blas(qkv::kernels::randn(3, 5, 1), W, o), std::invalid_argument);
    BOOST_TEST((att::parse_impl("fused") == att::impl::fused));
    BOOST_TEST(!att::parse_impl("fast"));
}
