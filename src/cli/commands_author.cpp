// The commands for authors and tinkerers: `qkv validate` (every problem of lesson, scenario and
// exercise files, with file:line), `qkv scenario` (a scenario for your own sentence) and
// `qkv formulas` (the formula language and its built-ins, from the one table).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qkv/builtins.hpp"
#include "qkv/cli.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/validate.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr int held_signals[3] = {SIGINT, SIGTERM, SIGHUP};
volatile std::sig_atomic_t held_signal = 0;
extern "C" void note_signal(int sig) { held_signal = sig; }

std::optional<struct stat> stat_of(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return st;
}

// Where -o FILE may write: FILE itself when it does not exist yet, else the regular file it is (or a
// symbolic link leads to) when that file may be written. Anything else — a device, a named pipe,
// a folder, /proc/self/fd/1, a read-only file — is refused, never replaced by a rename.
fs::path writable_target(const std::string& path) {
    std::error_code ec;
    const auto link = fs::symlink_status(path, ec);
    if (ec || link.type() == fs::file_type::not_found) return path;
    fs::path target = fs::canonical(path, ec);
    if (ec) throw input_error(source_loc{path, 0, 0}, fmt::format("cannot write: {}", ec.message()));
    const auto st = stat_of(target);
    if (!st || !S_ISREG(st->st_mode))
        throw input_error(source_loc{path, 0, 0},
                          "not a regular file: -o writes a scenario to a regular file, or to standard output with -o -");
    // root may write anything; a file nobody may write is still meant to stay as it is
    if (::access(target.c_str(), W_OK) != 0 || (st->st_mode & 0222) == 0)
        throw input_error(source_loc{path, 0, 0}, "the file is read-only; give another name or make it writable");
    return target;
}

// FILE is either the old file or the whole new one: written beside it under a temporary name,
// then renamed over it (rename is atomic within a folder).
void write_file_atomically(const std::string& path, const std::string& text) {
    // Ctrl-C or SIGTERM between mkstemp and rename would leave the half-written temporary behind:
    // hold them until the file is whole or removed, then let them act. Blocking them would not do,
    // since another thread (OpenBLAS's) would take a signal sent to the process.
    struct signals_held {
        struct sigaction old[3];
        signals_held() {
            held_signal = 0;
            struct sigaction sa {};
            sa.sa_handler = note_signal;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_RESTART;
            for (int i = 0; i < 3; ++i) sigaction(held_signals[i], &sa, &old[i]);
        }
        ~signals_held() {
            for (int i = 0; i < 3; ++i) sigaction(held_signals[i], &old[i], nullptr);
            if (held_signal) std::raise(held_signal);
        }
    } held;
    const fs::path target = writable_target(path);
    const std::optional<struct stat> old = stat_of(target);
    fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    // ".NAME.XXXXXX" built with fmt: GCC 12 warns falsely (-Wrestrict) about "." + std::string
    std::string tmpl = (dir / fmt::format(".{}.XXXXXX", target.filename().string())).string();
    int fd = mkstemp(tmpl.data());
    if (fd < 0) throw input_error(source_loc{path, 0, 0}, fmt::format("cannot write: {}", std::strerror(errno)));
    bool ok = true;
    for (std::size_t done = 0; ok && done < text.size();) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += static_cast<std::size_t>(n);
    }
    int err = ok ? 0 : errno;
    mode_t mask = umask(0);  // mkstemp makes 0600; a scenario is as readable as any file the user writes
    umask(mask);
    // A file replaced keeps its mode and owner; a new one gets what the umask allows.
    if (ok && fchmod(fd, old ? old->st_mode & 07777 : 0666 & ~mask) != 0) ok = false, err = errno;
    if (ok && old && (old->st_uid != geteuid() || old->st_gid != getegid())) (void)!fchown(fd, old->st_uid, old->st_gid);
    if (ok && fsync(fd) != 0) ok = false, err = errno;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (ok && std::rename(tmpl.c_str(), target.c_str()) != 0) ok = false, err = errno;
    if (!ok) {
        std::remove(tmpl.c_str());
        throw input_error(source_loc{path, 0, 0}, fmt::format("cannot write: {}", std::strerror(err ? err : EIO)));
    }
}

}  // namespace

