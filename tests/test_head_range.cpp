// The fused attention on a range of heads alone (options first_head, head_count): what one rank of
// tensor parallelism computes. The ranges of a split, summed, are the whole layer by the reference.
#define BOOST_TEST_MODULE head_range
#include <boost/test/unit_test.hpp>

#include <stdexcept>

#include "qkv/attention.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/kernels.hpp"
#include "support/attention_weights.hpp"
#include "support/close.hpp"

using qkv::matrix;
namespace att = qkv::attention;
using qkv::test::random_weights;
using qkv::test::rel_diff;

BOOST_AUTO_TEST_CASE(the_ranges_of_a_split_sum_to_the_whole_layer) {
    // Σ_i head_i·W_O,i split into P ranges and added back is the same sum in another order: within
    // 1e-4 of the largest entry (float32, a few hundred terms per entry), the bound the fused pass
    // is already held to against the reference.
    const std::size_t d = 32, n = 70;
    const att::weights W = random_weights(d, 300);
    const matrix X = qkv::kernels::randn(n, d, 301);
    for (bool causal : {false, true}) {
        att::options o;
        o.heads = 8, o.causal = causal, o.block_q = 16, o.block_k = 24;
        const matrix whole = att::forward_reference(X, W, o);
        for (std::size_t P : {1, 2, 4, 8}) {
            matrix sum(n, d);
            for (std::size_t r = 0; r < P; ++r) {
                att::options mine = o;
                mine.first_head = r * 8 / P, mine.head_count = 8 / P;
                const matrix part = att::forward_fused(X, W, mine);
                for (std::size_t i = 0; i < sum.size(); ++i) sum.data[i] += part.data[i];
            }
            BOOST_TEST(rel_diff(sum, whole) < 1e-4f, "P = " << P << ", causal = " << causal);
        }
    }
}

BOOST_AUTO_TEST_CASE(one_range_is_only_its_heads) {
    // heads 3 and 4 of 4 with W_O zero outside rows 2·d_k … 4·d_k: the whole layer is those heads alone
    const std::size_t d = 16, n = 9, d_k = 4;
    att::weights W = random_weights(d, 400);
    for (std::size_t r = 0; r < 2 * d_k; ++r)
        for (std::size_t c = 0; c < d; ++c) W.W_O(r, c) = 0.0f;
    const matrix X = qkv::kernels::randn(n, d, 401);
    att::options o;
    o.heads = 4;
    att::options mine = o;
    mine.first_head = 2, mine.head_count = 2;
    BOOST_TEST(rel_diff(att::forward_fused(X, W, mine), att::forward_reference(X, W, o)) < 1e-5f);
}

BOOST_AUTO_TEST_CASE(a_range_that_does_not_fit_is_refused) {
    const att::weights W = random_weights(8, 500);
    const matrix X = qkv::kernels::randn(3, 8, 501);
    att::options o;
    o.heads = 4, o.first_head = 3, o.head_count = 2;  // heads 4 and 5 of 4
    BOOST_CHECK_THROW(att::forward_fused(X, W, o), std::invalid_argument);
    o.first_head = 0, o.head_count = 3;  // 3 does not divide 4
    BOOST_CHECK_THROW(att::forward_fused(X, W, o), std::invalid_argument);
}
