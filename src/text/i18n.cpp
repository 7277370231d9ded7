// The language choice and the interface words. Lesson text is never here: only the handful of
// words the renderers and commands put around it (the stepper's and presenter's are the ui's own,
// src/ui/ui_words.hpp).
#include "qkv/i18n.hpp"

#include <cstdlib>
#include <map>

namespace qkv {

std::string_view lang_code(lang l) { return l == lang::zh ? "zh" : "en"; }

std::optional<lang> parse_lang(std::string_view s) {
    if (s.substr(0, 2) == "zh") return lang::zh;
    if (s.substr(0, 2) == "en") return lang::en;
    return std::nullopt;
}

lang default_lang() {
    if (const char* q = std::getenv("QKV_LANG"); q && *q) {
        if (auto l = parse_lang(q)) return *l;
    }
    // POSIX order of precedence: the first of these that is set and non-empty decides.
    for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
        const char* v = std::getenv(var);
        if (v && *v) return std::string_view(v).substr(0, 2) == "zh" ? lang::zh : lang::en;
    }
    return lang::en;
}

std::string_view tr(lang l, std::string_view key) {
    if (l == lang::en) return key;
    // English phrase -> Chinese. Keys are the English text so that code reads naturally.
    static const std::map<std::string_view, std::string_view> zh = {
        {"rows", "行"},
        {"columns", "列"},
        {"row sums", "行和"},
        {"tokens", "词元"},
        {"queries", "查询"},
        {"keys", "键"},
        {"features", "特征"},
        {"heads", "头"},
        {"samples", "样本"},
        {"head", "头"},
        {"devices", "设备"},
        {"device", "设备"},
        {"sample", "样本"},
        {"input", "输入"},
        {"output", "输出"},
        {"Lesson {}", "第 {} 课"},
        {"scenario", "场景"},
        {"stages", "阶段数"},
        {"weights", "权重"},
        {"heatmap", "热力图"},
        {"legend", "图例"},
        {"number", "编号"},
        {"title", "标题"},
        {"formula", "公式"},
        {"step", "步骤"},
    };
    auto it = zh.find(key);
    return it == zh.end() ? key : it->second;
}

}  // namespace qkv
