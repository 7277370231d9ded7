// Built-ins of the backward pass of one attention head (lesson 16) and of a head that learns by
// gradient descent (lesson 17): the softmax's backward by rows, the loss ½‖Z − T‖², its central
// differences in double (a check that shares no code with the backward), and a training loop
// that records every step, each step halved until it lowers the loss.
#include "builtin_functions.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// dS = A ⊙ (dA − rowsum(dA ⊙ A)), row by row: the softmax's Jacobian diag(a) − a aᵀ applied to
// each row of dA without building it. Masked entries (a = 0) get exactly 0.
matrix softmax_backward_rows(const matrix& A, const matrix& dA) {
    matrix dS(A.rows, A.cols);
    for (std::size_t i = 0; i < A.rows; ++i) {
        double dot = 0.0;  // rowsum(dA ⊙ A): what the row's weights pass on as a whole
        for (std::size_t j = 0; j < A.cols; ++j) dot += double(dA(i, j)) * double(A(i, j));
        for (std::size_t j = 0; j < A.cols; ++j) dS(i, j) = static_cast<float>(A(i, j) * (dA(i, j) - dot));
    }
    return dS;
}

// The arguments every head built-in takes: X [n, d_model], W_Q and W_K [d_model, d_k],
// W_V [d_model, d_v], the target T [n, d_v], whether the causal mask is on, and (training only)
// whether W_V stays as given, so that only where the head looks can learn.
struct head_args {
    const matrix& X;
    matrix W_Q, W_K, W_V;
    const matrix& T;
    bool causal;
    bool fixed_v = false;
};

bool flag(const args_t& a, std::size_t i, const char* fn, const eval_context& ctx, const char* name = "causal") {
    return a.size() > i && whole(a[i], 0, fn, name, ctx) != 0;
}

// X, then W_Q, W_K, W_V and T at positions w, w + 1, w + 2 and t: train_head takes T second.
head_args need_head(const args_t& a, std::size_t w, std::size_t t, std::size_t causal_at, const char* fn,
                    const eval_context& ctx) {
    head_args h{need_matrix(a[0], fn, "X", ctx), need_matrix(a[w], fn, "W_Q", ctx), need_matrix(a[w + 1], fn, "W_K", ctx),
                need_matrix(a[w + 2], fn, "W_V", ctx), need_matrix(a[t], fn, "T", ctx), flag(a, causal_at, fn, ctx)};
    const std::size_t d = h.X.cols;
    if (h.W_Q.rows != d || h.W_K.rows != d || h.W_V.rows != d)
        formula_error(ctx, said("{}: X {} needs W_Q, W_K and W_V with {} rows, got {}, {} and {}", fn, shape_str(h.X),
                                d, shape_str(h.W_Q), shape_str(h.W_K), shape_str(h.W_V)));
    if (h.W_Q.cols != h.W_K.cols)
        formula_error(ctx, said("{}: W_Q {} and W_K {} need the same d_k", fn, shape_str(h.W_Q), shape_str(h.W_K)));
    if (h.T.rows != h.X.rows || h.T.cols != h.W_V.cols)
        formula_error(ctx, said("{}: the target T must be [n, d_v] = [{}, {}] like Z, got {}", fn, h.X.rows,
                                h.W_V.cols, shape_str(h.T)));
    return h;
}

// One head forward in float, as the lessons write it, keeping what the backward needs.
struct head_pass {
    matrix Q, K, V, A, Z;
};

head_pass forward(const head_args& h) {
    head_pass p{mm(h.X, h.W_Q), mm(h.X, h.W_K), mm(h.X, h.W_V), {}, {}};
    matrix S = mm_t(p.Q, p.K);  // [n, n]
    const float scale = 1.0f / std::sqrt(static_cast<float>(p.K.cols));
    for (float& s : S.data) s *= scale;
    if (h.causal) {
        matrix M = kernels::causal_mask(S.rows);
        for (std::size_t i = 0; i < S.size(); ++i) S.data[i] += M.data[i];
    }
    p.A = kernels::softmax_rows(S);
    p.Z = mm(p.A, p.V);
    return p;
}

