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

std::vector<std::string> head_panels(const train_config& c, const std::vector<head_view>& heads, const batch& held,
                                     const render_options& r) {
    std::vector<heat_panel> panels;
    for (const head_view& v : heads) {
        std::string title = fmt::format("{}.{} p {:.2f} i {:.2f}", v.layer, v.head, v.previous_token, v.induction);
        if (rule_of(c.what).by_source)
            title = fmt::format("{}.{} p {:.2f} s {:.2f}", v.layer, v.head, v.previous_token, v.source);
        panels.push_back({std::move(title), v.A});
    }
    return heat_panel_lines(panels, held_out_labels(c, held), r);
}

}  // namespace qkv