int cmd_validate(const args& a, const console& io) {
    std::vector<std::string> files;
    std::string data;
    po::options_description desc("Options");
    desc.add_options()
        ("help,h", "show this help")
        ("file", po::value(&files), "lesson, scenario or exercise files (.toml)")
        ("data", po::value(&data), "run lessons on this scenario instead of their own");
    po::positional_options_description pos;
    pos.add("file", -1);
    po::variables_map vm;
    if (!parse(io, "validate", a, desc, pos, vm)) return 0;
    if (files.empty()) throw usage_error("which files? e.g. qkv validate lessons/*.toml data/*.toml");
    std::string out;
    std::size_t problems = 0, bad_files = 0;
    for (const std::string& f : files) {
        validation v = validate_file(f, data);
        if (v.problems.empty()) out += fmt::format("{}: ok ({})\n", f, v.summary);
        for (const problem& p : v.problems) out += p.str() + "\n";
        for (const problem& w : v.warnings) out += w.str() + "\n";
        problems += v.problems.size();
        bad_files += !v.problems.empty();
    }
    if (problems)
        out += fmt::format("{} problem{} in {} of {} file{}\n", problems, problems == 1 ? "" : "s", bad_files, files.size(),
                           files.size() == 1 ? "" : "s");
    io.print(out);
    return problems ? 1 : 0;
}

int cmd_scenario(const args& a, const console& io) {
    std::string tokens, output;
    scenario_spec spec;
    unsigned long long seed = 1;
    po::options_description desc("Options");
    desc.add_options()
        ("help,h", "show this help")
        ("tokens", po::value(&tokens), "the sentence, tokens separated by spaces: \"我 爱 吃 苹果\"")
        ("d-model", po::value(&spec.d_model)->default_value(4), "embedding width")
        ("heads", po::value(&spec.heads)->default_value(2), "heads; must divide --d-model")
        ("seed", po::value(&seed)->default_value(1), "the same seed gives the same numbers")
        ("output,o", po::value(&output), "write to FILE instead of standard output");
    po::variables_map vm;
    if (!parse(io, "scenario", a, desc, {}, vm)) return 0;
    if (tokens.empty()) throw usage_error("give the sentence: qkv scenario --tokens \"我 爱 吃 苹果\"");
    spec.tokens = split_tokens(tokens);
    spec.seed = seed;
    std::string text;
    try {
        text = scenario_toml(generate_scenario(spec), fmt::format("qkv scenario {}", spec_arguments(spec)));
    } catch (const input_error& e) {
        throw usage_error(e.message());
    }
    if (output.empty() || output == "-") io.print(text);
    else write_file_atomically(output, text);
    return 0;
}

int cmd_formulas(const args& a, const console& io) {
    po::options_description desc("Options");
    desc.add_options()("help,h", "show this help");
    po::variables_map vm;
    if (!parse(io, "formulas", a, desc, {}, vm)) return 0;
    std::string out =
        "The formula language (lessons/README.md teaches it)\n\n"
        "  NAME = expr            one statement per line; # starts a comment\n"
        "  A @ B                  matrix product\n"
        "  A^T                    transpose\n"
        "  + - * /                elementwise; a scalar, a [1, d] row or an [n, 1] column broadcasts\n"
        "  A[i]  A[i, j]          row i, entry (i, j), counted from 1\n"
        "  -x  (x)  3.5           negation, grouping, numbers\n"
        "  a stack [h, n, d] is handled head by head\n\n"
        "Built-in functions\n\n";
    std::size_t w = 0;
    for (const builtin& b : builtins()) w = std::max(w, b.signature.size());
    for (const builtin& b : builtins()) out += fmt::format("  {:<{}}  {}\n", b.signature, w, b.help);
    io.print(out);
    return 0;
}

}  // namespace qkv::cli
