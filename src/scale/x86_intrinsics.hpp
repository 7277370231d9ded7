// Private to attention at scale: the x86 vector intrinsics, for the kernels' AVX-512 and AVX2 builds.
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() as the unused source of their masked
// builtins and then warn that it is uninitialised (GCC bug 105593); not ours to fix.
#pragma once

#if !defined(__x86_64__)
#error "x86 intrinsics: include this only behind #if defined(__x86_64__)"
#endif

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
