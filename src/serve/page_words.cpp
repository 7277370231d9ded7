// The page's own words (buttons, labels, the keys' help) in the visitor's language, from the same
// catalogues as the terminal's: the page holds no sentence of its own.
#include "page_words.hpp"

#include <nlohmann/json.hpp>

#include "qkv/render_json.hpp"

namespace qkv::serve {

std::string page_words_json(lang l) {
    const std::pair<std::string_view, std::string_view> words[] = {
        {"lessons", translatable("Lessons")},
        {"stage", translatable("stage")},
        {"next", translatable("Next")},
        {"back", translatable("Back")},
        {"sentence", translatable("Your sentence (tokens separated by spaces)")},
        {"run", translatable("Run")},
        {"own", translatable("the lesson's own scenario")},
        {"scenario", translatable("Scenario")},
        {"present", translatable("Projector view")},
        {"train", translatable("Train a transformer")},
        {"start", translatable("Start")},
        {"stop", translatable("Stop")},
        {"steps", translatable("Steps")},
        {"seed", translatable("Seed")},
        {"sizes", translatable("With your sentence: the random weights' seed and sizes (blank: seed 1, d_model 4, 2 heads)")},
        {"head_count", translatable("Heads")},
        {"loss", translatable("loss")},
        {"heads", translatable("Every head's attention on the held-out sequence")},
        {"previous_token", translatable("previous-token")},
        {"induction", translatable("induction")},
        {"point", translatable("Point at a number, or tap it, to see how the engine computed it.")},
        {"keys", translatable("Keys: n, Enter, space or → next · b or ← back · g then a number: that stage · p projector · q lessons · ? these keys")},
        {"working", translatable("Computing…")},
        {"error", translatable("Refused")},
        {"save", translatable("The scenario of your sentence, to keep as a file (qkv lesson --data FILE):")},
        {"finished", translatable("finished")},
        {"drop", translatable("the drop")},
        {"report", translatable("The report qkv train prints for this run")},
    };
    nlohmann::ordered_json out;
    out["lang"] = std::string(lang_code(l));
    for (const auto& [key, english] : words) out[std::string(key)] = tr(l, english);
    return render_json(out, -1);
}

}  // namespace qkv::serve
