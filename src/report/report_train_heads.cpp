// A training run's heads as heat panels (report_train_heads.hpp).
#include "qkv/report_train_heads.hpp"

#include <fmt/format.h>

#include "qkv/heat_panels.hpp"
#include "qkv/tasks.hpp"

namespace qkv {

using namespace qkv::train;

std::vector<std::string> held_out_labels(const train_config& c, const batch& held) {
    std::vector<std::string> out;
    for (int t : held.tokens) out.push_back(token_label(t, c.size.vocab));
    return out;
}

std::string head_title(const train_config& c, const head_view& v) {
    if (rule_of(c.what).by_source) return fmt::format("{}.{} p {:.2f} s {:.2f}", v.layer, v.head, v.previous_token, v.source);
    return fmt::format("{}.{} p {:.2f} i {:.2f}", v.layer, v.head, v.previous_token, v.induction);
}

std::vector<std::string> head_panels(const train_config& c, const std::vector<head_view>& heads, const batch& held,
                                     const render_options& r, std::size_t max_rows) {
    std::vector<heat_panel> panels;
    for (const head_view& v : heads) panels.push_back({head_title(c, v), v.A});
    return heat_panel_lines(panels, held_out_labels(c, held), r, max_rows);
}

}  // namespace qkv
