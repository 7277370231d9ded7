// The fused attention's own block products (tile_kernels.hpp), every build this processor runs
// (named in the test log), against products summed in double by the test itself: odd sizes that
// leave part-filled tiles, vectors and panels, B row-major and packed, alpha and accumulate, and
// the causal bands.
#define BOOST_TEST_MODULE tile_kernels
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "qkv/kernel_builds.hpp"
#include "qkv/kernels.hpp"
#include "qkv/tile_kernels.hpp"
#include "support/cpu_flags.hpp"

namespace detail = qkv::attention::detail;
using qkv::matrix;

namespace {

// The builds this processor runs, of the table's; the one in use is put back afterwards. The test
// log says which were checked and which skipped, and they must be the ones /proc/cpuinfo's flags
// allow, so an AVX-512 machine cannot leave its build unchecked without failing.
std::vector<std::string> runnable_builds() {
    const std::string test = boost::unit_test::framework::current_test_case().p_name;
    const std::string was(detail::tile_kernels_in_use());
    std::vector<std::string> out, skipped;
    for (const qkv::attention::kernel_build& b : qkv::attention::kernel_builds())
        (detail::use_tile_kernels(b.name) ? out : skipped).emplace_back(b.name);
    BOOST_TEST_REQUIRE(detail::use_tile_kernels(was));
    qkv::test::report_builds(test, out, skipped);
    if (const auto flags = qkv::test::cpu_flags(); !flags.empty())
        BOOST_TEST((out == qkv::test::builds_for(flags)), "the builds /proc/cpuinfo's flags allow");
    else
        std::cout << test << ": no x86-64 flags in /proc/cpuinfo, so which builds should run is not checked" << std::endl;
    return out;
}

// alpha · A[i, 0 … terms) · B[0 … terms, j] + c, summed in double.
double product(const matrix& A, const matrix& B, std::size_t i, std::size_t j, std::size_t terms, float alpha,
               double c) {
    double s = 0;
    for (std::size_t t = 0; t < terms; ++t) s += double(A(i, t)) * double(B(t, j));
    return alpha * s + c;
}

// Each entry within float rounding of a k-term sum of products of unit-sized numbers: about
// sqrt(k) · 6e-8 relative in practice, bounded here by k · 1.2e-7 (the worst case of k roundings).
double tolerance(std::size_t k, double scale) { return (double(k) + 2) * 1.2e-7 * scale + 1e-7; }

}  // namespace

BOOST_AUTO_TEST_CASE(products_of_every_shape_match_the_double_sums) {
    const std::string was(detail::tile_kernels_in_use());
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(detail::use_tile_kernels(build));
        for (std::size_t m : {1, 5, 6, 7, 13})
            for (std::size_t n : {1, 15, 16, 17, 63, 64, 65, 130})
                for (std::size_t k : {1, 3, 64, 129, 300, 600}) {  // 600: more than one slice of k
                    const matrix A = qkv::kernels::randn(m, k, 11 + m), B = qkv::kernels::randn(k, n, 12 + n);
                    const matrix C0 = qkv::kernels::randn(m, n, 13);
                    std::vector<float> packed(detail::packed_floats(k, n));
                    const detail::operand_b rows{B.data.data(), n, detail::panel_cols};
                    const detail::operand_b panels = detail::pack_panels(k, n, B.data.data(), n, packed.data());
                    for (bool use_packed : {false, true})
                        for (bool accumulate : {false, true}) {
                            matrix C = C0;
                            const float alpha = accumulate ? 0.5f : 1.0f;
                            detail::tile_gemm(m, n, k, alpha, A.data.data(), k, use_packed ? panels : rows, accumulate,
                                              C.data.data(), n);
                            double worst = 0;
                            for (std::size_t i = 0; i < m; ++i)
                                for (std::size_t j = 0; j < n; ++j) {
                                    const double want = product(A, B, i, j, k, alpha, accumulate ? C0(i, j) : 0.0);
                                    worst = std::max(worst,
                                                     std::fabs(C(i, j) - want) - tolerance(k, 1.0 + std::fabs(want)));
                                }
                            BOOST_TEST(worst <= 0.0, build << " m = " << m << ", n = " << n << ", k = " << k
                                                           << (use_packed ? ", packed" : ", row-major")
                                                           << (accumulate ? ", accumulate" : ""));
                        }
                }
    }
    BOOST_TEST(detail::use_tile_kernels(was));
    BOOST_TEST(!detail::use_tile_kernels("avx1024"));
}

