// --step and --present on the console: the process's terminal for the program, memory for a
// console that has no descriptors, so a test runs them in-process and reads what they drew.
#include "screen.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qkv/file_words.hpp"
#include "qkv/presenter.hpp"
#include "qkv/stepper.hpp"

namespace qkv::cli {
namespace {

// A descriptor closed when it goes out of scope.
struct owned_fd {
    int fd = -1;
    explicit owned_fd(int f) : fd(f) {}
    owned_fd(const owned_fd&) = delete;
    owned_fd& operator=(const owned_fd&) = delete;
    ~owned_fd() {
        if (fd >= 0) ::close(fd);
    }
};

[[noreturn]] void cannot_draw() { throw input_error(said("cannot draw the screen: {}", errno_said(errno))); }

int draw(const std::vector<trace>& traces, const render_options& o, const screen_choice& how, int in_fd, int out_fd) {
    if (how.present) {
        presenter_options p;
        p.auto_seconds = how.auto_seconds;
        p.in_fd = in_fd;
        p.out_fd = out_fd;
        return run_presenter(traces, o, p, how.start);
    }
    if (out_fd == 1) return run_stepper(traces, o, stepper_io{in_fd, stdout}, how.start);
    owned_fd copy{::dup(out_fd)};
    std::FILE* out = copy.fd < 0 ? nullptr : ::fdopen(copy.fd, "w");
    if (!out) cannot_draw();
    copy.fd = -1;  // the FILE has it now
    const int status = run_stepper(traces, o, stepper_io{in_fd, out}, how.start);
    std::fclose(out);
    return status;
}

// What was written into fd, from its start.
std::string read_back(int fd) {
    std::string text;
    char chunk[65536];
    if (::lseek(fd, 0, SEEK_SET) != 0) cannot_draw();
    for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) cannot_draw();
        text.append(chunk, static_cast<std::size_t>(n));
    }
    return text;
}

}  // namespace

int run_screen(const console& io, const std::vector<trace>& traces, const render_options& o, const screen_choice& how) {
    if (io.out_fd >= 0) return draw(traces, o, how, io.in_fd, io.out_fd);
    owned_fd memory{::memfd_create("qkv-screen", MFD_CLOEXEC)};
    int keys[2] = {-1, -1};
    if (memory.fd < 0 || (io.in_fd < 0 && ::pipe2(keys, O_CLOEXEC) != 0)) cannot_draw();
    owned_fd no_keys{keys[0]};
    if (keys[1] >= 0) ::close(keys[1]);  // nobody writes: the end of input at once
    const int status = draw(traces, o, how, io.in_fd >= 0 ? io.in_fd : no_keys.fd, memory.fd);
    io.print(read_back(memory.fd));
    return status;
}

}  // namespace qkv::cli
