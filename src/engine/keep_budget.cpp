// What one run may keep (keep_budget.hpp): the budget, measured once, and the count of what a run
// holds, made from its workspace and this stage's recorded steps.
#include "qkv/keep_budget.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/builtins.hpp"
#include "qkv/memory.hpp"

namespace qkv {

namespace {

keep_limit measure() {
    keep_limit l;
    l.bytes = max_kept_bytes;
    if (std::optional<std::size_t> free = available_memory()) {
        l.free_bytes = *free;
        if (*free / 2 < l.bytes) {
            l.bytes = *free / 2;
            l.by_free_memory = true;
        }
    }
    return l;
}

// A label is a std::string; a token's text fits inside one (short-string storage), so its size is
// what counts. Counted without reading the names: a check runs once per value made, and a decode
// over n tokens records n steps whose labels grow with t.
std::size_t bytes_of(const labels& l) { return sizeof(labels) + l.names.size() * sizeof(std::string); }

double gib(std::size_t bytes) { return double(bytes) / double(std::size_t{1} << 30); }

// GiB rounded up to a tenth: 2.01 GiB is "2.1", never "2.0" beside a limit of 2.
double gib_up(std::size_t bytes) { return std::ceil(gib(bytes) * 10.0) / 10.0; }

}  // namespace

const keep_limit& keep_budget() {
    static const keep_limit l = measure();
    return l;
}

std::size_t bytes_of(const value& v) {
    std::size_t n = sizeof(value) + bytes_of(v.rows) + bytes_of(v.cols);
    for (const matrix& m : v.mats) n += m.size() * sizeof(float);
    return n;
}

std::size_t bytes_kept(const eval_context& ctx) {
    std::size_t n = 0;
    if (ctx.ws)
        for (const auto& [name, v] : *ctx.ws) n += 2 * bytes_of(v);
    return n + (ctx.steps ? ctx.recorded_bytes : 0) + ctx.held_bytes;
}

void check_keep(const eval_context& ctx, std::size_t more) {
    const keep_limit& limit = keep_budget();
    if (more <= limit.bytes && bytes_kept(ctx) <= limit.bytes - more) return;
    const double would = gib_up(bytes_kept(ctx) + more);
    if (limit.by_free_memory)
        formula_error(ctx, said("this run would keep {:.1f} GiB, more than half of the {:.1f} GiB of memory free",
                                would, gib(limit.free_bytes)));
    formula_error(ctx, said("this run would keep {:.1f} GiB, more than the {} GiB one run may keep", would,
                            max_kept_bytes >> 30));
}

}  // namespace qkv
