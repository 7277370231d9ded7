// qkv run in a child that `arrange` prepares before exec (a closed or size-limited standard output,
// an address-space limit): the exit status (or 128 + signal) and standard error, read back.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace qkv::test {

inline std::pair<int, std::string> run_arranged(const std::vector<std::string>& args, const std::function<void()>& arrange) {
    const char* bin = std::getenv("QKV_BIN");
    std::string program = bin ? bin : "qkv";
    int err[2];
    if (::pipe(err) != 0) return {-1, ""};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(err[1], 2), ::close(err[0]), ::close(err[1]);
        arrange();
        std::vector<std::string> copy = args;
        std::vector<char*> argv{program.data()};
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(err[1]);
    std::string said;
    char buf[4096];
    for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
    ::close(err[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), said};
}

}  // namespace qkv::test
