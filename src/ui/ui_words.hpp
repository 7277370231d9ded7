// Every word the stepper, the presenter and the live screen say, Chinese and English side by side,
// and the one way they are said (say). Lesson text is never here, nor the renderers' words
// (render_text.hpp).
// Private to src/ui.
#pragma once

#include <string>
#include <string_view>

#include "qkv/i18n.hpp"

namespace qkv::ui {

struct phrase {
    std::string_view zh, en;
};

inline std::string say(lang l, const phrase& p) { return std::string(l == lang::zh ? p.zh : p.en); }

// --- the status line and the prompt -------------------------------------------------------------
inline constexpr phrase go_to_stage{"跳到阶段：", "go to stage: "};
inline constexpr phrase no_such_stage{"没有这个阶段", "no such stage"};
inline constexpr phrase stage{"阶段", "stage"};
inline constexpr phrase unknown_key{"未知按键；按 h 查看帮助", "unknown key; h for help"};
inline constexpr phrase end_of_lesson{"本课结束", "end of lesson"};
inline constexpr phrase end_leaves{"结束 · n 或 q 退出", "end · n or q leaves"};
inline constexpr phrase paused{"已暂停 · p 继续", "paused · p goes on"};
inline constexpr phrase auto_on{"自动", "auto"};
inline constexpr phrase p_pauses{"p 暂停", "p pauses"};
inline constexpr phrase formula_goes_on{"    ⋮ （公式续于下方）", "    ⋮ (the formula goes on below)"};

// --- the keys on the bottom line ----------------------------------------------------------------
inline constexpr phrase line_keys{"回车/n 下一步 · b 上一步 · g K 跳到第 K 阶段 · r 重画 · h 帮助 · q 退出",
                                  "Enter/n next · b back · g K go to stage K · r redraw · h help · q quit"};
inline constexpr phrase step_keys{"空格 下翻 · n 下一阶段 · b 上一阶段 · ↑↓ 滚动 · h 按键 · q 退出",
                                  "space more · n next · b back · ↑↓ scroll · h keys · q quit"};
inline constexpr phrase step_keys_short{"n 下一阶段 · b 上一阶段 · h 按键 · q 退出", "n next · b back · h keys · q quit"};
inline constexpr phrase present_keys{" n 下一步 · b 上一步 · g K 跳转 · ↑↓ 滚动 · t 讲解 · h 帮助 · q 退出",
                                     " n next · b back · g K stage · ↑↓ scroll · t text · h help · q quit"};
inline constexpr phrase present_keys_short{" n 下一步 · b 上一步 · q 退出", " n next · b back · q quit"};
inline constexpr phrase live_keys{"q 或 Ctrl-C 停止", "q or Ctrl-C stops"};

// --- the key list (h): the keys, then what they do ----------------------------------------------
inline constexpr phrase keys_title{"按键", "Keys"};
inline constexpr phrase key_space_enter{"空格  回车", "space  Enter"};
inline constexpr phrase does_page_or_next{"下翻一页；到底时进入下一阶段", "a page down; at the bottom, the next stage"};
inline constexpr phrase does_next{"下一阶段", "next stage"};
inline constexpr phrase key_back{"b  ←  退格", "b  ←  Backspace"};
inline constexpr phrase does_back{"上一阶段", "previous stage"};
inline constexpr phrase key_go{"g K 回车", "g K Enter"};
inline constexpr phrase does_go{"跳到第 K 阶段（Esc 取消）", "go to stage K (Esc cancels)"};
inline constexpr phrase does_scroll_line{"滚动一行", "scroll a line"};
inline constexpr phrase does_scroll_page{"滚动一页", "scroll a page"};
inline constexpr phrase does_top_bottom{"到本阶段开头 / 结尾", "top / bottom of the stage"};
inline constexpr phrase does_text{"显示 / 隐藏讲解", "explanation on / off"};
inline constexpr phrase key_pause_auto{"p（--auto 时）", "p (with --auto)"};
inline constexpr phrase does_pause{"暂停 / 继续", "pause / go on"};
inline constexpr phrase does_redraw{"重画屏幕", "draw the screen again"};
inline constexpr phrase does_help{"这份按键表（按任意键关闭）", "these keys (any key closes them)"};
inline constexpr phrase does_quit{"退出", "quit"};
inline constexpr phrase does_interrupt{"中断退出（状态 130）", "interrupt (exit status 130)"};
inline constexpr phrase does_suspend{"暂停到后台，fg 回来", "suspend; fg comes back"};

}  // namespace qkv::ui
