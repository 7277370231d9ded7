// The machine's FMA peak and the names around it (machine_peak.hpp): what kernel width each
// OpenBLAS core name means, that the widest instructions are the widest /proc/cpuinfo allows, with
// the register width their extensions have, and that the peak is a positive, finite rate. No time
// is asserted: `qkv bench` reports the figures.
#define BOOST_TEST_MODULE machine_peak
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

#include "qkv/blas.hpp"
#include "qkv/kernel_builds.hpp"
#include "qkv/machine_peak.hpp"
#include "support/cpu_flags.hpp"

using namespace qkv;

namespace {

// The width of the vector registers a build computes in, from what it needs (its cpu_flags) as
// the architectures define them, not from qkv's table: AVX-512's registers (zmm) are 512 bits,
// AVX's and AVX2's (ymm) 256, and the baseline's 128 (SSE2's xmm on x86-64, Advanced SIMD on
// arm64). A build that needs an extension not named here fails until the test learns its width.
int register_bits(std::string_view needs) {
    int bits = 128;
    std::istringstream words{std::string(needs)};
    for (std::string w; words >> w;) {
        if (w.rfind("avx512", 0) == 0)
            bits = std::max(bits, 512);
        else if (w == "avx" || w == "avx2")
            bits = std::max(bits, 256);
        else
            BOOST_TEST((w == "fma"), "the register width of " << w << " is not known to this test");  // FMA3: no width of its own
    }
    return bits;
}

}  // namespace

BOOST_AUTO_TEST_CASE(kernel_widths_from_openblas_core_names) {
    // OpenBLAS's x86 kernels: SSE (128-bit), AVX and AVX2 (256), AVX-512 (512)
    BOOST_TEST(bench::kernel_bits("Nehalem") == 128);
    BOOST_TEST(bench::kernel_bits("Core2") == 128);
    BOOST_TEST(bench::kernel_bits("Sandybridge") == 256);
    BOOST_TEST(bench::kernel_bits("Haswell") == 256);
    BOOST_TEST(bench::kernel_bits("Zen") == 256);
    BOOST_TEST(bench::kernel_bits("SkylakeX") == 512);
    BOOST_TEST(bench::kernel_bits("Cooperlake") == 512);
    BOOST_TEST(bench::kernel_bits("SapphireRapids") == 512);
    BOOST_TEST(bench::kernel_bits("neoversen1") == 0);  // not an x86 name qkv knows: no claim
}

BOOST_AUTO_TEST_CASE(the_widest_isa_is_one_this_cpu_runs) {
    // Held to /proc/cpuinfo's flags, read by the test: the widest build they allow (each build
    // states the flags it needs), with the register width its extensions have.
    const bench::vector_isa isa = bench::widest_isa();
    BOOST_TEST(isa.lanes * 32 == isa.bits);  // floats of 32 bits fill the register
    const attention::kernel_build* build = attention::find_kernel_build(isa.name);
    BOOST_TEST_REQUIRE(build, isa.name << " is one of the kernel builds");
    BOOST_TEST(isa.bits == register_bits(build->cpu_flags), isa.name << " needs '" << build->cpu_flags << "'");
    const auto flags = test::cpu_flags();
    if (flags.empty()) {
        std::cout << "the_widest_isa_is_one_this_cpu_runs: the widest build /proc/cpuinfo allows is not checked, as it "
                  << "lists no x86-64 flags here (not x86-64, or no Linux); " << isa.name << " was taken" << std::endl;
        return;
    }
    BOOST_TEST(isa.name == test::builds_for(flags).front());
}

BOOST_AUTO_TEST_CASE(every_build_has_the_register_width_of_what_it_needs) {
    // The table's widths, each build's against the extensions it states it needs: the machine's
    // peak is measured, and named, in the widest build's.
    for (const attention::kernel_build& b : attention::kernel_builds())
        BOOST_TEST(b.bits == register_bits(b.cpu_flags), b.name << " needs '" << b.cpu_flags << "'");
}

BOOST_AUTO_TEST_CASE(the_peak_is_a_rate_and_openblas_names_its_kernel) {
    bench::machine_peak p = bench::measure_machine_peak(1);
    BOOST_TEST(std::isfinite(p.gflops));
    BOOST_TEST(p.gflops > 0.0);
    BOOST_TEST(p.threads == 1);
    BOOST_TEST(!blas::corename().empty());
}

BOOST_AUTO_TEST_CASE(a_pinned_build_sets_the_peak_it_is_measured_against) {
    // `qkv bench --kernels avx2` on an AVX-512 machine: every build this processor runs, pinned in
    // turn, must be the one the peak is measured in, with the register width its extensions have
    // (from the test's own table), so its percentages are of the 256-bit peak, not the 512-bit one.
    const std::string was(attention::fused_kernels_in_use());
    int pinned = 0;
    for (const attention::kernel_build& b : attention::kernel_builds()) {
        if (!attention::use_kernels(b.name)) continue;
        ++pinned;
        const bench::vector_isa isa = bench::kernels_isa();
        BOOST_TEST(isa.name == std::string(b.name));
        BOOST_TEST(isa.bits == register_bits(b.cpu_flags), b.name << " needs '" << b.cpu_flags << "'");
        BOOST_TEST(bench::measure_machine_peak(1).isa.name == std::string(b.name));
    }
    BOOST_TEST(pinned >= 1);  // plain runs anywhere
    BOOST_TEST(attention::use_kernels(was));
    BOOST_TEST(bench::kernels_isa().name == was);
}
