// The catalogues compiled into the program, read by Boost.Locale's GNU gettext reader: it needs no
// locale installed on the machine (no zh_CN.UTF-8), only the bytes, which its file callback serves
// from memory instead of the disk.
#include "qkv/catalogue.hpp"

#include <locale>
#include <map>
#include <string>
#include <vector>

#include <boost/locale/gnu_gettext.hpp>
#include <boost/locale/message.hpp>

namespace qkv {

namespace {

using facet = boost::locale::message_format<char>;

// The folder the reader is told to search: never opened, the callback answers for it.
constexpr std::string_view embedded_root = "/qkv-catalogues";

// A locale that owns the catalogue's reader (a facet is freed by the last locale holding it).
std::locale load(const detail::embedded_catalogue& c) {
    boost::locale::gnu_gettext::messages_info info;
    info.language = std::string(c.lang);
    info.encoding = "UTF-8";
    info.domains.emplace_back("qkv");
    info.paths.emplace_back(embedded_root);
    const std::string wanted = std::string(embedded_root) + "/" + std::string(c.lang) + "/LC_MESSAGES/qkv.mo";
    info.callback = [wanted, mo = c.mo](const std::string& file, const std::string&) {
        return file == wanted ? std::vector<char>(mo.begin(), mo.end()) : std::vector<char>{};
    };
    return std::locale(std::locale::classic(), boost::locale::gnu_gettext::create_messages_facet<char>(info));
}

// Every catalogue, read once, on first use (thread-safe: a function-local static).
const std::map<std::string, std::locale, std::less<>>& catalogues() {
    static const auto all = [] {
        std::map<std::string, std::locale, std::less<>> m;
        for (const detail::embedded_catalogue& c : detail::embedded_catalogues())
            if (!c.lang.empty()) m.emplace(std::string(c.lang), load(c));
        return m;
    }();
    return all;
}

}  // namespace

const char* catalogue_lookup(std::string_view code, std::string_view english) {
    const auto& all = catalogues();
    const auto it = all.find(code);
    if (it == all.end()) return nullptr;
    const std::string id(english);  // the reader wants a terminated string
    return std::use_facet<facet>(it->second).get(0, nullptr, id.c_str());
}

}  // namespace qkv
