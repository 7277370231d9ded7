// The machine's FMA peak and the names around it (machine_peak.hpp): what kernel width each
// OpenBLAS core name means, that the widest instructions are the widest /proc/cpuinfo allows, and
// that the peak is a positive, finite rate. No time is asserted: `qkv bench` reports the figures.
#define BOOST_TEST_MODULE machine_peak
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <iostream>

#include "qkv/blas.hpp"
#include "qkv/machine_peak.hpp"
#include "support/cpu_flags.hpp"

using namespace qkv;

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
    // Held to /proc/cpuinfo's flags, read by the test: the widest build they allow (avx512 needs
    // avx512f, vl, bw and dq; avx2 needs avx2 and fma), with its register width.
    const bench::vector_isa isa = bench::widest_isa();
    BOOST_TEST(isa.lanes * 32 == isa.bits);  // floats of 32 bits fill the register
    BOOST_TEST(isa.bits == (isa.name == "avx512" ? 512 : isa.name == "avx2" ? 256 : 128));
    const auto flags = test::cpu_flags();
    if (flags.empty()) {
        std::cout << "the_widest_isa_is_one_this_cpu_runs: skipped, /proc/cpuinfo lists no flags" << std::endl;
        return;
    }
    BOOST_TEST(isa.name == test::builds_for(flags).front());
}

BOOST_AUTO_TEST_CASE(the_peak_is_a_rate_and_openblas_names_its_kernel) {
    bench::machine_peak p = bench::measure_machine_peak(1);
    BOOST_TEST(std::isfinite(p.gflops));
    BOOST_TEST(p.gflops > 0.0);
    BOOST_TEST(p.threads == 1);
    BOOST_TEST(!blas::corename().empty());
}
