// The memory there is (memory.hpp), as Linux tells it: /proc/meminfo for the machine,
// getrlimit and /proc/self/statm for this process's address-space limit.
#include "qkv/memory.hpp"

#include <cstdio>
#include <fstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace qkv {

namespace {

// MemAvailable: what the kernel could give without swapping, page cache included.
std::optional<std::size_t> mem_available() {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    std::size_t kib = 0;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return std::nullopt;
}

// Bytes the address-space limit (ulimit -v) still allows: the limit less what is mapped now.
std::optional<std::size_t> address_space_left() {
    rlimit lim{};
    if (getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return std::nullopt;
    std::size_t pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
        std::fclose(f);
    }
    const std::size_t used = pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return lim.rlim_cur > used ? lim.rlim_cur - used : 0;
}

}  // namespace

std::optional<std::size_t> available_memory() {
    std::optional<std::size_t> have = mem_available();
    if (auto left = address_space_left(); left && (!have || *left < *have)) have = left;
    return have;
}

void keep_freed_memory() {
#if defined(__GLIBC__)
    // setting either also ends glibc's own raising of them as blocks are freed
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}

}  // namespace qkv
