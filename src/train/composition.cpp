// How the heads of lesson 18's model compose (composition.hpp): the score of two circuits, its
// random baseline, and the built-ins that read a layer's trained weights for lesson 19.
#include "qkv/composition.hpp"

#include <fmt/format.h>

#include "lesson_runs.hpp"
#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv::train {

using namespace builtin_detail;

double composition_score(const matrix& A, const matrix& B) {
    const double norms = frobenius(A) * frobenius(B);
    if (norms == 0.0) return 0.0;        // a head that writes or reads nothing composes with nothing
    return frobenius(mm(A, B)) / norms;  // A·B: [n, m] @ [m, p] -> [n, p]
}

matrix composition_table(const std::vector<matrix>& senders, const std::vector<matrix>& receivers) {
    matrix out(senders.size(), receivers.size());  // [senders, receivers]
    for (std::size_t i = 0; i < senders.size(); ++i)
        for (std::size_t j = 0; j < receivers.size(); ++j)
            out(i, j) = static_cast<float>(composition_score(senders[i], receivers[j]));
    return out;
}

composition_scores random_composition(std::size_t d_model, std::size_t d_k, std::size_t samples, std::uint64_t seed) {
    composition_scores mean;
    for (std::size_t s = 0; s < samples; ++s) {
        // six weights per pair, each from its own stream: seed·10⁶ + 8·sample + k
        std::uint64_t stream = seed * 1000000 + 8 * s;
        const auto draw = [&](std::size_t r, std::size_t c) { return kernels::randn(r, c, stream++); };
        const matrix V1 = draw(d_model, d_k), O1 = draw(d_k, d_model);  // sender
        const matrix Q2 = draw(d_model, d_k), K2 = draw(d_model, d_k);  // receiver
        const matrix V2 = draw(d_model, d_k), O2 = draw(d_k, d_model);
        const matrix OV1 = mm(V1, O1);    // [d_model, d_k] @ [d_k, d_model] -> [d_model, d_model]
        const matrix QK2 = mm_t(Q2, K2);  // [d_model, d_k] @ [d_model, d_k]ᵀ -> [d_model, d_model]
        const matrix OV2 = mm(V2, O2);    // [d_model, d_model]
        mean.q += composition_score(OV1, QK2);
        mean.k += composition_score(OV1, kernels::transpose(QK2));
        mean.v += composition_score(OV1, OV2);
    }
    const double n = samples ? double(samples) : 1.0;
    mean.q /= n, mean.k /= n, mean.v /= n;
    return mean;
}

namespace {

// transformer_W_Q(steps, seed, layer) and its three kin: one of lesson 18's trained weights
// [d_model, d_model] of one layer, after the last step. Head h's share is columns h·d_k … of W_Q,
// W_K and W_V and rows h·d_k … of W_O, which split_heads and split_rows cut out.
template <const char* Name>
value weight_fn(const args_t& a, eval_context& ctx) {
    const std::string fn = fmt::format("transformer_{}", Name);
    const lesson_run& r = run_of(a, fn.c_str(), ctx);
    const std::size_t layers = r.config.size.layers;
    const std::size_t layer = whole(a[2], 1, fn.c_str(), "layer", ctx);
    if (layer > layers) formula_error(ctx, fmt::format("{}: layer must be 1 to {}, got {}", fn, layers, layer));
    for (const tensor_spec& t : r.weights.table())
        if (t.name == Name && t.layer == layer) {
            const float* first = r.weights.data().data() + t.offset;
            return labelled(matrix(t.rows, t.cols, std::vector<float>(first, first + t.size())), {{}, "features"},
                            {{}, "features"});
        }
    formula_error(ctx, fmt::format("{}: the run has no {} in layer {}", fn, Name, layer));
}

constexpr char W_Q[] = "W_Q", W_K[] = "W_K", W_V[] = "W_V", W_O[] = "W_O";

// "1.1", "1.2", … for the heads of `layer`, or no names when the formula gave none.
labels head_names(std::size_t count, const args_t& a, std::size_t at, eval_context& ctx) {
    labels out{{}, "heads"};
    if (a.size() <= at) return out;
    const std::size_t layer = whole(a[at], 1, "composition_scores", at == 2 ? "layer_a" : "layer_b", ctx);
    for (std::size_t h = 1; h <= count; ++h) out.names.push_back(fmt::format("{}.{}", layer, h));
    return out;
}

value composition_scores_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "composition_scores";
    need_mats(a[0], fn, "A", ctx);
    need_mats(a[1], fn, "B", ctx);
    const matrix &A = a[0].mats.front(), &B = a[1].mats.front();
    if (A.cols != B.rows)
        formula_error(ctx,
                      fmt::format("{}: each A·B needs the columns of A ({}) to equal the rows of B ({}): {} and {}", fn,
                                  A.cols, B.rows, a[0].shape_str(), a[1].shape_str()));
    if (a.size() == 3) formula_error(ctx, fmt::format("{}: give both layer_a and layer_b, or neither", fn));
    const labels rows = head_names(a[0].mats.size(), a, 2, ctx), cols = head_names(a[1].mats.size(), a, 3, ctx);
    return labelled(composition_table(a[0].mats, a[1].mats), rows, cols);  // [heads of A, heads of B]
}

