// The fused attention's plan (fused_plan.hpp): the tuned block sizes, and how many heads' keys and
// values one pass keeps.
#include "fused_plan.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace qkv::attention {

fused_plan plan_fused(std::size_t n, std::size_t d, const options& o) {
    // 512 query rows amortise each key block over many rows; 256 keys of K^T (64 KiB at d_k = 64)
    // and of V (64 KiB) sit in a 1 MiB L2 beside a 512 × 256 block of S. Smaller query blocks when
    // n is small, so every thread gets a few.
    std::size_t bq = o.block_q;
    if (bq == 0) {
        bq = 512;
        while (bq > 64 && n < bq * 2 * std::size_t(std::max(1, o.threads))) bq /= 2;
        // then as many blocks, as even as they can be, each a whole number of 6-row tiles: at
        // n = 4096, 7 × 516 + 484 rather than 8 × 512, whose last tile of 2 rows would keep only a
        // third of the micro-kernel's rows busy
        const std::size_t blocks = (n + bq - 1) / bq, per_block = (n + blocks - 1) / std::max<std::size_t>(blocks, 1);
        bq = std::max<std::size_t>(6, (per_block + 5) / 6 * 6);
    }
    fused_plan p{n, d, o.heads, d / o.heads, 0, bq, o.block_k ? o.block_k : 256};
    p.g = o.heads_per_pass;
    const std::size_t span = o.head_count ? o.head_count : o.heads;  // the heads computed
    if (p.g == 0) {  // the most heads whose keys and values fit the budget, and divide the span
        p.g = 1;
        for (std::size_t g = span; g >= 1; --g)
            if (span % g == 0 && (p.key_blocks() * p.kb_ld() + n) * g * p.d_k * sizeof(float) <= o.max_kv_bytes) {
                p.g = g;
                break;
            }
    }
    if (p.g == 0 || span % p.g != 0 || o.first_head % p.g != 0 || o.heads % span != 0 || o.first_head + span > o.heads)
        throw std::invalid_argument(fmt::format("attention: {} heads per pass do not divide heads {} … {} of {}", p.g,
                                                o.first_head + 1, o.first_head + span, o.heads));
    return p;
}

}  // namespace qkv::attention
