// The class's secrets: its join code, the teacher's token and each student's, drawn from the
// kernel's cryptographic source (getrandom), and compared in a time that does not depend on where
// two of them first differ, so that timing a guess tells nothing of the secret.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qkv::serve {

// The letters a join code is made of: no 0/O, 1/I/L to misread on a projector.
inline constexpr std::string_view code_letters = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

// `n` letters of code_letters, each as likely as the others.
std::string random_code(std::size_t n);
// `bytes` random bytes as lowercase hex (2 × bytes characters).
std::string random_hex(std::size_t bytes);
// a == b, in a time that depends on their lengths only.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace qkv::serve