value composition_baseline_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "composition_baseline";
    const std::size_t d_model = whole(a[0], 1, fn, "d_model", ctx), d_k = whole(a[1], 1, fn, "d_k", ctx);
    const std::size_t samples = whole(a[2], 1, fn, "samples", ctx);
    // each sample draws six matrices of d_model × d_k: a lesson's baseline should take a moment, not
    // minutes; and at most 10⁵ samples keep every seed's streams apart (random_composition)
    if (d_model > 1024 || d_k > d_model || samples > 100000 ||
        samples * d_model * d_model * d_k > (std::size_t{1} << 32))
        formula_error(ctx, fmt::format("{}: needs d_k ≤ d_model ≤ 1024, samples ≤ 100000 and samples · d_model² · d_k "
                                       "≤ 2^32, got d_model {}, d_k {}, samples {}",
                                       fn, d_model, d_k, samples));
    const composition_scores s = random_composition(d_model, d_k, samples, whole(a[3], 0, fn, "seed", ctx));
    return labelled(matrix::of({{float(s.q), float(s.k), float(s.v)}}), {{}, ""}, {{"Q", "K", "V"}, ""});
}

// The work they state. A trained weight: the training of its run (lesson_runs.hpp). Scores: a
// product A_i · B_j [r, c] @ [c, p] and three norms for every pair of heads. The baseline: per
// sample six draws of d_model × d_k, two circuits of 2·d_model²·d_k and three scores of
// 2·d_model³ (0 for sizes the built-in refuses).
double scores_work(const args_t& a) {
    const double r = rows_of(a[0]), c = cols_of(a[0]), p = cols_of(a[1]);
    return heads_of(a[0]) * heads_of(a[1]) * (2 * r * c * p + 2 * (r * c + c * p + r * p));
}
double baseline_work(const args_t& a) {
    const double d = size_of(a[0]), d_k = size_of(a[1]), samples = size_of(a[2]);
    if (d > 1024 || d_k > d || samples > 100000) return 0.0;
    return samples * (120 * d * d_k + 6 * d * d * d_k + 6 * d * d * d + 10 * d * d);
}

constexpr builtin_entry composition_builtins[] = {
    {"transformer_W_Q(steps, seed, layer)",
     "W_Q of one layer of lesson 18's trained model (the run train_transformer(steps, seed) trains), after the last "
     "step -> [d_model, d_model]; head h uses columns (h-1)*d_k .. h*d_k - 1",
     weight_fn<W_Q>, lesson_work},
    {"transformer_W_K(steps, seed, layer)", "W_K of that layer, as transformer_W_Q -> [d_model, d_model]",
     weight_fn<W_K>, lesson_work},
    {"transformer_W_V(steps, seed, layer)", "W_V of that layer, as transformer_W_Q -> [d_model, d_model]",
     weight_fn<W_V>, lesson_work},
    {"transformer_W_O(steps, seed, layer)",
     "W_O of that layer -> [d_model, d_model]; head h's output meets rows (h-1)*d_k .. h*d_k - 1 (split_rows)",
     weight_fn<W_O>, lesson_work},
    {"composition_scores(A, B, layer_a, layer_b)",
     "|A_i B_j| / (|A_i| |B_j|) (Frobenius) for every matrix A_i of A and B_j of B: with A the OV circuits of a "
     "layer and B the QK circuits of a later one, Q-composition; B = QK^T, K-composition; B = OV, V-composition "
     "(Elhage et al. 2021, as TransformerLens computes them); rows and columns named layer.head when the layers are "
     "given -> [heads of A, heads of B]",
     composition_scores_fn, scores_work, 2},
    {"composition_baseline(d_model, d_k, samples, seed)",
     "composition_scores of random heads: Q-, K- and V-composition of a layer-1 head with a layer-2 head whose W_Q, "
     "W_K, W_V [d_model, d_k] and W_O [d_k, d_model] are drawn from N(0, 1), the mean over samples pairs from seed "
     "-> [1, 3]",
     composition_baseline_fn, baseline_work},
};

}  // namespace

std::vector<builtin> composition_group() { return builtins_of(composition_builtins); }

}  // namespace qkv::train