float half_squared_distance(const matrix& Z, const matrix& T) {
    double sum = 0.0;
    for (std::size_t i = 0; i < Z.size(); ++i) sum += std::pow(double(Z.data[i]) - double(T.data[i]), 2);
    return static_cast<float>(sum / 2);
}

// The gradients of ½‖Z − T‖² with respect to the three projections, by the chain rule.
struct head_grads {
    float loss = 0;
    matrix dW_Q, dW_K, dW_V;
};

head_grads backward(const head_args& h, const head_pass& p) {
    matrix dZ = p.Z;  // dZ = Z − T
    for (std::size_t i = 0; i < dZ.size(); ++i) dZ.data[i] -= h.T.data[i];
    matrix dV = mm(kernels::transpose(p.A), dZ);       // Aᵀ · dZ: [n, d_v]
    matrix dS = softmax_backward_rows(p.A, mm_t(dZ, p.V));  // dA = dZ · Vᵀ, then the softmax
    const float scale = 1.0f / std::sqrt(static_cast<float>(p.K.cols));
    for (float& x : dS.data) x *= scale;  // through S = Q Kᵀ / √d_k
    matrix dQ = mm(dS, p.K), dK = mm(kernels::transpose(dS), p.Q);
    matrix Xt = kernels::transpose(h.X);
    return {half_squared_distance(p.Z, h.T), mm(Xt, dQ), mm(Xt, dK), mm(Xt, dV)};
}

// The head again in double, set up so that the loss with any one weight nudged by δ is cheap to
// recompute, with no derivative taken: nudging W_Q[m, c] moves column c of Q by δ·X[:, m] and so
// each score s_ij by δ·X_im·K_jc/√d_k (W_K alike); nudging W_V[m, c] moves column c of Z by
// δ·(A·X)[:, m]. A row's loss ½‖a·V − t‖² is ½(aᵀ(V Vᵀ)a − 2 aᵀ(V t) + t·t). This keeps the check
// quick on d_model = 512, where recomputing the whole head for every entry would take minutes.
struct head_double {
    std::size_t n, d, d_k, d_v;
    bool causal;
    double scale;
    std::vector<double> X, Q, K, S, A, AX, R;  // R = Z − T
    std::vector<double> VV, VT, TT;            // v_j·v_k, v_j·t_i, t_i·t_i
};

std::vector<double> product(const std::vector<double>& L, const std::vector<double>& Rt, std::size_t n, std::size_t m,
                            std::size_t inner) {  // L [n, inner] times Rt [m, inner]^T -> [n, m]
    std::vector<double> out(n * m);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j)
            for (std::size_t c = 0; c < inner; ++c) out[i * m + j] += L[i * inner + c] * Rt[j * inner + c];
    return out;
}

std::vector<double> to_double(const matrix& M, bool transposed = false) {
    std::vector<double> out(M.size());
    for (std::size_t r = 0; r < M.rows; ++r)
        for (std::size_t c = 0; c < M.cols; ++c) out[transposed ? c * M.rows + r : r * M.cols + c] = M(r, c);
    return out;
}

// softmax of one row of scores over the keys it may see; the rest 0
void softmax_row(const double* s, double* a, std::size_t n, std::size_t seen) {
    double top = -INFINITY, sum = 0.0;
    for (std::size_t j = 0; j < seen; ++j) top = std::max(top, s[j]);
    for (std::size_t j = 0; j < n; ++j) sum += (a[j] = j < seen ? std::exp(s[j] - top) : 0.0);
    for (std::size_t j = 0; j < n; ++j) a[j] /= sum;
}

