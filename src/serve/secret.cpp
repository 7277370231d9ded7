// Secrets (secret.hpp): getrandom(2), which blocks only until the kernel's pool was first seeded,
// and a comparison without an early exit.
#include "secret.hpp"

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <sys/random.h>

namespace qkv::serve {
namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n) {
    std::vector<std::uint8_t> out(n);
    for (std::size_t got = 0; got < n;) {
        const ssize_t r = getrandom(out.data() + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw std::runtime_error("the kernel gave no random bytes (getrandom)");
        got += static_cast<std::size_t>(r);
    }
    return out;
}

}  // namespace

std::string random_code(std::size_t n) {
    std::string out;
    const std::size_t k = code_letters.size();
    const std::size_t fair = 256 - 256 % k;  // bytes at or past it would favour the first letters
    while (out.size() < n)
        for (std::uint8_t b : random_bytes(n))
            if (b < fair && out.size() < n) out += code_letters[b % k];
    return out;
}

std::string random_hex(std::size_t bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (std::uint8_t b : random_bytes(bytes)) out += digits[b >> 4], out += digits[b & 15];
    return out;
}

bool same_secret(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace qkv::serve
