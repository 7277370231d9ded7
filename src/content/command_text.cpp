// Reads lessons/prose/NAME.toml once per process (on any thread), through the one TOML reader the lessons use.
#include "qkv/command_text.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/lesson.hpp"
#include "qkv/toml_file.hpp"

namespace qkv {

const bilingual& command_text(std::string_view name, std::string_view key) {
    static std::map<std::string, std::map<std::string, bilingual, std::less<>>, std::less<>> files;
    static std::mutex lock;  // a server runs lessons on many threads; a map's entries stay where they are
    const std::lock_guard<std::mutex> hold(lock);
    const std::string path = (std::filesystem::path(lessons_dir()) / "prose" / (std::string(name) + ".toml")).string();
    auto file = files.find(name);
    if (file == files.end()) {
        const toml_document doc = read_toml_file(path, "prose file");
        const toml_reader reader(doc);
        std::map<std::string, bilingual, std::less<>> texts;
        for (const auto& [k, node] : doc.table) {
            bilingual t = *reader.text(node, k.str());
            t.zh = escape_controls(t.zh, true), t.en = escape_controls(t.en, true);  // file content, shown as text
            texts[std::string(k.str())] = std::move(t);
        }
        file = files.emplace(std::string(name), std::move(texts)).first;
    }
    auto text = file->second.find(key);
    if (text == file->second.end())
        throw input_error(source_loc{path, 0, 0}, fmt::format("no text '{}'", key));
    return text->second;
}

}  // namespace qkv