head_double setup_double(const head_args& h) {
    const std::size_t n = h.X.rows, d = h.X.cols, d_k = h.W_Q.cols, d_v = h.W_V.cols;
    head_double g{n, d, d_k, d_v, h.causal, 1.0 / std::sqrt(double(d_k)), to_double(h.X), {}, {}, {}, {}, {}, {}, {}, {}, {}};
    std::vector<double> Xt = to_double(h.X, true), T = to_double(h.T);
    g.Q = product(g.X, to_double(h.W_Q, true), n, d_k, d);
    g.K = product(g.X, to_double(h.W_K, true), n, d_k, d);
    std::vector<double> V = product(g.X, to_double(h.W_V, true), n, d_v, d), Vt(d_v * n);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t c = 0; c < d_v; ++c) Vt[c * n + j] = V[j * d_v + c];
    g.S = product(g.Q, g.K, n, n, d_k);
    for (double& x : g.S) x *= g.scale;
    g.A.resize(n * n);
    for (std::size_t i = 0; i < n; ++i) softmax_row(&g.S[i * n], &g.A[i * n], n, h.causal ? i + 1 : n);
    g.AX = product(g.A, Xt, n, d, n);
    g.R = product(g.A, Vt, n, d_v, n);
    for (std::size_t i = 0; i < g.R.size(); ++i) g.R[i] -= T[i];
    g.VV = product(V, V, n, n, d_v), g.VT = product(V, T, n, n, d_v), g.TT.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < d_v; ++c) g.TT[i] += T[i * d_v + c] * T[i * d_v + c];
    return g;
}

// The loss with W_Q[m, c] (which = 1) or W_K[m, c] (which = 2) nudged by δ.
double nudged_score_loss(const head_double& g, int which, std::size_t m, std::size_t c, double delta) {
    const std::size_t n = g.n;
    std::vector<double> s(n), a(n);
    double loss = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            s[j] = g.S[i * n + j] + delta * g.scale * (which == 1 ? g.X[i * g.d + m] * g.K[j * g.d_k + c]
                                                                   : g.Q[i * g.d_k + c] * g.X[j * g.d + m]);
        softmax_row(s.data(), a.data(), n, g.causal ? i + 1 : n);
        double quad = 0.0, cross = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            if (a[j] == 0.0) continue;
            cross += a[j] * g.VT[j * n + i];
            for (std::size_t k = 0; k < n; ++k) quad += a[j] * a[k] * g.VV[j * n + k];
        }
        loss += 0.5 * (quad - 2 * cross + g.TT[i]);
    }
    return loss;
}

// The change of the loss with W_V[m, c] nudged by δ: only column c of Z moves.
double nudged_value_loss(const head_double& g, std::size_t m, std::size_t c, double delta) {
    double change = 0.0;
    for (std::size_t i = 0; i < g.n; ++i) {
        const double r = g.R[i * g.d_v + c], moved = r + delta * g.AX[i * g.d + m];
        change += 0.5 * (moved * moved - r * r);
    }
    return change;
}

}  // namespace

value softmax_backward_fn(const args_t& a, eval_context& ctx) {
    value dS = zip_mats(a[0], a[1], "softmax_backward(A, dA)", ctx, [&](const matrix& A, const matrix& dA) {
        if (A.rows != dA.rows || A.cols != dA.cols)
            formula_error(ctx, said("softmax_backward(A, dA): A {} and dA {} need the same shape", shape_str(A), shape_str(dA)));
        return softmax_backward_rows(A, dA);
    });
    dS.rows = a[0].rows, dS.cols = a[0].cols;  // a score per query and key, as A has
    return dS;
}

value attention_loss_fn(const args_t& a, eval_context& ctx) {
    head_args h = need_head(a, 1, 4, 5, "attention_loss", ctx);
    return value::scalar(half_squared_distance(forward(h).Z, h.T));
}

value fd_gradient_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "fd_gradient";
    head_args h = need_head(a, 1, 4, 7, fn, ctx);
    const std::size_t which = whole(a[5], 1, fn, "which", ctx);
    if (which > 3) formula_error(ctx, said("{}: which must be 1 (W_Q), 2 (W_K) or 3 (W_V), got {}", fn, which));
    const double eps = positive(a[6], fn, "eps", ctx);
    const head_double g = setup_double(h);
    matrix G(h.X.cols, which == 3 ? h.W_V.cols : h.W_Q.cols);
    for (std::size_t m = 0; m < G.rows; ++m)
        for (std::size_t c = 0; c < G.cols; ++c) {  // each entry nudged both ways: (L(w + ε) − L(w − ε)) / 2ε
            const double up = which == 3 ? nudged_value_loss(g, m, c, eps) : nudged_score_loss(g, int(which), m, c, eps);
            const double down = which == 3 ? nudged_value_loss(g, m, c, -eps) : nudged_score_loss(g, int(which), m, c, -eps);
            G(m, c) = static_cast<float>((up - down) / (2 * eps));
        }
    return labelled(std::move(G), {{}, "features"}, {{}, "features"});
}

