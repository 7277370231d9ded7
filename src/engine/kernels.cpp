// The plain kernels of attention, each a loop that reads like its formula. matmul_ref is the
// reference blas::gemm is tested against; the rest are the only implementations.
#include "qkv/kernels.hpp"

#include <atomic>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace qkv::kernels {

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();
constexpr float nan = std::numeric_limits<float>::quiet_NaN();

// a · b over d entries, accumulated in double
double dot(const float* a, const float* b, std::size_t d) {
    double sum = 0.0;
    for (std::size_t p = 0; p < d; ++p) sum += double(a[p]) * b[p];
    return sum;
}

}  // namespace

matrix matmul_ref(const matrix& A, const matrix& B) {
    // C[i][j] = sum_p A[i][p] * B[p][j]; double so the reference is more exact than what it checks
    if (A.cols != B.rows)
        throw std::invalid_argument(fmt::format("matmul_ref: {} @ {}", shape_str(A), shape_str(B)));
    matrix C(A.rows, B.cols);  // C: [m, n]
    for (std::size_t i = 0; i < A.rows; ++i)
        for (std::size_t j = 0; j < B.cols; ++j) {
            double acc = 0.0;
            for (std::size_t p = 0; p < A.cols; ++p) acc += double(A(i, p)) * double(B(p, j));
            C(i, j) = static_cast<float>(acc);
        }
    return C;
}

matrix transpose(const matrix& A) {
    // T[j][i] = A[i][j]
    matrix T(A.cols, A.rows);  // T: [n, m]
    for (std::size_t i = 0; i < A.rows; ++i)
        for (std::size_t j = 0; j < A.cols; ++j) T(j, i) = A(i, j);
    return T;
}

matrix softmax_rows(const matrix& S) {
    // A[i][j] = exp(S[i][j] - max_j S[i]) / sum_j exp(S[i][j] - max_j S[i])
    matrix A(S.rows, S.cols);  // A: [m, n], each row a distribution
    for (std::size_t i = 0; i < S.rows; ++i) {
        const float* s = S.row(i);
        float* a = A.row(i);
        // pass 1: the row max; subtracting it is for numerical stability (exp never overflows)
        float max = neg_inf;
        for (std::size_t j = 0; j < S.cols; ++j) max = std::fmax(max, s[j]);
        if (max == neg_inf) {  // everything masked: no distribution exists
            for (std::size_t j = 0; j < S.cols; ++j) a[j] = nan;
            continue;
        }
        // pass 2: exp and sum (exp(-inf) is exactly 0, so masked keys get exactly 0)
        double sum = 0.0;
        for (std::size_t j = 0; j < S.cols; ++j) {
            a[j] = std::exp(s[j] - max);
            sum += a[j];
        }
        // pass 3: normalise
        for (std::size_t j = 0; j < S.cols; ++j) a[j] = static_cast<float>(a[j] / sum);
    }
    return A;
}

matrix softmax_rows_naive(const matrix& S) {
    // A[i][j] = exp(S[i][j]) / sum_j exp(S[i][j]), as the formula is first written
    matrix A(S.rows, S.cols);  // A: [m, n]
    for (std::size_t i = 0; i < S.rows; ++i) {
        float sum = 0.0f;  // float on purpose: exp(89) already overflows it, as PyTorch's would
        for (std::size_t j = 0; j < S.cols; ++j) {
            A(i, j) = std::exp(S(i, j));
            sum += A(i, j);
        }
        for (std::size_t j = 0; j < S.cols; ++j) A(i, j) /= sum;
    }
    return A;
}

matrix softmax_cols(const matrix& S) {
    // A[i][j] = exp(S[i][j]) / sum_i exp(S[i][j]): each column sums to 1, not each row
    return transpose(softmax_rows(transpose(S)));
}

matrix cosine_rows(const matrix& A, const matrix& B) {
    // C[i][j] = A_i · B_j / (|A_i| |B_j|); 0 when either row is all zeros (no direction)
    if (A.cols != B.cols)
        throw std::invalid_argument(fmt::format("cosine_rows: {} vs {}", shape_str(A), shape_str(B)));
    const std::size_t d = A.cols;
    std::vector<double> norm_A(A.rows), norm_B(B.rows);  // each row's length, once
    for (std::size_t i = 0; i < A.rows; ++i) norm_A[i] = std::sqrt(dot(A.row(i), A.row(i), d));
    for (std::size_t j = 0; j < B.rows; ++j) norm_B[j] = std::sqrt(dot(B.row(j), B.row(j), d));
    matrix C(A.rows, B.rows);  // C: [m, n]
    for (std::size_t i = 0; i < A.rows; ++i)
        for (std::size_t j = 0; j < B.rows; ++j) {
            const double length = norm_A[i] * norm_B[j];
            C(i, j) = length == 0.0 ? 0.0f : static_cast<float>(dot(A.row(i), B.row(j), d) / length);
        }
    return C;
}

