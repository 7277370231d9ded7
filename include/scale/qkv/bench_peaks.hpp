// The two denominators every `qkv bench` percentage is of: what the machine's own FMA units do in
// its widest instructions, and what OpenBLAS's sgemm reaches with the kernel it loaded; with the
// kernels behind each (OpenBLAS's, and qkv's own that the fused passes run on).
#pragma once

#include <string>

#include "qkv/bench.hpp"
#include "qkv/bench_progress.hpp"
#include "qkv/machine_peak.hpp"

namespace qkv::bench {

struct peaks {
    peak sgemm;                 // not measured (zero) when only the machine's peak was asked for
    machine_peak machine;
    std::string corename;       // the kernel OpenBLAS loaded, as openblas_get_corename names it
    int kernel_bits = 0;        // its register width; 0: a kernel name qkv does not know
    std::string fused_kernels;  // the build of qkv's own tile kernels: "avx512", "avx2", "neon", "plain"
    // OpenBLAS's kernel is narrower than the machine's widest instructions: its peak leaves part unused
    bool narrower() const { return kernel_bits && kernel_bits < machine.isa.bits; }
    double sgemm_percent_of_machine() const { return 100 * sgemm.gflops / machine.gflops; }
};

// The machine's FMA peak on `threads` threads, and with `sgemm` also OpenBLAS's sgemm peak, each
// step told to `progress` first.
peaks measure_peaks(int threads, bool sgemm, const progress_fn& progress);

}  // namespace qkv::bench
