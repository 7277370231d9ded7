// Edit distance and the nearest-name suggestion behind every "did you mean".
#include "qkv/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace qkv {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

static std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The distance is at least the difference in length: a candidate that much shorter or longer is
// never near, and is not measured (a name a megabyte long would cost a megabyte per candidate).
static bool too_far(std::string_view a, std::string_view b, std::size_t limit) {
    return (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit;
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    const std::string folded_word = lower(word);
    std::string best;
    std::size_t best_d = static_cast<std::size_t>(-1);
    for (const std::string& c : candidates) {
        if (too_far(word, c, limit)) continue;
        std::size_t d = folded_word == lower(c) ? 0 : edit_distance(word, c);
        if (d < best_d) best_d = d, best = c;
    }
    return best_d <= limit ? best : std::string{};
}

std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates) {
    const std::size_t limit = name.size() <= 2 ? 0 : std::max<std::size_t>(1, name.size() / 3);
    const std::string folded_name = lower(name);
    std::string best;
    std::size_t best_folded = limit + 1, best_exact = 0;
    for (const std::string& c : candidates) {
        if (too_far(name, c, limit)) continue;
        const std::size_t folded = edit_distance(folded_name, lower(c));
        const std::size_t exact = edit_distance(name, c);
        if (folded < best_folded || (folded == best_folded && !best.empty() && exact < best_exact)) {
            best = c;
            best_folded = folded;
            best_exact = exact;
        }
    }
    return best;
}

}  // namespace qkv
