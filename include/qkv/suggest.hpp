// "Did you mean …": the nearest of a set of names, for unknown commands, lessons and formula names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qkv {

// Levenshtein distance (case-sensitive, by bytes).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is close enough to be a plausible typo (distance at most
// max(1, size/3), or equal ignoring case); else "".
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace qkv
