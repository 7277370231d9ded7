// "Did you mean …": the nearest of a set of names, for unknown commands, lessons, exercises, and
// the names and functions of a formula.
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

// The same for the names in a formula, where case is free (W_q for W_Q): the distance ignores
// case, ties go to the candidate nearer with case, and names of one or two letters must match up
// to case, since 'Z' is no typo of 'A'. "" when none is close enough.
std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace qkv
