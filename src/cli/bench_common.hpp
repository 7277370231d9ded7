// Private to src/cli: what `qkv bench` (commands_bench.cpp) and `qkv bench --tensor-parallel`
// (commands_bench_ranks.cpp) word and check alike: the attention's shape options.
#pragma once

#include <string>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "qkv/cli.hpp"

namespace qkv::cli {

// --d-model and --heads, with the defaults every bench starts from.
inline void add_shape_options(boost::program_options::options_description& desc, std::size_t& d_model, std::size_t& heads, lang l) {
    namespace po = boost::program_options;
    desc.add_options()
        ("d-model", po::value(&d_model)->default_value(512), tr(l, "width of each token").c_str())
        ("heads", po::value(&heads)->default_value(8), tr(l, "attention heads (must divide --d-model)").c_str());
}

// One usage line for a shape or a thread count the benches do not run.
inline void check_shape(std::size_t d_model, std::size_t heads, int threads) {
    if (d_model < 1 || d_model > 16384) throw usage_error(said("--d-model must be 1 to 16384"));
    if (heads < 1 || d_model % heads != 0) throw usage_error(said("--heads {} does not divide --d-model {}", heads, d_model));
    if (threads < 1 || threads > 256) throw usage_error(said("--threads must be 1 to 256"));
}

}  // namespace qkv::cli
