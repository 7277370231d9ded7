// In qkv (program_split.hpp): the commands that need the server or real ranks become qkv-full by
// exec, the same process with the same id, terminal, environment and arguments, so that Ctrl-C, a
// signal sent to the pid or the mpirun that started it reach qkv-full as they would have reached qkv.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "qkv/cli.hpp"
#include "qkv/file_words.hpp"
#include "qkv/i18n.hpp"
#include "qkv/ranks.hpp"
#include "qkv_config.hpp"
#include "program_split.hpp"

namespace qkv::cli {
namespace {

namespace fs = std::filesystem;

// This process's arguments as the kernel keeps them, argv[0] first: what qkv-full is given.
std::vector<std::string> own_arguments() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::vector<std::string> out;
    for (std::size_t i = 0; i < all.size();) {
        const std::size_t end = std::min(all.find('\0', i), all.size());
        out.push_back(all.substr(i, end - i));
        i = end + 1;
    }
    return out;
}

// qkv-full beside this program (the build tree), else where `meson install` put it, found from
// this program's own folder as the lessons are, so a moved or DESTDIR installation finds it too.
fs::path full_program() {
    std::error_code ec;
    const fs::path here = fs::read_symlink("/proc/self/exe", ec).parent_path();
    const fs::path installed =
        here / fs::path(QKV_INSTALL_LIBEXECDIR).lexically_relative(QKV_INSTALL_BINDIR) / "qkv-full";
    return ::access((here / "qkv-full").c_str(), X_OK) == 0 ? here / "qkv-full" : installed.lexically_normal();
}

// Becomes qkv-full; throws input_error (status 2) when it cannot be started.
[[noreturn]] void become_full_program() {
    const fs::path full = full_program();
    std::vector<std::string> args = own_arguments();
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!args.empty()) ::execv(full.c_str(), argv.data());
    const int err = args.empty() ? ENOENT : errno;
    throw input_error(said("this command runs in {}, which could not be started: {} (meson compile -C BUILD qkv-full builds it)",
                           full.string(), errno_said(err)));
}

}  // namespace

void hand_ranks_to_full_program() {
    if (!QKV_FULL_HAS_MPI || !ranks::launched_by_mpirun()) return;
    try {
        become_full_program();
    } catch (const input_error& e) {  // before any command's parsing: the language the environment gives
        std::fprintf(stderr, "qkv: %s\n", e.in(default_lang()).c_str());
        std::exit(2);
    }
}

int cmd_serve(const args&, const console&) { become_full_program(); }

int cmd_bench_tensor_parallel(const args&, const console&) { become_full_program(); }

}  // namespace qkv::cli
