// The parameter table and its one allocation; initialisation from seeded streams.
#include "qkv/parameters.hpp"

#include <cmath>

#include <fmt/format.h>

#include "qkv/kernels.hpp"

namespace qkv::train {

std::string tensor_spec::full_name() const { return layer ? fmt::format("layer{}.{}", layer, name) : name; }

std::vector<tensor_spec> parameter_table(const model_size& s) {
    const std::size_t C = s.d_model;
    std::vector<tensor_spec> t;
    std::size_t at = 0;
    auto add = [&](const char* name, std::size_t layer, std::size_t rows, std::size_t cols) {
        t.push_back({name, layer, rows, cols, at});
        at += rows * cols;
    };
    add("E", 0, s.vocab, C);
    add("P", 0, s.seq, C);
    for (std::size_t l = 1; l <= s.layers; ++l)
        for (const char* name : {"W_Q", "W_K", "W_V", "W_O"}) add(name, l, C, C);
    add("U", 0, C, s.vocab);
    return t;
}

parameters::parameters(const model_size& s) : size_(s), table_(parameter_table(s)) {
    data_.assign(table_.back().offset + table_.back().size(), 0.0f);
}

model_weights parameters::weights() {
    float* base = data_.data();
    model_weights w{base + table_[0].offset, base + table_[1].offset, {}, base + table_.back().offset};
    for (std::size_t l = 0; l < size_.layers; ++l) {
        const std::size_t first = 2 + 4 * l;
        w.layer.push_back({base + table_[first].offset, base + table_[first + 1].offset,
                           base + table_[first + 2].offset, base + table_[first + 3].offset});
    }
    return w;
}

void initialise(parameters& p, float embedding, float position, float gain, std::uint64_t seed) {
    const float weight_std = gain / std::sqrt(static_cast<float>(p.size().d_model));
    std::uint64_t stream = 0;
    for (const tensor_spec& t : p.table()) {
        // tensor k of the table draws from seed·1000 + k: distinct streams, stable when sizes change
        const matrix draw = kernels::randn(t.rows, t.cols, seed * 1000 + stream++);
        const float s = t.name == "E" ? embedding : t.name == "P" ? position : weight_std;
        for (std::size_t i = 0; i < t.size(); ++i) p.data()[t.offset + i] = s * draw.data[i];
    }
}

}  // namespace qkv::train
