// Where `qkv bench --dump-dir` writes (bench_common.hpp): the files' names, and the folder and
// files checked through the one writer before anything is measured.
#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/file_write.hpp"
#include "bench_common.hpp"

namespace qkv::cli {

// The .npy files --dump-dir gets: X for each size, the four weights, Z for each kernel and size.
std::string x_dump(std::size_t n) { return fmt::format("X_n{}.npy", n); }
std::string z_dump(impl i, std::size_t n) { return fmt::format("Z_{}_n{}.npy", attention::impl_name(i), n); }

// One folder made at most, never a path of them, and every file it will get checked: a link, a
// named pipe or a read-only file is refused now, not after minutes of measuring.
void prepare_dump_dir(const bench_args& b) {
    if (b.dump_dir.empty()) return;
    if (auto no = make_folder(b.dump_dir)) throw input_error(source_loc{b.dump_dir}, fmt::format("--dump-dir: {}", *no));
    std::vector<std::string> names{"W_Q.npy", "W_K.npy", "W_V.npy", "W_O.npy"};
    for (std::size_t n : b.sizes) {
        names.push_back(x_dump(n));
        for (impl i : b.impls) names.push_back(z_dump(i, n));
    }
    for (const std::string& name : names)
        if (auto no = cannot_replace(b.dump_dir + "/" + name)) throw input_error(source_loc{b.dump_dir + "/" + name}, *no);
}

// X at this n and the four weights (the same at every n), for a comparison outside qkv.
void dump_inputs(const bench_args& b, std::size_t n, const bench::inputs& P) {
    bench::write_npy(b.dump_dir + "/" + x_dump(n), P.X);
    const std::pair<const char*, const matrix*> ws[] = {{"W_Q", &P.W.W_Q}, {"W_K", &P.W.W_K}, {"W_V", &P.W.W_V}, {"W_O", &P.W.W_O}};
    for (auto& [name, w] : ws) bench::write_npy(b.dump_dir + fmt::format("/{}.npy", name), *w);
}

}  // namespace qkv::cli
