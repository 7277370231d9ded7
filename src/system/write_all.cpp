// The one loop that writes all of a piece of text to a descriptor.
#include "qkv/write_all.hpp"

#include <cerrno>

#include <poll.h>
#include <unistd.h>

namespace qkv {

std::size_t write_some_of(int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t k = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {  // a non-blocking pipe that is full: wait for room
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
        }
        if (k <= 0) break;
        done += static_cast<std::size_t>(k);
    }
    return done;
}

}  // namespace qkv