BOOST_AUTO_TEST_CASE(causal_column_band_computes_what_the_mask_keeps) {
    // Scores: row i of a query block starting 5 keys after the key block (shift = 5) sees
    // columns j < i + 6; the entries it sees must be the product, the rest keep their sentinel
    // or the product (a tile computes up to its last row's limit).
    const std::string was(detail::tile_kernels_in_use());
    const float sentinel = std::numeric_limits<float>::quiet_NaN();
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(detail::use_tile_kernels(build));
        const std::size_t m = 20, n = 100, k = 70;
        const matrix A = qkv::kernels::randn(m, k, 1), B = qkv::kernels::randn(k, n, 2);
        const detail::operand_b rows{B.data.data(), n, detail::panel_cols};
        matrix S(m, n);
        std::fill(S.data.begin(), S.data.end(), sentinel);
        detail::tile_gemm(m, n, k, 1.0f, A.data.data(), k, rows, false, S.data.data(), n,
                          {detail::causal_band::columns, 5});
        bool seen_ok = true;
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < std::min(n, i + 6); ++j)
                seen_ok &=
                    std::fabs(S(i, j) - product(A, B, i, j, k, 1.0f, 0.0)) <= tolerance(k, 1.0 + std::fabs(S(i, j)));
        BOOST_TEST(seen_ok, build << ": scores inside the band");
        BOOST_TEST(std::isnan(S(0, 99)), build << ": a panel wholly outside the band is not touched");
    }
    BOOST_TEST(detail::use_tile_kernels(was));
}

BOOST_AUTO_TEST_CASE(causal_depth_band_sums_what_the_mask_keeps) {
    // Values: row i sums only the terms t < i + 1 + shift, where P is 0 beyond; with shift = −3
    // rows 0 … 1 sum nothing and must come out 0, not the sentinel. 69: every row sees all 70
    // terms, no band at all. With 600 terms, more than one slice of k: shift 100 ends every row's
    // terms in the first slice, 500 and 520 in the second.
    const std::string was(detail::tile_kernels_in_use());
    const float sentinel = std::numeric_limits<float>::quiet_NaN();
    const std::size_t m = 20, n = 100, k = 70;
    const matrix A = qkv::kernels::randn(m, k, 1), B = qkv::kernels::randn(k, n, 2);
    const matrix A600 = qkv::kernels::randn(m, 600, 3), B600 = qkv::kernels::randn(600, n, 4);
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(detail::use_tile_kernels(build));
        for (auto [kk, shift] : {std::pair<std::size_t, std::ptrdiff_t>{k, -3}, {k, 0}, {k, 40}, {k, 69}, {600, 100},
                                 {600, 500}, {600, 520}}) {
            matrix P = kk == k ? A : A600;  // as the softmax leaves it: 0 where row i may not look
            const matrix& V = kk == k ? B : B600;
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t t = 0; t < kk; ++t)
                    if (std::ptrdiff_t(t) >= std::ptrdiff_t(i) + 1 + shift) P(i, t) = 0.0f;
            matrix Z(m, n);
            std::fill(Z.data.begin(), Z.data.end(), sentinel);
            detail::tile_gemm(m, n, kk, 1.0f, P.data.data(), kk, {V.data.data(), n, detail::panel_cols}, false,
                              Z.data.data(), n, {detail::causal_band::depth, shift});
            bool ok = true;
            for (std::size_t i = 0; i < m; ++i) {
                const std::ptrdiff_t end = std::ptrdiff_t(i) + 1 + shift;
                const std::size_t terms = end <= 0 ? 0 : std::min<std::size_t>(kk, std::size_t(end));
                for (std::size_t j = 0; j < n; ++j) {
                    const double want = product(P, V, i, j, terms, 1.0f, 0.0);
                    ok &= std::fabs(Z(i, j) - want) <= tolerance(kk, 1.0 + std::fabs(want));
                }
            }
            BOOST_TEST(ok, build << ": values with depth band shift " << shift << " over " << kk << " terms");
        }
    }
    BOOST_TEST(detail::use_tile_kernels(was));
}

