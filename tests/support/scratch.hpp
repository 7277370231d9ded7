// A scratch folder for one test: made fresh under the temporary folder (mkdtemp, so two suites
// running at once never share one), removed with everything in it at the end. Tests write only
// here, never beside the machine's own files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace qkv::test {

struct scratch_dir {
    std::filesystem::path path;

    explicit scratch_dir(std::string_view purpose = "scratch") {
        std::string tmpl = (std::filesystem::temp_directory_path() / ("qkv-" + std::string(purpose) + "-XXXXXX")).string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a scratch folder under " + tmpl);
        path = tmpl;
    }
    ~scratch_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;

    std::filesystem::path operator/(const std::filesystem::path& p) const { return path / p; }
};

}  // namespace qkv::test