namespace {

// Gradient descent on W_Q, W_K and W_V together (or on W_Q and W_K with fixed_v), `steps` updates
// W ← W − η · dW, each with a step that lowers the loss: η starts at lr and is halved until it
// does (backtracking), so the loss falls on any input however steep. loss(t) is the loss before
// update t; every step is recorded with its attention weights and the η it took.
struct training {
    head_args h;
    std::size_t steps;
    float lr;
};

training need_training(const args_t& a, std::size_t causal_at, const char* fn, const eval_context& ctx) {
    head_args h = need_head(a, 2, 1, causal_at, fn, ctx);
    h.fixed_v = flag(a, causal_at + 1, fn, ctx, "fixed_v");
    const std::size_t steps = whole(a[5], 1, fn, "steps", ctx);
    if (steps > 1000)  // each step is recorded: a thousand is plenty to watch and stays small
        formula_error(ctx, said("{}: steps must be at most 1000, got {}", fn, steps));
    const float lr = positive(a[6], fn, "lr", ctx);
    return {std::move(h), steps, lr};
}

// Halvings tried before a step is given up (the loss then stays where it is): 2^-30 of lr is
// below float's resolution of any weight it would move.
constexpr int max_halvings = 30;

// W ← W − η · dW for the projections of h that learn (W_V only without fixed_v).
void step_along(head_args& h, const head_grads& g, float eta) {
    for (auto [W, dW] : {std::pair{&h.W_Q, &g.dW_Q}, {&h.W_K, &g.dW_K}, {&h.W_V, &g.dW_V}})
        if (W != &h.W_V || !h.fixed_v)
            for (std::size_t i = 0; i < W->size(); ++i) W->data[i] -= eta * dW->data[i];
}

// The largest of lr, lr/2, lr/4, … whose step lowers the loss below `before`; 0 when none does.
// Each try writes W − η · dW into `trial`, a copy of h made once per run: on a 512 × 512 layer a
// fresh copy per try cost megabytes of new pages each time, most of lesson 17's run on "Thinking
// Machines".
float backtracked(const head_args& h, const head_grads& g, float lr, head_args& trial) {
    float eta = lr;
    for (int k = 0; k <= max_halvings; ++k, eta /= 2) {
        for (auto [W, W0, dW] : {std::tuple{&trial.W_Q, &h.W_Q, &g.dW_Q}, {&trial.W_K, &h.W_K, &g.dW_K}, {&trial.W_V, &h.W_V, &g.dW_V}})
            if (W != &trial.W_V || !h.fixed_v)
                for (std::size_t i = 0; i < W->size(); ++i) W->data[i] = W0->data[i] - eta * dW->data[i];
        if (half_squared_distance(forward(trial).Z, h.T) < g.loss) return eta;
    }
    return 0.0f;
}

// The last run's start and end, kept for the whole process: trained_W_Q, trained_W_K and
// trained_W_V name the same run as train_head (lesson 17 asks for all four), and each had trained
// it afresh: on "Thinking Machines" (d_model = 512) three runs of 30 steps were most of the lesson.
// A run whose start is the kept one, bit for bit, ends where it did (the same steps in the same
// order); one run is kept, so a server's many sentences hold no more than one run's weights.
struct kept_run {
    matrix X, T, W_Q, W_K, W_V;  // where it started
    bool causal = false, fixed_v = false;
    std::size_t steps = 0;
    float lr = 0.0f;
    matrix W_Q1, W_K1, W_V1;  // where it ended
};
std::mutex kept_lock;
std::optional<kept_run> kept;  // under kept_lock

bool same_bits(const matrix& a, const matrix& b) {
    return a.rows == b.rows && a.cols == b.cols && std::memcmp(a.data.data(), b.data.data(), a.size() * sizeof(float)) == 0;
}

bool starts_as(const kept_run& k, const training& t) {
    const head_args& h = t.h;
    return k.steps == t.steps && std::memcmp(&k.lr, &t.lr, sizeof t.lr) == 0 && k.causal == h.causal && k.fixed_v == h.fixed_v &&
           same_bits(k.X, h.X) && same_bits(k.T, h.T) && same_bits(k.W_Q, h.W_Q) && same_bits(k.W_K, h.W_K) && same_bits(k.W_V, h.W_V);
}

matrix train(training& t, const labels& tokens, eval_context* ctx) {
    matrix loss(t.steps, 1);
    head_args trial = t.h;
    for (std::size_t s = 0; s < t.steps; ++s) {
        head_pass p = forward(t.h);
        head_grads g = backward(t.h, p);
        loss(s, 0) = g.loss;
        const float eta = backtracked(t.h, g, t.lr, trial);
        step_along(t.h, g, eta);
        if (!ctx) continue;
        value A = labelled(std::move(p.A), {tokens.names, "queries"}, {tokens.names, "keys"});
        A.weights = true;
        // labelled t as the books write W_{t+1} = W_t − lr·dW_t, in every language
        record(*ctx, fmt::format("t = {}", s + 1),
               {{"loss", value::scalar(g.loss)}, {"A", std::move(A)}, {"lr", value::scalar(eta)}});
    }
    return loss;
}

// Trains t and keeps its run (train_head always trains: it records every step as it goes).
matrix train_and_keep(training& t, const labels& tokens, eval_context* ctx) {
    kept_run k{t.h.X, t.h.T, t.h.W_Q, t.h.W_K, t.h.W_V, t.h.causal, t.h.fixed_v, t.steps, t.lr, {}, {}, {}};
    matrix loss = train(t, tokens, ctx);
    k.W_Q1 = t.h.W_Q, k.W_K1 = t.h.W_K, k.W_V1 = t.h.W_V;
    const std::lock_guard hold(kept_lock);
    kept = std::move(k);
    return loss;
}

}  // namespace

