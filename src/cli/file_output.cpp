// Files written whole or not at all (file_output.hpp): a temporary beside the target, fsync, rename.
#include "file_output.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qkv/error.hpp"

namespace qkv::cli {
namespace {

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
fs::path writable_target(const std::string& path, std::string_view what) {
    std::error_code ec;
    const auto link = fs::symlink_status(path, ec);
    if (ec || link.type() == fs::file_type::not_found) return path;
    fs::path target = fs::canonical(path, ec);
    if (ec) throw input_error(source_loc{path, 0, 0}, fmt::format("cannot write: {}", ec.message()));
    const auto st = stat_of(target);
    if (!st || !S_ISREG(st->st_mode))
        throw input_error(source_loc{path, 0, 0}, fmt::format("not a regular file: {}", what));
    // root may write anything; a file nobody may write is still meant to stay as it is
    if (::access(target.c_str(), W_OK) != 0 || (st->st_mode & 0222) == 0)
        throw input_error(source_loc{path, 0, 0}, "the file is read-only; give another name or make it writable");
    return target;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view text, std::string_view what) {
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
    const fs::path target = writable_target(path, what);
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


void check_writable(const std::string& path, std::string_view what) { writable_target(path, what); }

}  // namespace qkv::cli
