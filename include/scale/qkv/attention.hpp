// Multi-head attention forward at scale, three ways that give the same numbers: the plain loops
// the lessons teach and per-head BLAS with the whole n × n matrix (here), and a fused pass that
// never holds it (attention_fused.hpp); and the choice among them. `qkv bench` times them; tests
// hold them together.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "qkv/attention_args.hpp"
#include "qkv/matrix.hpp"

namespace qkv::attention {

enum class impl { reference, blas, fused };

// Z = concat_i softmax(Q_i K_i^T / sqrt(d_k) [+ causal mask]) V_i @ W_O -> [n, d_model].
// Throws std::invalid_argument when heads does not divide d_model or shapes disagree.
matrix forward_reference(const matrix& X, const weights& W, const options& o);
matrix forward_blas(const matrix& X, const weights& W, const options& o);
// The same Z by the implementation `which` (fused: forward_fused, attention_fused.hpp).
matrix forward(impl which, const matrix& X, const weights& W, const options& o);

// Bytes each implementation allocates beyond X, the weights and the result, for these sizes
// (computed from the same plan the implementation follows, so refusals can be made up front).
std::size_t extra_bytes(impl which, std::size_t n, std::size_t d_model, const options& o);

std::string_view impl_name(impl which);
std::optional<impl> parse_impl(std::string_view name);

}  // namespace qkv::attention
