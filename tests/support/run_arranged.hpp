// qkv run in a child that `arrange` prepares before exec (a closed, size-limited or non-blocking
// standard output, an address-space limit): what it wrote on one of its outputs, read back through
// a pipe, and how it ended.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace qkv::test {

// qkv (QKV_BIN) with `args`, its file descriptor `fd` a pipe this process reads to the end; `arrange`
// runs in the child after that pipe is in place, `before_reading` here before the first read. The
// raw status waitpid gives, and what the pipe carried.
inline std::pair<int, std::string> run_reading(int fd, const std::vector<std::string>& args,
                                               const std::function<void()>& arrange,
                                               const std::function<void()>& before_reading = {}) {
    const char* bin = std::getenv("QKV_BIN");
    std::string program = bin ? bin : "qkv";
    int out[2];
    if (::pipe(out) != 0) return {-1, ""};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], fd), ::close(out[0]), ::close(out[1]);
        arrange();
        std::vector<std::string> copy = args;
        std::vector<char*> argv{program.data()};
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(out[1]);
    if (before_reading) before_reading();
    std::string said;
    char buf[65536];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {status, said};
}

// Standard error, and the exit status (or 128 + the signal that ended it).
inline std::pair<int, std::string> run_arranged(const std::vector<std::string>& args, const std::function<void()>& arrange) {
    auto [status, said] = run_reading(2, args, arrange);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), said};
}

}  // namespace qkv::test
