// Where `qkv bench --dump-dir` writes, for a comparison outside qkv (bench/compare_torch.py): X for
// each size, the four weights, each output (forward) or dZ and the five gradients (backward), as
// .npy files; and the folder and files checked through the one writer before anything is measured.
#pragma once

#include <cstddef>
#include <string>

#include "qkv/attention.hpp"
#include "qkv/attention_backward.hpp"
#include "qkv/bench.hpp"
#include "qkv/bench_setup.hpp"

namespace qkv::bench {

// "X_n256.npy", "Z_fused_n256.npy"
std::string x_dump(std::size_t n);
std::string z_dump(attention::impl i, std::size_t n);

// One folder made at most (s.dump_dir, never a path of them), and every file the forward will write
// there checked: a link, a named pipe or a read-only file is refused (input_error) now, not after
// minutes of measuring. Nothing when s.dump_dir is empty.
void prepare_dump_dir(const setup& s);

// X at this n and the four weights (the same at every n).
void dump_inputs(const std::string& dir, std::size_t n, const inputs& P);

// X, the weights, dZ and the five gradients, for bench/compare_torch.py --backward (the folder
// made with its parents as needed).
void dump_gradients(const std::string& dir, std::size_t n, const inputs& P, const matrix& dZ,
                    const attention::gradients& g);

}  // namespace qkv::bench
