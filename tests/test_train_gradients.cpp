// Every parameter's gradient of `qkv train`'s model held to central finite differences of a loss
// this file computes itself: its own loops for the whole forward pass, in double, written from
// the README's description of the model (x_i = E[t_i] + P[i]; each layer adds Σ_h softmax(causal(
// Q Kᵀ / √d_k)) V W_O; logits = X U; the mean cross-entropy of each next token), sharing no code
// with src/train/. Then the threads: a share of the batch per thread changes only rounding, and the
// same seed and thread count give the same run bit for bit.
#define BOOST_TEST_MODULE train_gradients
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "qkv/attention_layer.hpp"
#include "qkv/head_scores.hpp"
#include "qkv/trainer.hpp"

using namespace qkv::train;

namespace {

// A model small enough that every one of its weights can be nudged: V 5, T 6, C 4, H 2, L 2,
// 3 sequences of the induction task; weights of unit scale so that every path carries gradient.
train_config tiny(int threads = 1) {
    train_config c;
    c.size = {5, 6, 4, 2, 2};
    c.batch = 3;
    c.steps = 5;
    c.init_embedding = 1.0f, c.init_position = 1.0f, c.init_gain = 1.0f;
    c.threads = threads;
    c.seed = 7;
    resolve_segments(c);
    check_config(c);
    return c;
}

// Where each tensor starts, counted here from the README's order: E [V, C], P [T, C], then per layer
// W_Q, W_K, W_V, W_O [C, C], then U [C, V].
struct layout {
    std::size_t V, T, C, H, L;
    std::size_t E() const { return 0; }
    std::size_t P() const { return V * C; }
    std::size_t W(std::size_t l, std::size_t which) const { return V * C + T * C + (4 * l + which) * C * C; }
    std::size_t U() const { return V * C + T * C + 4 * L * C * C; }
    std::size_t total() const { return U() + C * V; }
};

using mat = std::vector<std::vector<double>>;

mat product(const mat& X, const std::vector<double>& w, std::size_t at, std::size_t rows, std::size_t cols) {
    mat out(X.size(), std::vector<double>(cols, 0.0));
    for (std::size_t i = 0; i < X.size(); ++i)
        for (std::size_t k = 0; k < rows; ++k)
            for (std::size_t j = 0; j < cols; ++j) out[i][j] += X[i][k] * w[at + k * cols + j];
    return out;
}

// One sequence's summed next-token loss; `off` (layer · H + head) is a head switched off, or −1.
double sequence_loss(const std::vector<double>& w, const layout& s, const int* tok, long off = -1) {
    const std::size_t T = s.T, C = s.C, d_k = C / s.H;
    mat X(T, std::vector<double>(C));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t c = 0; c < C; ++c) X[t][c] = w[s.E() + tok[t] * C + c] + w[s.P() + t * C + c];
    for (std::size_t l = 0; l < s.L; ++l) {
        const mat Q = product(X, w, s.W(l, 0), C, C), K = product(X, w, s.W(l, 1), C, C), V = product(X, w, s.W(l, 2), C, C);
        mat Z(T, std::vector<double>(C, 0.0));
        for (std::size_t h = 0; h < s.H; ++h) {
            if (long(l * s.H + h) == off) continue;
            for (std::size_t i = 0; i < T; ++i) {
                std::vector<double> a(i + 1);
                double top = -1e300, sum = 0.0;
                for (std::size_t j = 0; j <= i; ++j) {
                    for (std::size_t c = 0; c < d_k; ++c) a[j] += Q[i][h * d_k + c] * K[j][h * d_k + c];
                    a[j] /= std::sqrt(double(d_k));
                    top = std::max(top, a[j]);
                }
                for (double& x : a) sum += (x = std::exp(x - top));
                for (std::size_t j = 0; j <= i; ++j)
                    for (std::size_t c = 0; c < d_k; ++c) Z[i][h * d_k + c] += a[j] / sum * V[j][h * d_k + c];
            }
        }
        const mat out = product(Z, w, s.W(l, 3), C, C);
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t c = 0; c < C; ++c) X[t][c] += out[t][c];
    }
    const mat logits = product(X, w, s.U(), C, s.V);
    double loss = 0.0;
    for (std::size_t t = 0; t + 1 < T; ++t) {
        double top = -1e300, sum = 0.0;
        for (double z : logits[t]) top = std::max(top, z);
        for (double z : logits[t]) sum += std::exp(z - top);
        loss += std::log(sum) + top - logits[t][tok[t + 1]];
    }
    return loss;
}

double mean_loss(const std::vector<double>& w, const layout& s, const batch& b) {
    double sum = 0.0;
    for (std::size_t q = 0; q < b.count; ++q) sum += sequence_loss(w, s, &b.tokens[q * s.T]);
    return sum / double(b.count * (s.T - 1));
}

layout layout_of(const train_config& c) {
    return {c.size.vocab, c.size.seq, c.size.d_model, c.size.heads, c.size.layers};
}

std::vector<double> as_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

}  // namespace

