// The saved model: what it holds reads back to the same floats and settings, its layout is the one
// README.md documents (held here to the bytes), and every damaged or foreign file is refused in one
// line that names it, never half-read.
#define BOOST_TEST_MODULE train_model_file
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>

#include "qkv/error.hpp"
#include "qkv/model_file.hpp"

using namespace qkv::train;

namespace {

train_config small() {
    train_config c;
    c.size = {8, 6, 4, 2, 1};
    c.steps = 3, c.seed = 5, c.adam.lr = 0.002f;
    resolve_segments(c);
    check_config(c);
    return c;
}

std::string refusal(const std::string& bytes) {
    try {
        read_model(bytes, "m.qkvm");
    } catch (const qkv::input_error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_model_reads_back_to_the_same_floats_and_settings) {
    const train_config c = small();
    parameters w(c.size);
    initialise(w, 1, 0.5f, 0.5f, 5);
    const std::string bytes = model_bytes(c, w, 7);
    const loaded_model m = read_model(bytes, "m.qkvm");
    BOOST_TEST((m.weights.data() == w.data()));
    BOOST_TEST(m.steps_done == 7u);
    BOOST_TEST(m.config.adam.lr == 0.002f);
    BOOST_TEST(m.config.seed == 5u);
    BOOST_TEST(m.config.size.layers == 1u);
    BOOST_TEST(config_json(m.config) == config_json(c));
}

BOOST_AUTO_TEST_CASE(the_layout_is_the_documented_one) {
    const train_config c = small();
    parameters w(c.size);
    for (std::size_t i = 0; i < w.data().size(); ++i) w.data()[i] = float(i);
    const std::string bytes = model_bytes(c, w, 0);
    BOOST_TEST(bytes.rfind("qkv-model 1\n{\"config\":{\"task\":\"induction\",\"vocab\":8,", 0) == 0u);
    BOOST_TEST(bytes.find("\"lr\":0.002,") != std::string::npos);  // the float as written, not 0.0020000000949949026
    BOOST_TEST(bytes.find("{\"name\":\"layer1.W_O\",\"shape\":[4,4],\"offset\":104}") != std::string::npos);  // 32 + 24 + 3·16
    // then V·C + T·C + 4·C² + C·V = 32 + 24 + 64 + 32 = 152 little-endian floats, in table order
    const std::size_t at = bytes.find('\n', bytes.find('\n') + 1) + 1;
    BOOST_TEST_REQUIRE(bytes.size() - at == 152u * 4);
    float f = 0;
    std::memcpy(&f, bytes.data() + at + 4 * 104, 4);
    BOOST_TEST(f == 104.0f);
}

BOOST_AUTO_TEST_CASE(damaged_and_foreign_files_are_refused_in_one_line) {
    const train_config c = small();
    parameters w(c.size);
    const std::string good = model_bytes(c, w, 0);
    const std::size_t second = good.find('\n') + 1, weights = good.find('\n', second) + 1;
    BOOST_TEST(refusal("PK\x03\x04 a zip") .find("m.qkvm: not a qkv model") == 0u);
    BOOST_TEST(refusal("qkv-model 2\n{}\n").find("another version (\"qkv-model 2\"); this qkv reads version 1") != std::string::npos);
    BOOST_TEST(refusal(good.substr(0, weights + 10)).find("bytes of weights where the table needs 608") != std::string::npos);
    BOOST_TEST(refusal(good + "xxxx").find("cut off or padded") != std::string::npos);
    BOOST_TEST(refusal("qkv-model 1\n{\"config\": 3}\n").find("not the JSON qkv writes") != std::string::npos);
    std::string other_heads = good;
    other_heads.replace(other_heads.find("\"heads\":2"), 9, "\"heads\":3");
    BOOST_TEST(refusal(other_heads).find("does not hold together: heads (3) must divide d_model (4)") != std::string::npos);
    std::string renamed = good;
    renamed.replace(renamed.find("layer1.W_Q"), 10, "layer1.W_X");
    BOOST_TEST(refusal(renamed).find("tensor table does not match") != std::string::npos);
    std::string nan = good;
    const float bad = NAN;
    std::memcpy(nan.data() + weights + 4 * 33, &bad, 4);  // P[1, 2]: E takes the first 32
    BOOST_TEST(refusal(nan).find("P[1, 2] is not a finite number") != std::string::npos, refusal(nan));
    BOOST_TEST(refusal(good) == "accepted");
}