value backtrack_lr_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "backtrack_lr";
    head_args h = need_head(a, 2, 1, 6, fn, ctx);
    h.fixed_v = flag(a, 7, fn, ctx, "fixed_v");
    const float lr = positive(a[5], fn, "lr", ctx);
    head_args trial = h;
    return value::scalar(backtracked(h, backward(h, forward(h)), lr, trial));
}

value train_head_fn(const args_t& a, eval_context& ctx) {
    training t = need_training(a, 7, "train_head", ctx);
    return labelled(train_and_keep(t, a[0].rows, &ctx), {{}, ""}, {{}, ""});
}

namespace {

// The weights after the same run as train_head, one of the three (train_head can return only one
// value): which = 1 W_Q, 2 W_K, 3 W_V.
value trained(const args_t& a, eval_context& ctx, const char* fn, int which) {
    training t = need_training(a, 7, fn, ctx);
    {
        const std::lock_guard hold(kept_lock);
        if (kept && starts_as(*kept, t)) {
            const matrix& W = which == 1 ? kept->W_Q1 : which == 2 ? kept->W_K1 : kept->W_V1;
            return value::of(W, a[2 + which - 1].rows, a[2 + which - 1].cols);
        }
    }
    train_and_keep(t, a[0].rows, nullptr);
    const matrix& W = which == 1 ? t.h.W_Q : which == 2 ? t.h.W_K : t.h.W_V;
    return value::of(W, a[2 + which - 1].rows, a[2 + which - 1].cols);
}

}  // namespace

value trained_W_Q_fn(const args_t& a, eval_context& ctx) { return trained(a, ctx, "trained_W_Q", 1); }
value trained_W_K_fn(const args_t& a, eval_context& ctx) { return trained(a, ctx, "trained_W_K", 2); }
value trained_W_V_fn(const args_t& a, eval_context& ctx) { return trained(a, ctx, "trained_W_V", 3); }

}  // namespace qkv::builtin_functions