matrix causal_mask(std::size_t n) {
    // M[i][j] = 0 if j <= i else -inf: query i sees keys 0..i
    matrix M(n, n);  // M: [n, n]
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) M(i, j) = neg_inf;
    return M;
}

matrix row_sums(const matrix& A) {
    // r[i] = sum_j A[i][j]
    matrix r(A.rows, 1);  // r: [m, 1]
    for (std::size_t i = 0; i < A.rows; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < A.cols; ++j) sum += A(i, j);
        r(i, 0) = static_cast<float>(sum);
    }
    return r;
}

matrix softmax_jacobian_norm(const matrix& P) {
    // g[i] = || diag(p) - p p^T ||_F with p = P[i]: entry (a, b) is p_a [a == b] - p_a p_b
    matrix g(P.rows, 1);  // g: [m, 1]
    for (std::size_t i = 0; i < P.rows; ++i) {
        const float* p = P.row(i);
        double sq = 0.0;
        for (std::size_t a = 0; a < P.cols; ++a)
            for (std::size_t b = 0; b < P.cols; ++b) {
                const double J = (a == b ? double(p[a]) : 0.0) - double(p[a]) * p[b];
                sq += J * J;
            }
        g(i, 0) = static_cast<float>(std::sqrt(sq));
    }
    return g;
}

namespace {

// xoshiro256** seeded through splitmix64: tiny, fast, and defined bit for bit, so a seed gives the
// same matrix on every machine (std::normal_distribution's output is left to each library).
class xoshiro256 {
public:
    explicit xoshiro256(std::uint64_t seed) {
        for (auto& word : s_) {
            seed += 0x9e3779b97f4a7c15ULL;  // splitmix64
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            word = z ^ (z >> 31);
        }
    }
    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform in [0, 1) from the top 53 bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

// Marsaglia's polar method: for (u, v) uniform in the unit disc, s = u² + v²,
// u·sqrt(-2 ln s / s) and v·sqrt(-2 ln s / s) are independent N(0, 1). No sin or cos: fast.
matrix draw_randn(std::size_t r, std::size_t c, std::uint64_t seed) {
    xoshiro256 gen(seed);
    matrix X(r, c);  // X: [r, c]
    for (std::size_t i = 0; i < X.size(); i += 2) {
        double u = 0, v = 0, s = 0;
        do {
            u = 2.0 * gen.uniform() - 1.0;
            v = 2.0 * gen.uniform() - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        X.data[i] = static_cast<float>(u * f);
        if (i + 1 < X.size()) X.data[i + 1] = static_cast<float>(v * f);
    }
    return X;
}

}  // namespace

namespace {

std::atomic<std::size_t> draws_kept_budget{0};

}  // namespace

void keep_draws(std::size_t bytes) { draws_kept_budget = bytes; }

matrix draw_uniform(std::size_t r, std::size_t c, std::uint64_t seed) {
    xoshiro256 gen(seed);
    matrix U(r, c);  // U: [r, c], each cell uniform in [0, 1)
    for (float& x : U.data) x = static_cast<float>(gen.uniform());
    return U;
}

namespace {

// The same (kind, r, c, seed) gives the same numbers, so a server keeps the last few drawn
// (keep_draws): a lesson's fixed random inputs (lesson 4 draws 1.2 million samples with seeds of
// its own; lesson 8 its four [512, 512] weights) are drawn once, not on every run a class's answers
// make of it. The least recently used go first.
matrix kept_or_drawn(matrix (*draw)(std::size_t, std::size_t, std::uint64_t), std::size_t r, std::size_t c,
                     std::uint64_t seed) {
    const std::size_t budget = draws_kept_budget;
    if (budget == 0 || r * c * sizeof(float) > budget / 4) return draw(r, c, seed);
    struct kept {
        matrix (*draw)(std::size_t, std::size_t, std::uint64_t);
        std::size_t r, c;
        std::uint64_t seed;
        std::shared_ptr<const matrix> X;
    };
    static std::mutex m;
    static std::deque<kept> recent;  // the one used last, last
    {
        const std::lock_guard<std::mutex> hold(m);
        for (auto it = recent.begin(); it != recent.end(); ++it)
            if (it->draw == draw && it->r == r && it->c == c && it->seed == seed) {  // used again: the newest now
                kept k = *it;
                recent.erase(it);
                recent.push_back(k);
                return *k.X;
            }
    }
    auto X = std::make_shared<const matrix>(draw(r, c, seed));
    const std::lock_guard<std::mutex> hold(m);
    recent.push_back({draw, r, c, seed, X});
    std::size_t bytes = 0;
    for (const kept& k : recent) bytes += k.X->data.size() * sizeof(float);
    while (bytes > budget) bytes -= recent.front().X->data.size() * sizeof(float), recent.pop_front();
    return *X;
}

}  // namespace

matrix randn(std::size_t r, std::size_t c, std::uint64_t seed) { return kept_or_drawn(draw_randn, r, c, seed); }

matrix rand_uniform(std::size_t r, std::size_t c, std::uint64_t seed) { return kept_or_drawn(draw_uniform, r, c, seed); }

}  // namespace qkv::kernels
