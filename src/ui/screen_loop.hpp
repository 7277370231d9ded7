// The loop both full-screen modes run (--step on a terminal, --present): a key at a time (from a
// pipe, a line at a time), the cursor moved through the stages and the scroll through a stage,
// the status line kept, the whole screen drawn again after each. A mode says only what fills the
// screen and what its own keys do. Private to src/ui.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "qkv/navigation.hpp"
#include "qkv/render.hpp"
#include "qkv/screen_frame.hpp"
#include "qkv/terminal.hpp"
#include "qkv/trace.hpp"

namespace qkv::ui {

class screen_loop {
public:
    screen_loop(const screen_loop&) = delete;
    screen_loop& operator=(const screen_loop&) = delete;
    virtual ~screen_loop() = default;

    // 0 on q, at the end of input or after the last stage; 130 on Ctrl-C as a key; 141 when the
    // output has gone.
    int run();

protected:
    // The terminal on in_fd is in raw mode from here to the end of the object (with escapes, the
    // screen on out_fd taken over too), and given back on every way out (terminal.hpp).
    screen_loop(const std::vector<trace>& traces, const render_options& o, key_set keys, int in_fd, int out_fd,
                bool escapes, std::size_t start);

    // The screen for the cursor's stage: exactly `rows` lines of at most `cols` columns. It sets
    // st_.status from status() once it knows what the status depends on.
    virtual std::vector<std::string> frame(std::size_t cols, std::size_t rows) = 0;
    // The status line when no prompt and no note claim it.
    virtual std::string idle_status() const = 0;
    // A key only this mode knows: whether the stepping goes on, or nullopt when it is not one.
    virtual std::optional<bool> own_key(const command&, bool /*by_clock*/) { return std::nullopt; }
    // How long to wait for a key before the mode's clock says next by itself; -1 without a clock.
    virtual int timeout_ms() const { return -1; }
    // The cursor went to another stage (its scroll at the top, help closed).
    virtual void moved() {}

    // next, back, g K; false when the stepping is over.
    bool move(const command& c);
    // The prompt after g, else a note ("no such stage"), else the mode's idle status.
    std::string status() const;

    const std::vector<trace>& traces_;
    const render_options o_;
    stage_cursor at_;
    stage_moves moves_{at_};
    frame_state st_;

private:
    terminal::wait_result next_command(command& c);
    terminal::wait_result read_number(command& c);
    bool handle(const command& c, bool by_clock);
    bool draw();

    key_set keys_;
    int in_, out_;
    bool escapes_;  // the terminal takes cursor and screen escapes
    terminal::raw_mode raw_;
    std::string line_, prompt_, note_;
};

}  // namespace qkv::ui
