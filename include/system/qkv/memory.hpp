// How much memory this process could still have, so that a run too large for the machine is
// refused up front with one line instead of ending in an out-of-memory kill.
#pragma once

#include <cstddef>
#include <optional>

namespace qkv {

// Bytes this process could allocate now: MemAvailable in /proc/meminfo, or what its address-space
// limit (ulimit -v) still allows when that is less; nullopt when neither says.
std::optional<std::size_t> available_memory();

}  // namespace qkv
