// Viridis by its five stops: a weight's colour for the terminal's heatmap and the HTML page alike.
#include "qkv/colour_map.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace qkv {

rgb8 viridis(float w) {
    static constexpr std::array<std::array<float, 3>, 5> stops{
        {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
    const float t = std::isfinite(w) ? std::clamp(w, 0.0f, 1.0f) : 0.0f;
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(t * 4), 3);
    const float u = t * 4 - static_cast<float>(k);
    auto mix = [&](int ch) { return static_cast<int>(std::lround(stops[k][ch] + u * (stops[k + 1][ch] - stops[k][ch]))); };
    return {mix(0), mix(1), mix(2)};
}

}  // namespace qkv
