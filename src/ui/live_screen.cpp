// The live screen (live_screen.hpp): paced redraws of what the work gives, in the frame of the
// full-screen modes, drawn over the last one in place so that four redraws a second do not flicker.
#include "qkv/live_screen.hpp"

#include <algorithm>

#include "qkv/screen_frame.hpp"
#include "ui_words.hpp"

namespace qkv {

namespace {

// A terminal cannot show more, and each redraw costs the work a little of its time.
constexpr auto redraw_every = std::chrono::milliseconds(250);

}  // namespace

live_screen::live_screen(lang l, bool color, int in_fd, int out_fd)
    : language_(l), color_(color), in_fd_(in_fd), out_fd_(out_fd), screen_(in_fd, terminal::screen::full, out_fd) {}

void live_screen::update(bool last, const std::function<live_content(const live_size&)>& content) {
    const terminal::hold_stop whole;     // a Ctrl-Z now stops the work after this screen, not inside it
    if (terminal::given_back()) return;  // continued in the background: the terminal is the shell's
    char key = 0;
    bool turned = false;
    while (terminal::wait_byte(in_fd_, 0, key) == terminal::wait_result::byte) {
        if ((key == 'q' || key == 'Q') && stop_) stop_->ask();
        if (key == 'n' || key == ' ') page_ = (page_ + 1) % pages_, turned = true;
        if (key == 'b') page_ = (page_ + pages_ - 1) % pages_, turned = true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!terminal::resized() && !last && !turned && now - last_ < redraw_every) return;
    last_ = now;
    const std::size_t cols = terminal::width(out_fd_, 80), rows = terminal::height(out_fd_, 24);
    live_content c = content({cols, rows, page_});
    pages_ = std::max<std::size_t>(c.pages, 1);
    page_ %= pages_;
    // no scrolling here: the body is cut to the rows the frame gives it (laid out on 8 at the least)
    const std::size_t laid_out = std::max<std::size_t>(rows, 8);
    const std::size_t body_rows = laid_out - 1 - std::min(c.head.size(), laid_out - 4);
    if (c.body.size() > body_rows) c.body.resize(body_rows);
    const std::string stops = ui::say(language_, ui::live_keys);
    const std::string keys = pages_ > 1 ? ui::say(language_, ui::live_keys_paged) : stops;
    frame_parts parts{std::move(c.head), std::move(c.body), keys, stops, false, color_};
    frame_state st;
    (void)redraw_frame(out_fd_, lay_out_frame(parts, cols, rows, st), cols);  // a screen gone: the work goes on
}

}  // namespace qkv
