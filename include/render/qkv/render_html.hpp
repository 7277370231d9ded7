// An HTML handout of one or more traces: one self-contained page (inline CSS, nothing loaded from
// the network) with the formulas, the text, every value as a table, and the attention weights as
// coloured cells with a legend.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Text made safe for HTML element content and quoted attribute values: & < > " ' escaped, and
// control characters written out (\x1b, \u202e) as in the terminal.
std::string html_escape(std::string_view s);

// The whole page. Weights get a background colour per cell (dark purple 0 → yellow 1) and the
// value printed in it, so the page reads in black and white too. o.preface (plain text, e.g. the
// scenario made for the learner's own sentence) is shown first, as preformatted text.
std::string render_html(const std::vector<trace>& traces, const render_options& o);

// One stage of t as the page shows it: a <section> with its title, formula, text and values (what
// `qkv serve` sends a page, stage by stage). Every number's cell says where it is: the table's
// data-head, the cell's data-i and data-j, from 1; the figure's data-name; a sub-step's values sit
// in a <div class="steps" data-step="K">, K from 1.
std::string html_stage(const trace& t, const stage_trace& s, const render_options& o);

// The page's style sheet (inline in render_html's page), for a server's pages to share.
std::string_view html_style();

}  // namespace qkv
