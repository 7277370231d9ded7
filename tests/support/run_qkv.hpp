// Runs the real qkv program for command-line tests: arguments, standard input and extra
// environment in; exit status, standard output and standard error out. The program's path comes
// from QKV_BIN, which tests/meson.build sets.
#pragma once

#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace qkv::test {

struct run_result {
    int status = -1;   // exit status, or 128 + signal
    std::string out;
    std::string err;
};

inline run_result run_qkv(const std::vector<std::string>& args, const std::string& input = "",
                          const std::vector<std::pair<std::string, std::string>>& env = {}) {
    const char* bin = std::getenv("QKV_BIN");
    std::string program = bin ? bin : "qkv";
    int in[2], out[2], err[2];
    if (pipe(in) || pipe(out) || pipe(err)) return {};
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
        for (auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> argv{program.data()};
        std::vector<std::string> copy = args;
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    close(in[0]), close(out[1]), close(err[1]);
    signal(SIGPIPE, SIG_IGN);
    std::size_t written = 0;
    if (input.empty()) close(in[1]), in[1] = -1;
    run_result r;
    pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
    int open_reads = 2;
    while (open_reads > 0) {
        fds[2].fd = in[1];
        // A program may be silent for long on a loaded machine: lesson 18 trains a model before its
        // first line, validate of every shipped file and bench's measurements took over 10 s with
        // 18 runnable, and lesson 17 under AddressSanitizer at a load of 10 was silent over a minute;
        // meson's time limit catches a hang.
        if (poll(fds, 3, 300000) <= 0) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[65536];
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) close(fds[i].fd), fds[i].fd = -1, --open_reads;
            else (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
        }
        if (in[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = write(in[1], input.data() + written, input.size() - written);
            if (n > 0) written += static_cast<std::size_t>(n);
            if (n <= 0 || written == input.size()) close(in[1]), in[1] = -1;
        }
    }
    if (in[1] >= 0) close(in[1]);
    for (int i = 0; i < 2; ++i)
        if (fds[i].fd >= 0) close(fds[i].fd);
    int status = 0;
    waitpid(pid, &status, 0);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace qkv::test
