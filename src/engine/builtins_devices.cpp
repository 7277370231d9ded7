// Built-ins that put lesson 11's devices to work: the parts of a split each device holds (shard),
// the gather and the sum that join them (all_gather, all_reduce), and what that cost each device
// (traffic). In one process every part is here and nothing is sent; on real ranks (devices.hpp)
// each rank holds only its own parts and the joins are real collectives.
#include "builtin_functions.hpp"

#include <cstring>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/devices.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// What this rank did since its last collective, and the table of that collective.
struct ledger {
    std::size_t held = 0;  // numbers of the parts shard gave this rank
    value last = value::of(matrix(1, 7));
};

ledger& book() {
    static ledger l;
    return l;
}

std::size_t numbers(const value& v) {
    std::size_t count = 0;
    for (const matrix& m : v.mats) count += m.size();
    return count;
}

}  // namespace

value ranks_fn(const args_t&, eval_context&) { return value::scalar(float(devices::current().size())); }

value shard_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "shard", "S", ctx);
    const std::size_t k = a[0].mats.size(), P = devices::current().size(), r = devices::current().rank();
    if (k % P != 0)
        formula_error(ctx, said("shard: {} ranks cannot share the {} parts of {} equally; run on a number of "
                                "ranks that divides {}",
                                P, k, a[0].shape_str(), k));
    value out = a[0];
    out.mats.assign(a[0].mats.begin() + std::ptrdiff_t(r * k / P), a[0].mats.begin() + std::ptrdiff_t((r + 1) * k / P));
    book().held += numbers(out);
    return out;
}

namespace {

// Every rank's figures of the collective just run, as the table traffic() returns: a row per
// rank, numbers held, computed, sent and received, the bytes of the messages, milliseconds.
value ledger_table(std::size_t computed, const devices::message_cost& c) {
    const double mine[] = {double(book().held), double(computed), double(c.bytes_sent / sizeof(float)),
                           double(c.bytes_received / sizeof(float)), double(c.bytes_sent), double(c.bytes_received),
                           c.seconds * 1e3};
    const std::vector<double> all = devices::current().all_gather_figures(mine);
    const std::size_t P = all.size() / 7;
    matrix T(P, 7);  // T: [P, 7]
    labels rows{{}, ""};
    for (std::size_t q = 0; q < P; ++q) {
        for (std::size_t j = 0; j < 7; ++j) T(q, j) = float(all[q * 7 + j]);
        rows.names.push_back(fmt::format("rank {}", q));
    }
    book().held = 0;
    return labelled(std::move(T), rows,
                    {{"held", "computed", "sent", "received", "bytes_sent", "bytes_received", "ms"}, ""});
}

// Keeps the table for traffic(); a lesson shows it as a value (lesson 11's gathered and reduced),
// alike in one process and on ranks.
void account(std::size_t computed, const devices::message_cost& c) { book().last = ledger_table(computed, c); }

value call(const char* name, const args_t& a, eval_context& ctx) { return find_builtin(name)->fn(a, ctx); }

void need_parts(const value& S, const char* fn, const eval_context& ctx) {
    need_stack(S, fn, "S", ctx);
    for (const matrix& m : S.mats)
        if (m.rows != S.mats.front().rows || m.cols != S.mats.front().cols)
            formula_error(ctx, said("{}: the parts of S must have one shape", fn));
}

}  // namespace

value all_gather_fn(const args_t& a, eval_context& ctx) {
    need_parts(a[0], "all_gather", ctx);
    devices::group& g = devices::current();
    const value local = call("concat_cols", a, ctx);  // [n, k·w]: this rank's parts side by side
    const matrix& L = local.mat();
    std::vector<float> all(L.size() * g.size());
    const devices::message_cost c = g.all_gather(L.data, all);
    value whole = a[0];  // every rank's parts in rank order: the stack the one process holds
    whole.mats.clear();
    const std::size_t w = a[0].mats.front().cols, k = a[0].mats.size();
    for (std::size_t q = 0; q < g.size(); ++q)
        for (std::size_t j = 0; j < k; ++j) {
            matrix part(L.rows, w);  // [n, w]: part j of rank q
            for (std::size_t i = 0; i < L.rows; ++i)
                std::memcpy(part.row(i), all.data() + q * L.size() + i * L.cols + j * w, w * sizeof(float));
            whole.mats.push_back(std::move(part));
        }
    account(numbers(a[0]), c);
    return call("concat_cols", {whole}, ctx);
}

value all_reduce_fn(const args_t& a, eval_context& ctx) {
    need_parts(a[0], "all_reduce", ctx);
    devices::group& g = devices::current();
    value local = call("sum_heads", a, ctx);  // [n, d]: the sum over this rank's parts
    value out = local;
    const devices::message_cost c = g.all_reduce_sum(local.mat().data, out.mat().data);
    account(numbers(a[0]), c);
    return out;
}

value traffic_fn(const args_t&, eval_context&) { return book().last; }

}  // namespace qkv::builtin_functions
