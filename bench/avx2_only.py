"""--avx2 for the comparison scripts: the whole comparison on an AVX2 processor, as an AVX-512
machine can show one, for the learners' laptops and the AMD Zen 2/3 servers that have no AVX-512.

The script starts itself again with bench/hide_avx512.cpp's library preloaded (built beside qkv as
BUILD/bench/libhide_avx512.so), so that it, qkv and the peer it starts (PyTorch in this process,
ONNX Runtime in node) all read CPUID as an AVX2 + FMA processor's and choose their AVX2 kernels.
Each library's own switch is set as well, where it has one: OPENBLAS_CORETYPE=Haswell (OpenBLAS
reads CPUID before the preloaded library can answer), ATEN_CPU_CAPABILITY=avx2 (PyTorch),
DNNL_MAX_CPU_ISA=AVX2 (oneDNN); qkv runs with --kernels avx2. check() then asks numpy, which reads
CPUID itself, what it sees, and stops the comparison if AVX-512 is still visible.
"""
import os
import sys

MARK = "QKV_BENCH_AVX2_ONLY"  # set in the restarted process
SWITCHES = {"OPENBLAS_CORETYPE": "Haswell", "ATEN_CPU_CAPABILITY": "avx2", "DNNL_MAX_CPU_ISA": "AVX2"}


def library_beside(qkv):
    """The preload library of the build qkv comes from: BUILD/src/qkv → BUILD/bench/libhide_avx512.so."""
    build = os.path.dirname(os.path.dirname(os.path.abspath(qkv)))
    return os.path.join(build, "bench", "libhide_avx512.so")


def enter(qkv):
    """Restarts this script under the preload library unless it runs under it already; returns
    only in the restarted process. Exits with 2, saying why, when the library is not built."""
    if os.environ.get(MARK) == "1":
        return
    lib = library_beside(qkv)
    if not os.path.isfile(lib):
        print(f"--avx2 needs {lib} (meson compile -C BUILD bench/libhide_avx512.so; x86-64 only)", file=sys.stderr)
        sys.exit(2)
    env = dict(os.environ, **SWITCHES, **{MARK: "1"})
    env["LD_PRELOAD"] = " ".join(p for p in (lib, os.environ.get("LD_PRELOAD", "")) if p)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


def check():
    """What numpy sees of the processor (AVX2, FMA3, AVX512F); stops with 2 when AVX-512 is visible
    or AVX2 is not, since the figures would then not be what --avx2 says they are."""
    import numpy as np
    features = np.core._multiarray_umath.__cpu_features__
    seen = {k: bool(features.get(k)) for k in ("AVX2", "FMA3", "AVX512F")}
    if seen["AVX512F"] or not (seen["AVX2"] and seen["FMA3"]):
        print(f"--avx2: this process sees {seen}, not an AVX2 processor without AVX-512 "
              "(the machine may not fault on cpuid: see hide_avx512's message above)", file=sys.stderr)
        sys.exit(2)
    return seen


def describe():
    return ("AVX2 only: AVX-512, AMX and AVX-VNNI hidden from every process by bench/hide_avx512 "
            "(CPUID faulting); " + ", ".join(f"{k}={v}" for k, v in SWITCHES.items()) + ", qkv --kernels avx2")
