// Every word the stepper, the presenter and the live screen say, as messages of the catalogues
// (po/LANG.po), and the one way they are said (say). Lesson text is never here, nor the renderers' words
// (render_text.hpp).
// Private to src/ui.
#pragma once

#include <string>
#include <string_view>

#include "qkv/i18n.hpp"

namespace qkv::ui {

// A message, by its English; say looks it up in the language's catalogue.
using phrase = std::string_view;

inline std::string say(lang l, phrase p) { return std::string(tr(l, p)); }

// --- the status line and the prompt -------------------------------------------------------------
inline constexpr phrase go_to_stage = translatable("go to stage: ");
inline constexpr phrase no_such_stage = translatable("no such stage");
inline constexpr phrase stage = translatable("stage");
inline constexpr phrase unknown_key = translatable("unknown key; h for help");
inline constexpr phrase end_of_lesson = translatable("end of lesson");
inline constexpr phrase end_leaves = translatable("end · n or q leaves");
inline constexpr phrase paused = translatable("paused · p goes on");
inline constexpr phrase auto_on = translatable("auto");
inline constexpr phrase p_pauses = translatable("p pauses");
inline constexpr phrase formula_goes_on = translatable("    ⋮ (the formula goes on below)");

// --- the keys on the bottom line ----------------------------------------------------------------
inline constexpr phrase line_keys = translatable("Enter/n next · b back · g K go to stage K · r redraw · h help · q quit");
inline constexpr phrase step_keys = translatable("space more · n next · b back · ↑↓ scroll · h keys · q quit");
inline constexpr phrase step_keys_short = translatable("n next · b back · h keys · q quit");
inline constexpr phrase present_keys = translatable(" n next · b back · g K stage · ↑↓ scroll · t text · h help · q quit");
inline constexpr phrase present_keys_short = translatable(" n next · b back · q quit");
inline constexpr phrase live_keys = translatable("q or Ctrl-C stops");
inline constexpr phrase live_keys_paged = translatable("n or space, b: the other heads · q or Ctrl-C stops");

// --- the key list (h): the keys, then what they do ----------------------------------------------
inline constexpr phrase keys_title = translatable("Keys");
inline constexpr phrase key_space_enter = translatable("space  Enter");
inline constexpr phrase does_page_or_next = translatable("a page down; at the bottom, the next stage");
inline constexpr phrase does_next = translatable("next stage");
inline constexpr phrase key_back = translatable("b  ←  Backspace");
inline constexpr phrase does_back = translatable("previous stage");
inline constexpr phrase key_go = translatable("g K Enter");
inline constexpr phrase does_go = translatable("go to stage K (Esc cancels)");
inline constexpr phrase does_scroll_line = translatable("scroll a line");
inline constexpr phrase does_scroll_page = translatable("scroll a page");
inline constexpr phrase does_top_bottom = translatable("top / bottom of the stage");
inline constexpr phrase does_text = translatable("explanation on / off");
inline constexpr phrase key_pause_auto = translatable("p (with --auto)");
inline constexpr phrase does_pause = translatable("pause / go on");
inline constexpr phrase does_redraw = translatable("draw the screen again");
inline constexpr phrase does_help = translatable("these keys (any key closes them)");
inline constexpr phrase does_quit = translatable("quit");
inline constexpr phrase does_interrupt = translatable("interrupt (exit status 130)");
inline constexpr phrase does_suspend = translatable("suspend; fg comes back");

}  // namespace qkv::ui
