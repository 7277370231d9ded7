// qkv's own kernels (the tile kernels, the softmax's row kernels, the machine peak's loop) come in
// builds, one table of them: adding a build is one entry there plus its own code. On x86-64
// "avx512", "avx2" and "plain"; on arm64 "neon" and "plain"; on any other processor only "plain".
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace qkv::attention {

namespace detail {
struct tile_kernels;  // tile_kernels.cpp
struct row_kernels;   // row_kernels.hpp
}  // namespace detail

// One build: its name, what it runs on, and its code.
struct kernel_build {
    std::string_view name;
    // The width of the vector registers it computes in: the machine peak's width (machine_peak.hpp).
    int bits;
    // What the processor must have for it, in the words of /proc/cpuinfo's flags, space-separated
    // ("" for a build every processor of this architecture runs). A statement for people and tests:
    // cpu_runs asks the processor itself.
    std::string_view cpu_flags;
    // Whether this processor runs it: CPUID, and whether the system saves the wider registers.
    bool (*cpu_runs)();
    const detail::tile_kernels* tiles;
    const detail::row_kernels* rows;
    // The machine peak's loop of independent multiply-adds in this build's widest vectors: returns
    // its result, for the caller to keep (machine_peak.cpp).
    float (*fma_loop)(long iters);
};

// The builds compiled for this architecture, widest first, "plain" last.
std::span<const kernel_build> kernel_builds();

// The build named `name`; nullptr when there is none of that name here.
const kernel_build* find_kernel_build(std::string_view name);

// The widest build this processor runs: the one qkv's kernels use unless pinned.
const kernel_build& widest_kernel_build();

// The builds' names as a choice, for help and errors: "avx512, avx2 or plain" (on arm64 "neon or
// plain", elsewhere "plain").
std::string kernel_build_choice();

// The build of the tile kernels forward_fused runs on: the widest this processor runs, unless
// pinned; never OpenBLAS's.
std::string_view fused_kernels_in_use();

// Pins qkv's own kernels (the fused products and every softmax's exps) to the build `build`;
// false, and nothing changed, when there is no such build or this processor cannot run it.
bool use_kernels(std::string_view build);

}  // namespace qkv::attention