BOOST_AUTO_TEST_CASE(products_with_a_transposed_match_the_double_sums) {
    // tile_gemm_ta reads A stored (k, m) down its columns: the same double sums as above with
    // A(i, t) taken from the stored At(t, i).
    const std::string was(detail::tile_kernels_in_use());
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(detail::use_tile_kernels(build));
        for (std::size_t m : {1, 6, 7, 13, 64})
            for (std::size_t n : {1, 17, 64, 65})
                for (std::size_t k : {1, 64, 129, 600}) {
                    const matrix At = qkv::kernels::randn(k, m, 21 + m), B = qkv::kernels::randn(k, n, 22 + n);
                    const matrix A = qkv::kernels::transpose(At), C0 = qkv::kernels::randn(m, n, 23);
                    for (bool accumulate : {false, true}) {
                        matrix C = C0;
                        const float alpha = accumulate ? 0.5f : 1.0f;
                        detail::tile_gemm_ta(m, n, k, alpha, At.data.data(), m, {B.data.data(), n, detail::panel_cols},
                                             accumulate, C.data.data(), n);
                        double worst = 0;
                        for (std::size_t i = 0; i < m; ++i)
                            for (std::size_t j = 0; j < n; ++j) {
                                const double want = product(A, B, i, j, k, alpha, accumulate ? C0(i, j) : 0.0);
                                worst = std::max(worst, std::fabs(C(i, j) - want) - tolerance(k, 1.0 + std::fabs(want)));
                            }
                        BOOST_TEST(worst <= 0.0, build << " transposed A: m = " << m << ", n = " << n << ", k = " << k
                                                       << (accumulate ? ", accumulate" : ""));
                    }
                }
    }
    BOOST_TEST(detail::use_tile_kernels(was));
}