void check_every_gradient(const train_config& c) {
    trainer t(c);
    const batch b = make_batch(c, 1);
    t.gradients_of(b);
    const std::vector<float>& g = t.grads().data();
    std::vector<double> w = as_double(t.weights().data());
    const layout s = layout_of(c);
    // ε = 1e-5: the truncation error of a central difference is ~ε²·|L'''| ≈ 1e-10 and the
    // rounding of a double loss ~1e-16 / ε ≈ 1e-11, so each difference is exact to ~1e-9; the
    // float32 gradient's own error is ~1e-6 of the largest one (a few hundred float operations
    // deep). 1e-4 of the largest gradient is far above both and far below a missing term of the
    // chain rule, which moves entries by whole percents.
    const double eps = 1e-5;
    double largest = 0.0;
    std::vector<double> fd(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double keep = w[i];
        w[i] = keep + eps;
        const double up = mean_loss(w, s, b);
        w[i] = keep - eps;
        const double down = mean_loss(w, s, b);
        w[i] = keep;
        fd[i] = (up - down) / (2 * eps);
        largest = std::max(largest, std::abs(fd[i]));
    }
    BOOST_TEST_REQUIRE(largest > 1e-3);  // the check means something only if gradients are not all ~0
    std::size_t bad = 0;
    for (const tensor_spec& spec : t.weights().table()) {
        double worst = 0.0;
        for (std::size_t i = spec.offset; i < spec.offset + spec.size(); ++i) {
            const double err = std::abs(double(g[i]) - fd[i]);
            worst = std::max(worst, err);
            if (err > 1e-4 * largest && bad++ < 5)
                BOOST_ERROR(spec.full_name() << " entry " << i - spec.offset << ": backward " << g[i] << ", finite difference " << fd[i]);
        }
        std::printf("%-11s first %+.6f (fd %+.6f), largest error %.2e\n", spec.full_name().c_str(), g[spec.offset],
                    fd[spec.offset], worst);
    }
    BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_CASE(every_gradient_is_the_central_difference_of_the_double_loss) { check_every_gradient(tiny()); }

BOOST_AUTO_TEST_CASE(the_fused_backward_of_long_sequences_is_the_central_difference_too) {
    // 130 positions: long enough that the attention's backward is the fused one (from 128 on),
    // and not a whole number of its 64-row query blocks
    train_config c = tiny();
    c.size.seq = 130;
    c.batch = 2;
    resolve_segments(c);
    check_config(c);
    BOOST_TEST_REQUIRE(fused_backward_pays({c.batch, c.size.seq, c.size.d_model, c.size.heads}));
    check_every_gradient(c);
}

BOOST_AUTO_TEST_CASE(the_parameter_table_is_the_readme_order) {
    const train_config c = tiny();
    const layout s = layout_of(c);
    const parameters p(c.size);
    BOOST_TEST(p.data().size() == s.total());  // 5·4 + 6·4 + 2·4·16 + 4·5 = 192
    BOOST_TEST(s.total() == 192u);
    BOOST_TEST(p.table()[1].full_name() == "P");
    BOOST_TEST(p.table()[1].offset == s.P());
    BOOST_TEST(p.table()[7].full_name() == "layer2.W_K");
    BOOST_TEST(p.table()[7].offset == s.W(1, 1));
    BOOST_TEST(p.table().back().full_name() == "U");
    BOOST_TEST(p.table().back().offset == s.U());
}

BOOST_AUTO_TEST_CASE(the_loss_is_the_double_forward_within_float_rounding) {
    const train_config c = tiny();
    trainer t(c);
    const batch b = make_batch(c, 1);
    const double exact = mean_loss(as_double(t.weights().data()), layout_of(c), b);
    const step_record r = t.gradients_of(b);
    std::printf("loss: float %.8f, double %.8f\n", r.loss, exact);
    // float32 carries ~6e-8 relative per operation and the loss is a few dozen operations deep
    BOOST_TEST(std::abs(r.loss - exact) <= 1e-5 * exact);
}

// Every gradient of the model c against the central differences of this file's double loss.

BOOST_AUTO_TEST_CASE(a_switched_off_head_is_the_double_forward_without_it) {
    train_config c = tiny();
    c.batch = 1;
    trainer t(c);
    const batch held = held_out(c);
    const std::vector<double> w = as_double(t.weights().data());
    for (long off = 0; off < 4; ++off) {
        head_mask mask(4, false);
        mask[static_cast<std::size_t>(off)] = true;
        const probe_result p = probe(c, t.weights(), held, &mask);
        const double exact = sequence_loss(w, layout_of(c), held.tokens.data(), off) / double(c.size.seq - 1);
        BOOST_TEST(std::abs(p.loss - exact) <= 1e-5 * exact);
    }
}

BOOST_AUTO_TEST_CASE(shares_of_the_batch_change_only_the_rounding) {
    trainer one(tiny(1)), two(tiny(2));
    const batch b = make_batch(tiny(), 1);
    const step_record r1 = one.gradients_of(b), r2 = two.gradients_of(b);
    BOOST_TEST(std::abs(r1.loss - r2.loss) <= 1e-6 * r1.loss);
    double largest = 0.0, worst = 0.0;
    for (std::size_t i = 0; i < one.grads().data().size(); ++i) {
        largest = std::max(largest, double(std::abs(one.grads().data()[i])));
        worst = std::max(worst, double(std::abs(one.grads().data()[i] - two.grads().data()[i])));
    }
    BOOST_TEST(worst <= 1e-6 * largest);  // sums of two or three shares in another order: float rounding
}

BOOST_AUTO_TEST_CASE(the_same_seed_and_threads_give_the_same_run_bit_for_bit) {
    for (int threads : {1, 2}) {
        trainer a(tiny(threads)), b(tiny(threads));
        for (int k = 0; k < 5; ++k) {
            const step_record ra = a.step(), rb = b.step();
            BOOST_TEST(ra.loss == rb.loss);
        }
        BOOST_TEST((a.weights().data() == b.weights().data()));
    }
}

BOOST_AUTO_TEST_CASE(another_seed_gives_other_weights) {
    train_config c = tiny();
    trainer a(c);
    c.seed = 8;
    trainer b(c);
    BOOST_TEST((a.weights().data() != b.weights().data()));
}
