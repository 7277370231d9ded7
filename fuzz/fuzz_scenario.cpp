// libFuzzer target: a scenario file, loaded from a folder that also holds a good CSV matrix
// (x.csv) it may name, then turned into the workspace the lessons start from.
#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz_common.hpp"
#include "qkv/error.hpp"
#include "qkv/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool csv_written = [] {
        std::ofstream(qkv::fuzz::scratch_dir() + "/x.csv") << "1, 2, 3, 4\n5 6 7 8\n-1.5e-3,0,.5,9\n";
        return true;
    }();
    (void)csv_written;
    std::string path = qkv::fuzz::write_input("scenario.toml", data, size);
    try {
        qkv::scenario s = qkv::load_scenario(path);
        qkv::initial_workspace(s);
    } catch (const qkv::input_error&) {
    }
    return 0;
}