BOOST_AUTO_TEST_CASE(finished_products_match_the_double_sums_finished) {
    // tile_gemm_exp2 and tile_gemm_times finish each entry x = alpha · (A·B)_ij − o_i before
    // storing it (alpha 1 for times; 1 and 0.18 for exp2, as the backward's base-2 scale). Against
    // the double sums: x within tolerance(k, 1 + |A·B| + |o|) (the product's roundings and the offset's); 2^x then within that times ln 2 relative, plus 3e-7 for the polynomial
    // and the float result; the row's sum within the largest term's error times n; P ⊙ x within
    // |P| times x's. The rows' offsets lie near their largest products, as the softmax's maxima do.
    const std::string was(detail::tile_kernels_in_use());
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(detail::use_tile_kernels(build));
        for (std::size_t m : {1, 5, 6, 7, 13})
            for (std::size_t n : {1, 15, 16, 17, 63, 64, 65, 130, 256})
                for (std::size_t k : {1, 3, 64, 129}) {
                    const matrix A = qkv::kernels::randn(m, k, 31 + m), B = qkv::kernels::randn(k, n, 32 + n);
                    const matrix Pm = qkv::kernels::randn(m, n, 33), Om = qkv::kernels::randn(m, 1, 34 + k);
                    std::vector<float> o(m), sum(m, -1.0f);
                    for (std::size_t i = 0; i < m; ++i) o[i] = 0.5f * std::sqrt(float(k)) * Om(i, 0);
                    std::vector<float> packed(detail::packed_floats(k, n));
                    const detail::operand_b rows{B.data.data(), n, detail::panel_cols};
                    const detail::operand_b panels = detail::pack_panels(k, n, B.data.data(), n, packed.data());
                    for (auto [use_packed, alpha] : {std::pair{false, 1.0f}, {true, 1.0f}, {true, 0.18f}}) {
                        const detail::operand_b& Bo = use_packed ? panels : rows;
                        matrix E(m, n), T(m, n), E_plain(m, n);
                        detail::tile_gemm_exp2(m, n, k, alpha, A.data.data(), k, Bo, o.data(), E.data.data(), n,
                                               sum.data());
                        detail::tile_gemm_exp2(m, n, k, alpha, A.data.data(), k, Bo, o.data(), E_plain.data.data(), n);
                        detail::tile_gemm_times(m, n, k, A.data.data(), k, Bo, o.data(), Pm.data.data(), n,
                                                T.data.data(), n);
                        bool exps_ok = true, sums_ok = true, times_ok = true, same_ok = true;
                        for (std::size_t i = 0; i < m; ++i) {
                            double want_sum = 0, sum_err = 0;
                            for (std::size_t j = 0; j < n; ++j) {
                                const double ab = product(A, B, i, j, k, 1.0f, 0.0), x = alpha * ab - o[i];
                                const double dx = tolerance(k, 1.0 + std::fabs(ab) + std::fabs(o[i]));
                                const double e = std::exp2(x), de = e * (dx * std::log(2.0) + 3e-7);
                                exps_ok &= std::fabs(E(i, j) - e) <= de;
                                same_ok &= E(i, j) == E_plain(i, j);
                                const double xt = ab - o[i];  // times: alpha 1
                                times_ok &= std::fabs(T(i, j) - Pm(i, j) * xt) <= std::fabs(Pm(i, j)) * dx + 1e-7;
                                want_sum += e, sum_err += de + e * 1.2e-7 * double(n);
                            }
                            sums_ok &= std::fabs(sum[i] - want_sum) <= sum_err;
                        }
                        const std::string what = build + " m = " + std::to_string(m) + ", n = " + std::to_string(n) +
                                                 ", k = " + std::to_string(k) + (use_packed ? ", packed" : ", row-major") +
                                                 ", alpha " + std::to_string(alpha);
                        BOOST_TEST(exps_ok, what << ": 2^x");
                        BOOST_TEST(same_ok, what << ": 2^x the same without the rows' sums");
                        BOOST_TEST(sums_ok, what << ": the rows' sums");
                        BOOST_TEST(times_ok, what << ": P ⊙ x");
                    }
                }
    }
    BOOST_TEST(detail::use_tile_kernels(was));
}

BOOST_AUTO_TEST_CASE(transposes_move_every_entry_and_nothing_else) {
    // Each entry is moved, not computed: out(c, i) must equal M(i, c) exactly, for sizes that
    // leave part-filled 16 × 16 blocks both ways; the sentinels past each row of out (out_ld is
    // wider than rows) must be left alone.
    const std::string was(detail::tile_kernels_in_use());
    const float sentinel = -7.0f;
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(detail::use_tile_kernels(build));
        for (std::size_t rows : {1, 15, 16, 17, 40, 256})
            for (std::size_t cols : {1, 7, 16, 33, 64}) {
                const std::size_t ld = cols + 3, out_ld = rows + 5;
                const matrix M = qkv::kernels::randn(rows, ld, 41 + rows + cols);
                std::vector<float> out(cols * out_ld, sentinel);
                detail::transpose(rows, cols, M.data.data(), ld, out.data(), out_ld);
                bool moved = true, untouched = true;
                for (std::size_t c = 0; c < cols; ++c) {
                    for (std::size_t i = 0; i < rows; ++i) moved &= out[c * out_ld + i] == M(i, c);
                    for (std::size_t i = rows; i < out_ld; ++i) untouched &= out[c * out_ld + i] == sentinel;
                }
                BOOST_TEST(moved, build << " rows = " << rows << ", cols = " << cols);
                BOOST_TEST(untouched, build << " rows = " << rows << ", cols = " << cols << ": past the rows");
            }
    }
    BOOST_TEST(detail::use_tile_kernels(was));
}
