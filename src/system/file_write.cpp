// The one writer (file_write.hpp): what may be replaced, the temporary beside it, and the signals
// held while it exists.
#include "qkv/file_write.hpp"
#include "qkv/write_all.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <climits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace qkv {
namespace {

namespace fs = std::filesystem;

constexpr int held_signals[3] = {SIGINT, SIGTERM, SIGHUP};
volatile std::sig_atomic_t held_signal = 0;
extern "C" void note_signal(int sig) { held_signal = sig; }

// Ctrl-C or SIGTERM between mkstemp and rename would leave the half-written temporary behind:
// they are held until the file is whole or removed, then act. Blocking them would not do, since
// another thread (OpenBLAS's) would take a signal sent to the process.
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
    signals_held(const signals_held&) = delete;
    signals_held& operator=(const signals_held&) = delete;
};

// The temporary's name begins ".NAME.tmp-" (then the pid and mkstemp's six letters): NAME cut to
// 200 bytes, so that the whole stays within the 255 a name may have when NAME itself has 240.
std::string temp_prefix(const fs::path& target) {
    std::string name = target.filename().string();
    if (name.size() > 200) name.resize(200);
    return fmt::format(".{}.tmp-", name);  // fmt: GCC 12 warns falsely (-Wrestrict) on "." + s
}

// Whether the folder `path` goes in takes a new file: it exists, is a folder, and may be written.
// Checked before a long run whose result would go there, as well as the name itself.
std::optional<std::string> folder_refusal(const std::string& path) {
    const fs::path target(path);
    if (target.filename().string().size() > NAME_MAX)
        return "a name too long for the file system (a part over 255 bytes, or the whole over 4096)";
    if (path.size() >= PATH_MAX) return "a name too long for the file system (a part over 255 bytes, or the whole over 4096)";
    const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        const int err = errno;
        return err == ENOENT || err == ENOTDIR ? "cannot write: its folder does not exist"
                                               : fmt::format("cannot write: its folder: {}", std::strerror(err));
    }
    if (!S_ISDIR(st.st_mode)) return "cannot write: its folder does not exist (a file has that name)";
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return fmt::format("cannot write in its folder: {}", std::strerror(errno));
    return std::nullopt;
}

// What is at `path` now (lstat: a link is looked at, never through), if it may be replaced.
std::optional<std::string> refusal(const std::string& path, struct stat& st, bool& exists) {
    exists = ::lstat(path.c_str(), &st) == 0;
    if (!exists) return errno == ENOENT ? folder_refusal(path) : std::optional<std::string>(std::strerror(errno));
    if (S_ISLNK(st.st_mode)) return "a symbolic link; qkv writes only a regular file, never through a link";
    if (!S_ISREG(st.st_mode)) return "not a regular file (a folder, a named pipe or a device); give a file's name";
    // root may write anything; a file nobody may write is still meant to stay as it is
    if (::access(path.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0)
        return "read-only; give another name or make it writable";
    return folder_refusal(path);  // the temporary is made beside it
}

// The temporary's mode and owner are the old file's; a new file's mode is what the umask allows.
bool take_mode(int fd, bool exists, const struct stat& old) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, exists ? old.st_mode & 07777 : 0666 & ~mask) != 0) return false;
    if (exists && (old.st_uid != ::geteuid() || old.st_gid != ::getegid())) (void)!::fchown(fd, old.st_uid, old.st_gid);
    return true;
}

// A writer killed outright (SIGKILL, a power cut) leaves ".NAME.tmp-PID-XXXXXX" behind; once
// that process is gone nobody will finish it.
void sweep_stale_temps(const fs::path& target) {
    const std::string prefix = temp_prefix(target);
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(target.parent_path().empty() ? "." : target.parent_path(), ec)) {
        const std::string name = e.path().filename().string();
        if (!name.starts_with(prefix)) continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
        if (pid > 0 && end && *end == '-' && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            fs::remove(e.path(), ec);
    }
}

}  // namespace

std::optional<std::string> replace_file(const std::string& path, std::string_view bytes) {
    signals_held held;
    struct stat old {};
    bool exists = false;
    if (auto no = refusal(path, old, exists)) return no;
    const fs::path target(path);
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::string tmp = (dir / fmt::format("{}{}-XXXXXX", temp_prefix(target), ::getpid())).string();
    const int fd = ::mkstemp(tmp.data());  // O_EXCL: never a file planted under that name
    if (fd < 0) {
        const int err = errno;
        return err == ENOENT ? "cannot write: its folder does not exist" : fmt::format("cannot write: {}", std::strerror(err));
    }
    bool ok = write_all(fd, bytes) && take_mode(fd, exists, old) && ::fsync(fd) == 0;
    int err = ok ? 0 : errno;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
    if (!ok) {
        std::remove(tmp.c_str());
        return fmt::format("cannot write: {}", std::strerror(err ? err : EIO));
    }
    // The rename itself is durable only once the folder is synced.
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) ::fsync(dfd), ::close(dfd);
    sweep_stale_temps(target);
    return std::nullopt;
}

std::optional<std::string> cannot_replace(const std::string& path) {
    struct stat st {};
    bool exists = false;
    return refusal(path, st, exists);
}

std::optional<std::string> make_folder(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)  // a link to a folder is a folder the user chose
        return S_ISDIR(st.st_mode) ? std::nullopt : std::optional<std::string>("not a folder");
    if (::mkdir(path.c_str(), 0777) == 0) return std::nullopt;
    const int err = errno;
    if (err == ENOENT) return "cannot make this folder: the folder it would go in does not exist (qkv makes one folder, never a path of them)";
    return fmt::format("cannot make this folder: {}", std::strerror(err));
}

}  // namespace qkv
