// How much memory this process could still have, so that a run too large for the machine is
// refused up front with one line instead of ending in an out-of-memory kill.
#pragma once

#include <cstddef>
#include <optional>

namespace qkv {

// Bytes this process could allocate now: MemAvailable in /proc/meminfo, or what its address-space
// limit (ulimit -v) still allows when that is less; nullopt when neither says.
std::optional<std::size_t> available_memory();

// Memory a run frees is kept by the allocator for the next one, not handed back to the system:
// blocks up to 32 MiB come from the heap (not a fresh mapping each, whose every page faults in on
// first touch), and up to 128 MiB of free heap is kept at its top. A lesson that makes and drops
// [512, 512] matrices stage after stage (lesson 8) had spent a third of its time in page faults,
// and a server running lessons one after another paid them again on every run. glibc only; a
// no-op elsewhere.
void keep_freed_memory();

}  // namespace qkv
