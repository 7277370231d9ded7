// The console a command writes to, and the program around run(): the process's standard streams
// as the console, made safe to write to first.
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ostream>
#include <streambuf>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include "qkv/blas.hpp"
#include "qkv/cli.hpp"
#include "qkv/file_words.hpp"
#include "qkv/memory.hpp"
#include "qkv/ranks.hpp"
#include "qkv/write_all.hpp"
#include "program_split.hpp"

namespace qkv::cli {

void console::print(std::string_view text) const {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (out) return;
    const int e = errno;  // as the failed write left it (fd_buf below returns at once)
    out.clear();
    if (e == EPIPE) throw broken_pipe{};
    // A closed standard output is held by /dev/null opened for reading (main below): EBADF.
    if (e == EBADF) throw input_error(said("standard output is closed: nothing was shown, so nothing is recorded"));
    throw input_error(said("cannot write to standard output: {}", errno_said(e)));
}

void console::tell(std::string_view text) const noexcept {
    try {
        err.write(text.data(), static_cast<std::streamsize>(text.size()));
        err.flush();
        err.clear();  // nobody to tell that err failed
    } catch (...) {
    }
}

namespace {

// A descriptor as a stream without a buffer of its own: each print is one write (or a few, when
// the kernel takes part), so what a command printed is out before it goes on, and a failed write
// returns at once with errno as the kernel set it.
class fd_buf : public std::streambuf {
public:
    explicit fd_buf(int fd) : fd_(fd) {}

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        return static_cast<std::streamsize>(write_some_of(fd_, std::string_view(s, static_cast<std::size_t>(n))));
    }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        const char ch = traits_type::to_char_type(c);
        return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
    }

private:
    int fd_;
};

// A program started with 0, 1 or 2 closed (`2>&-`) would hand that number to the next file it
// opens, and an error message would then be written into that file: park /dev/null there, opened
// for reading only, so that a write to a closed output still fails (EBADF) as it would have:
// `qkv hint 3.1 >&-` showed nothing, and must neither succeed nor record the hint.
void keep_standard_streams_open() noexcept {
    for (int fd = 0; fd <= 2; ++fd)
        if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            const int opened = ::open("/dev/null", O_RDONLY);
            if (opened >= 0 && opened != fd) ::dup2(opened, fd), ::close(opened);
        }
}

}  // namespace

int main(int argc, char** argv) {
    keep_standard_streams_open();
    hand_ranks_to_full_program();  // under mpirun, qkv is qkv-full from here (program_split.hpp)
    // A closed pipe is reported by console::print as broken_pipe instead of killing us mid-line.
    std::signal(SIGPIPE, SIG_IGN);
    // OpenBLAS on one thread, its workers stopped, until a command asks for more (bench, with
    // --threads): otherwise they spin for 0.1 s after loading, a CPU's worth (blas.hpp)
    blas::set_threads(1);
    keep_freed_memory();
    // under mpirun: MPI started, its ranks for the commands that compute on lesson 11's devices; only
    // rank 0 speaks (ranks.hpp)
    const ranks::session ranks;
    program p = standard_program();
    p.ranks = ranks.devices();
    fd_buf out_buf(1), err_buf(2);
    std::ostream out(&out_buf), err(ranks.speaks() ? &err_buf : nullptr);
    return run(args(argv + (argc > 0 ? 1 : 0), argv + argc), console{out, err, 1, ranks.speaks() ? 2 : -1, 0}, p);
}

}  // namespace qkv::cli
