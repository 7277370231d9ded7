// An AVX2 machine on an AVX-512 one, for the peers' side of a benchmark: LD_PRELOAD=libhide_avx512.so
// makes the processor's CPUID answer, for this process and the threads it starts, as a CPU without
// AVX-512, AMX and AVX-VNNI would: the libraries that choose their kernels by CPUID (ONNX Runtime's
// MLAS, PyTorch's cpuinfo, OpenBLAS's DYNAMIC_ARCH) then run their AVX2 + FMA ones, as on the AMD
// Zen 2/3 and recent Intel laptops that have no AVX-512. qkv's side takes `--kernels avx2` instead.
//
// How: Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, the cpuid_fault flag in /proc/cpuinfo)
// makes every cpuid instruction raise SIGSEGV; the handler turns faulting off, runs the real cpuid,
// turns it on again, clears the bits below, and steps past the instruction. What a library read
// before this library's constructor ran (the C library's own string functions) it keeps. Faulting
// is per thread, inherited by the threads a thread starts, and ends at execve (where LD_PRELOAD
// starts it again). A handler the program sets for SIGSEGV is kept and called for every other
// fault (sigaction below). Where faulting is not available, it says so on stderr once and changes nothing,
// so a comparison never runs on a machine it believes to be another.
// Checked by bench/compare_*.py --avx2, which asks the peer what it sees before timing it.
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cpuid.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

// Leaf 7, subleaf 0: EBX AVX512F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31; ECX VBMI 1,
// VBMI2 6, VNNI 11, BITALG 12, VPOPCNTDQ 14; EDX 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, AMX-BF16 22,
// AVX512-FP16 23, AMX-TILE 24, AMX-INT8 25. Subleaf 1: EAX AVX-VNNI 4, AVX512-BF16 5, AMX-FP16 21;
// EDX AVX10 19.
constexpr std::uint32_t leaf7_ebx = (1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | (1u << 28) |
                                    (1u << 30) | (1u << 31);
constexpr std::uint32_t leaf7_ecx = (1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14);
constexpr std::uint32_t leaf7_edx = (1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) | (1u << 23) | (1u << 24) | (1u << 25);
constexpr std::uint32_t leaf7_1_eax = (1u << 4) | (1u << 5) | (1u << 21);
constexpr std::uint32_t leaf7_1_edx = 1u << 19;

long set_faulting(bool on) { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1); }

using sigaction_fn = int (*)(int, const struct sigaction*, struct sigaction*);
sigaction_fn real_sigaction() {
    static const auto f = reinterpret_cast<sigaction_fn>(dlsym(RTLD_NEXT, "sigaction"));
    return f;
}

bool faulting = false;           // set once, by the constructor, before any other thread runs
struct sigaction theirs {};      // the SIGSEGV action the program asked for (SIG_DFL until it asks)

// A fault that is not a cpuid goes to the program's own handler, as if this library were not there.
void pass_on(int sig, siginfo_t* info, void* context) {
    if (theirs.sa_flags & SA_SIGINFO) return theirs.sa_sigaction(sig, info, context);
    if (theirs.sa_handler == SIG_IGN) return;
    if (theirs.sa_handler != SIG_DFL) return theirs.sa_handler(sig);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    real_sigaction()(SIGSEGV, &dfl, nullptr);  // the instruction runs again and faults as it would have
}

void on_segv(int sig, siginfo_t* info, void* context) {
    auto* uc = static_cast<ucontext_t*>(context);
    greg_t* r = uc->uc_mcontext.gregs;
    const auto* ip = reinterpret_cast<const unsigned char*>(r[REG_RIP]);
    if (info->si_code != SI_KERNEL || ip[0] != 0x0f || ip[1] != 0xa2) return pass_on(sig, info, context);
    const unsigned leaf = unsigned(r[REG_RAX]), sub = unsigned(r[REG_RCX]);
    unsigned a, b, c, d;
    const int saved_errno = errno;
    set_faulting(false);
    __cpuid_count(leaf, sub, a, b, c, d);
    set_faulting(true);
    errno = saved_errno;
    if (leaf == 7 && sub == 0) b &= ~leaf7_ebx, c &= ~leaf7_ecx, d &= ~leaf7_edx;
    if (leaf == 7 && sub == 1) a &= ~leaf7_1_eax, d &= ~leaf7_1_edx;
    r[REG_RAX] = a, r[REG_RBX] = b, r[REG_RCX] = c, r[REG_RDX] = d;
    r[REG_RIP] += 2;
}

[[gnu::constructor]] void hide_avx512() {
    struct sigaction sa {};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (real_sigaction()(SIGSEGV, &sa, &theirs) != 0 || set_faulting(true) != 0) {
        std::fprintf(stderr, "hide_avx512: this machine cannot fault on cpuid (%s); AVX-512 stays visible\n",
                     std::strerror(errno));
        real_sigaction()(SIGSEGV, &theirs, nullptr);
        return;
    }
    faulting = true;
}

}  // namespace

// The program's own SIGSEGV handler (node's, for WebAssembly's traps, say) is kept aside and called
// for every fault that is not a cpuid, instead of replacing this library's.
extern "C" int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
    if (sig != SIGSEGV || !faulting) return real_sigaction()(sig, act, old);
    if (old) *old = theirs;
    if (act) theirs = *act;
    return 0;
}
