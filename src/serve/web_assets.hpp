// The page's files (web/), built into the program by web/embed.py: a request names one of these
// paths or gets a 404; no request path reaches the file system.
#pragma once

#include <span>
#include <string_view>

namespace qkv::serve {

struct web_asset {
    std::string_view path;  // "/assets/app.js"
    std::string_view type;  // its Content-Type
    std::string_view body;
};

std::span<const web_asset> web_assets();

}  // namespace qkv::serve
