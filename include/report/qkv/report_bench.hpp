// `qkv bench`'s results in words — the forward bench, --backward, kv, --tensor-parallel — as text
// (facts, a table, the growth, a log-log chart, the prose of lessons/prose/bench.toml) and as the
// JSON the README lists. Every number is the result's: nothing here measures or derives one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "qkv/bench_backward.hpp"
#include "qkv/bench_forward.hpp"
#include "qkv/bench_kv.hpp"
#include "qkv/render.hpp"
#include "qkv/tensor_parallel_result.hpp"

namespace qkv {

// Text for a terminal of o.width columns (the header's facts and the prose wrap to it, the chart
// is at most 80 wide), in o.language.
std::string bench_text(const bench::forward_result& r, const render_options& o);
std::string bench_text(const bench::backward_result& r, const render_options& o);
std::string bench_text(const bench::kv_result& r, const render_options& o);
std::string bench_text(const bench::tensor_parallel_result& r, const render_options& o);

// The JSON of each (keys in the documented order; render_json makes it text).
nlohmann::ordered_json bench_json(const bench::forward_result& r);
nlohmann::ordered_json bench_json(const bench::backward_result& r);
nlohmann::ordered_json bench_json(const bench::kv_result& r);
nlohmann::ordered_json bench_json(const bench::tensor_parallel_result& r);

// "1 thread", "2 threads": every bench line words its thread count alike (some said "thread(s)").
std::string threads_text(int n);

// "OpenBLAS kernel Haswell (256-bit, narrower than this CPU's 512-bit avx512: …)", and on a second
// line which of qkv's own kernels the fused pass runs.
std::string kernel_text(const bench::peaks& p, lang l);

}  // namespace qkv
