// The processor's name, as /proc/cpuinfo's first "model name" line gives it: what bench/peer_record.py
// records beside each comparison, so that `qkv bench` shows only what was measured on this CPU.
#pragma once

#include <string>

namespace qkv::bench {

// "AMD EPYC 7B13"; "" where /proc/cpuinfo is missing or names none (an arm64 kernel says no model name).
std::string cpu_name();

}  // namespace qkv::bench
