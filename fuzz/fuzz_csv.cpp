// libFuzzer target: matrix text as numpy.savetxt writes it (the CSV half of the scenario loader,
// and what `qkv check ID --file` reads for a matrix answer).
#include <cstdint>

#include "fuzz_common.hpp"
#include "qkv/csv.hpp"
#include "qkv/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        qkv::matrix m = qkv::parse_csv_matrix(qkv::fuzz::text_of(data, size), "fuzz.csv");
        if (m.data.size() != m.rows * m.cols || m.rows == 0) __builtin_trap();
    } catch (const qkv::input_error&) {
    }
    return 0;
}
