// The one entry point of the renderers: the format picks the renderer, and what a format adds
// around the lessons (the preface, the JSON array) is added here, once.
#include "qkv/render_format.hpp"

#include <array>

#include "qkv/render_html.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_markdown.hpp"
#include "qkv/render_text.hpp"
#include "qkv/scenario_preface.hpp"

namespace qkv {
namespace {

constexpr std::array<format_entry, 5> formats{{
    {format::text, "text"}, {format::markdown, "markdown"}, {format::json, "json"}, {format::html, "html"}, {format::csv, "csv"}}};

std::string render_json_all(const std::vector<trace>& traces) {
    if (traces.size() == 1) return render_json(traces.front()) + "\n";
    auto all = trace_json::array();
    for (const trace& t : traces) all.push_back(json_of(t));
    return render_json(all) + "\n";
}

// Text or markdown: the preface, then each lesson, a blank line between.
std::string one_after_another(const std::vector<trace>& traces, const render_options& o, bool markdown) {
    std::string out;
    if (!o.preface.empty()) out = markdown ? markdown_code(o.preface, "toml") + "\n" : scenario_preface(o.preface, o) + "\n";
    for (std::size_t i = 0; i < traces.size(); ++i) {
        if (i) out += "\n";
        out += markdown ? render_markdown(traces[i], o) : render_text(traces[i], o);
    }
    return out;
}

}  // namespace

std::span<const format_entry> format_table() { return formats; }

std::optional<format> parse_format(std::string_view name) {
    for (const format_entry& e : formats)
        if (e.name == name) return e.id;
    return std::nullopt;
}

std::string_view format_name(format f) {
    for (const format_entry& e : formats)
        if (e.id == f) return e.name;
    return "text";
}

std::string render(const std::vector<trace>& traces, format f, const render_options& o) {
    switch (f) {
        case format::json: return render_json_all(traces);
        case format::html: return render_html(traces, o);
        case format::markdown: return one_after_another(traces, o, true);
        case format::text:
        case format::csv: break;
    }
    return one_after_another(traces, o, false);
}

}  // namespace qkv
