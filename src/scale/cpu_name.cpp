#include "qkv/cpu_name.hpp"

#include <sstream>

#include "qkv/file_read.hpp"
#include "qkv/trim.hpp"

namespace qkv::bench {

std::string cpu_name() {
    std::string text;
    if (read_file_capped("/proc/cpuinfo", std::uint64_t{4} << 20, text)) return "";  // a few KiB per core
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::size_t colon = line.find(':');
        if (colon != std::string::npos && trim(std::string_view(line).substr(0, colon)) == "model name")
            return std::string(trim(std::string_view(line).substr(colon + 1)));
    }
    return "";
}

}  // namespace qkv::bench
