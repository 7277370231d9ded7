// The status line long work redraws on a terminal (status_line.hpp).
#include "status_line.hpp"

#include <cmath>

#include <fmt/format.h>

#include "qkv/styled_text.hpp"
#include "qkv/terminal.hpp"

namespace qkv::cli {

status_line::status_line(const console& io) : io_(io), on_(terminal::is_tty(io.err_fd)) {}

// Cut to a column short of the window: a line that wraps is one \r\033[K no longer clears, and
// every redraw would leave a copy of it behind.
void status_line::show(const std::string& text) const {
    if (on_) io_.tell(fmt::format("\r\033[K{}", clip(text, columns())));
}

std::size_t status_line::columns() const {
    const std::size_t cols = terminal::width(io_.err_fd, 80);
    return cols > 1 ? cols - 1 : 1;
}

void status_line::clear() const {
    if (on_) io_.tell("\r\033[K");
}

std::string time_left(double seconds, lang l) {
    if (seconds < 90) return fmt::format(fmt::runtime(tr(l, "about {:.0f} s left")), std::max(1.0, std::ceil(seconds)));
    return fmt::format(fmt::runtime(tr(l, "about {:.0f} min left")), std::ceil(seconds / 60));
}

}  // namespace qkv::cli
