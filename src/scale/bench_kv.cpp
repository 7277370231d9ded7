// `qkv bench kv`'s measurement (bench_kv.hpp): each position timed with and without the cache.
#include "qkv/bench_kv.hpp"

namespace qkv::bench {

attention::options kv_options(const setup& s) {
    attention::options o;
    o.heads = s.heads;
    o.causal = true;
    o.threads = s.threads;
    return o;
}

kv_result measure_kv(const setup& s, const progress_fn& progress) {
    kv_result r{.asked = s, .points = {}, .growth_with_cache = {}, .growth_without_cache = {}};
    const inputs P = make_inputs(s.tokens, s.d_model);
    std::vector<double> pos, cached, uncached;  // per point: the position, and its seconds with and without the cache
    for (std::size_t p : decode_positions(s.tokens)) {
        if (progress) progress({.what = progress::step::decoding, .name = {}, .n = p, .run = 0, .of = s.tokens, .seconds_left = {}});
        const decode_point t = time_decode_at(P, s.heads, p, s.threads, {.runs = s.repeats});
        r.points.push_back({t, t.s_uncached / t.s_cached});
        pos.push_back(double(t.position)), cached.push_back(t.s_cached), uncached.push_back(t.s_uncached);
    }
    r.growth_with_cache = growth_exponent(pos, cached);
    r.growth_without_cache = growth_exponent(pos, uncached);
    return r;
}

}  // namespace qkv::bench
