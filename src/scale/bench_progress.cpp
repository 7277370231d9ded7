// The time a benchmark has left (bench_progress.hpp).
#include "qkv/bench_progress.hpp"

namespace qkv::bench {

std::optional<double> time_left_estimate::seconds(const std::vector<std::pair<std::string, std::size_t>>& todo) const {
    double s = 0;
    for (auto& [kind, n] : todo) {
        const auto it = per_n2_.find(kind);
        if (it == per_n2_.end()) return std::nullopt;
        s += it->second * double(n) * double(n);
    }
    return s;
}

}  // namespace qkv::bench
