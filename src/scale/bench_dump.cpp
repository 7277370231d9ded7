// Where `qkv bench --dump-dir` writes (bench_dump.hpp): the files' names, and the folder and
// files checked through the one writer before anything is measured.
#include "qkv/bench_dump.hpp"

#include <filesystem>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/file_write.hpp"

namespace qkv::bench {

std::string x_dump(std::size_t n) { return fmt::format("X_n{}.npy", n); }
std::string z_dump(attention::impl i, std::size_t n) { return fmt::format("Z_{}_n{}.npy", attention::impl_name(i), n); }

void prepare_dump_dir(const setup& s) {
    if (s.dump_dir.empty()) return;
    if (auto no = make_folder(s.dump_dir)) throw input_error(source_loc{s.dump_dir}, fmt::format("--dump-dir: {}", *no));
    std::vector<std::string> names{"W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};
    for (std::size_t n : s.sizes) {
        names.push_back(x_dump(n));
        for (attention::impl i : s.impls) names.push_back(z_dump(i, n));
    }
    for (const std::string& name : names)
        if (auto no = cannot_replace(s.dump_dir + "/" + name)) throw input_error(source_loc{s.dump_dir + "/" + name}, *no);
}

void dump_inputs(const std::string& dir, std::size_t n, const inputs& P) {
    write_npy(dir + "/" + x_dump(n), P.X);
    const std::pair<const char*, const matrix*> ws[] = {{"W_Q", &P.W.W_Q}, {"W_K", &P.W.W_K}, {"W_V", &P.W.W_V}, {"W_O", &P.W.W_O}};
    for (auto& [name, w] : ws) write_npy(dir + fmt::format("/{}.npy", name), *w);
}

void dump_gradients(const std::string& dir, std::size_t n, const inputs& P, const matrix& dZ,
                    const attention::gradients& g) {
    std::filesystem::create_directories(dir);
    const std::pair<std::string, const matrix*> files[] = {
        {fmt::format("X_n{}", n), &P.X},       {"W_Q", &P.W.W_Q},  {"W_K", &P.W.W_K},
        {"W_V", &P.W.W_V},                     {"W_O", &P.W.W_O},  {fmt::format("dZ_n{}", n), &dZ},
        {fmt::format("dX_n{}", n), &g.dX},     {fmt::format("dW_Q_n{}", n), &g.dW_Q},
        {fmt::format("dW_K_n{}", n), &g.dW_K}, {fmt::format("dW_V_n{}", n), &g.dW_V},
        {fmt::format("dW_O_n{}", n), &g.dW_O}};
    for (auto& [name, M] : files) write_npy(dir + "/" + name + ".npy", *M);
}

}  // namespace qkv::bench
