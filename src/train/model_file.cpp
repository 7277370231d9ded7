// Writing and reading the saved model: a version line, a JSON line, then the raw weights.
#include "qkv/model_file.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/error.hpp"
#include "qkv/file_check.hpp"
#include "qkv/matrix.hpp"
#include "qkv/tasks.hpp"

namespace qkv::train {

static_assert(std::endian::native == std::endian::little, "the model file's floats are little-endian, as this machine's");

namespace {

// float as the number type: a setting reads back to the very float it was (0.002, not 0.0020000000949949026)
using json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

constexpr std::string_view magic = "qkv-model";

json config_object(const train_config& c) {
    const model_size& s = c.size;
    return {{"task", std::string(task_name(c.what))}, {"vocab", s.vocab}, {"seq", s.seq}, {"d_model", s.d_model},
            {"heads", s.heads}, {"layers", s.layers}, {"batch", c.batch}, {"steps", c.steps},
            {"segment_min", c.segment_min}, {"segment_max", c.segment_max}, {"init_embedding", c.init_embedding},
            {"init_position", c.init_position}, {"init_gain", c.init_gain}, {"lr", c.adam.lr},
            {"beta1", c.adam.beta1}, {"beta2", c.adam.beta2}, {"eps", c.adam.eps}, {"warmup", c.adam.warmup},
            {"clip", c.adam.clip}, {"seed", c.seed}, {"threads", c.threads}};
}

[[noreturn]] void bad(const std::string& name, const std::string& what) {
    throw input_error(source_loc{name, 0, 0}, what);
}

// The configuration back from its JSON; a missing or mistyped field names itself.
train_config config_from(const json& j, const std::string& name) {
    train_config c;
    auto size = [&](const char* key, std::size_t& out) {
        if (!j.contains(key) || !j[key].is_number_unsigned()) bad(name, fmt::format("the config has no whole number \"{}\"", key));
        out = j[key].get<std::size_t>();
    };
    auto real = [&](const char* key, float& out) {
        if (!j.contains(key) || !j[key].is_number()) bad(name, fmt::format("the config has no number \"{}\"", key));
        out = j[key].get<float>();
    };
    if (!j.contains("task") || !j["task"].is_string() || !parse_task(j["task"].get<std::string>(), c.what))
        bad(name, fmt::format("the config names no task qkv knows ({})", task_list(", ", ", ")));
    size("vocab", c.size.vocab), size("seq", c.size.seq), size("d_model", c.size.d_model);
    size("heads", c.size.heads), size("layers", c.size.layers), size("batch", c.batch), size("steps", c.steps);
    size("segment_min", c.segment_min), size("segment_max", c.segment_max), size("warmup", c.adam.warmup);
    real("init_embedding", c.init_embedding), real("init_position", c.init_position), real("init_gain", c.init_gain);
    real("lr", c.adam.lr), real("beta1", c.adam.beta1), real("beta2", c.adam.beta2), real("eps", c.adam.eps);
    real("clip", c.adam.clip);
    std::size_t seed = 0, threads = 0;
    size("seed", seed), size("threads", threads);
    c.seed = seed, c.threads = static_cast<int>(std::min<std::size_t>(threads, 64));
    return c;
}

}  // namespace

std::string config_json(const train_config& c) { return config_object(c).dump(); }

std::string model_bytes(const train_config& c, const parameters& w, std::size_t steps_done) {
    json tensors = json::array();
    for (const tensor_spec& t : w.table())
        tensors.push_back({{"name", t.full_name()}, {"shape", {t.rows, t.cols}}, {"offset", t.offset}});
    const json head = {{"config", config_object(c)}, {"steps_done", steps_done}, {"tensors", tensors}};
    std::string out = fmt::format("{} {}\n{}\n", magic, model_file_version, head.dump());
    const std::size_t at = out.size();
    out.resize(at + w.data().size() * sizeof(float));
    std::memcpy(out.data() + at, w.data().data(), w.data().size() * sizeof(float));
    return out;
}

namespace {

// The description line's most: its config and a table of 3 + 4 · layers tensors are some 5 KiB.
constexpr std::size_t max_header_bytes = std::size_t{64} << 10;

// A model file's numbers as its JSON types them: a table entry that is not an object, a name that
// is not a string, are "not the JSON qkv writes", never nlohmann's own words without the file.
bool same_tensor(const json& t, const tensor_spec& spec) {
    if (!t.is_object()) return false;
    const auto name = t.find("name"), offset = t.find("offset"), shape = t.find("shape");
    return name != t.end() && name->is_string() && name->get<std::string>() == spec.full_name() && offset != t.end() &&
           offset->is_number_unsigned() && offset->get<std::size_t>() == spec.offset && shape != t.end() &&
           *shape == json{spec.rows, spec.cols};
}

}  // namespace

loaded_model read_model(std::string_view bytes, const std::string& name) {
    const std::size_t line1 = bytes.find('\n');
    const std::string_view first = bytes.substr(0, line1);
    if (line1 == std::string_view::npos || !first.starts_with(magic))
        bad(name, "not a qkv model (it does not start with \"qkv-model\"); qkv train --save writes one");
    if (first != fmt::format("{} {}", magic, model_file_version))
        bad(name, fmt::format("a qkv model of another version (\"{}\"); this qkv reads version {}", first, model_file_version));
    // the description is a few KiB (67 tensors at 16 layers); checked before it is parsed, since a
    // line of 30 MB of '[' took 2.2 GiB to parse, and 100 MB ran out of memory naming no file
    const std::size_t line2 = bytes.find('\n', line1 + 1);
    if ((line2 == std::string_view::npos ? bytes.size() : line2) - line1 - 1 > max_header_bytes)
        bad(name, fmt::format("the model's description line (line 2) is longer than any qkv writes (at most {} KiB)",
                              max_header_bytes >> 10));
    if (line2 == std::string_view::npos) bad(name, "the model's description line is cut off");
    const json head = json::parse(bytes.substr(line1 + 1, line2 - line1 - 1), nullptr, false);
    if (head.is_discarded() || !head.is_object() || !head.contains("config") || !head.contains("steps_done") ||
        !head["steps_done"].is_number_unsigned())
        bad(name, "the model's description line (line 2) is not the JSON qkv writes");
    loaded_model m{config_from(head["config"], name), {}, head["steps_done"].get<std::size_t>()};
    // 2^64 − 5 steps done and --steps 10 wrapped to a run of no steps; no run reaches 2^53
    if (m.steps_done > max_steps_done)
        bad(name, fmt::format("steps_done {} is more than any run takes (at most 2^53)", m.steps_done));
    try {
        check_config(m.config);
    } catch (const input_error& e) {
        bad(name, fmt::format("its config does not hold together: {}", e.message()));
    }
    m.weights = parameters(m.config.size);
    const json& tensors = head.contains("tensors") ? head["tensors"] : json();
    const auto& table = m.weights.table();
    bool same = tensors.is_array() && tensors.size() == table.size();
    for (std::size_t i = 0; same && i < table.size(); ++i) same = same_tensor(tensors[i], table[i]);
    if (!same) bad(name, "its tensor table does not match its config (E, P, each layer's W_Q, W_K, W_V, W_O, U)");
    const std::size_t want = m.weights.data().size() * sizeof(float), have = bytes.size() - line2 - 1;
    if (have != want) bad(name, fmt::format("{} bytes of weights where the table needs {}: the file is cut off or padded", have, want));
    std::memcpy(m.weights.data().data(), bytes.data() + line2 + 1, want);
    for (const tensor_spec& t : table)
        for (std::size_t i = 0; i < t.size(); ++i)
            if (!std::isfinite(m.weights.data()[t.offset + i]))
                bad(name, fmt::format("{}[{}, {}] is not a finite number", t.full_name(), i / t.cols + 1, i % t.cols + 1));
    return m;
}

namespace {

// A model file is at most its weights (max_cells floats, the largest model check_config lets a
// step hold) and a header; a bigger file is not one, and /dev/zero would be read for ever.
constexpr std::uintmax_t max_model_bytes = max_cells * sizeof(float) + (std::uintmax_t{1} << 20);

std::string read_whole(const std::string& path) {
    if (auto no = unreadable_file(path)) throw input_error(source_loc{path, 0, 0}, said("cannot read the model file: {}", *no));
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw input_error(source_loc{path, 0, 0}, said("cannot read the model file"));
    if (size > max_model_bytes)
        throw input_error(source_loc{path, 0, 0}, said("cannot read the model file: {} bytes is more than any model holds (at most {} MiB)", size,
                                                             max_model_bytes >> 20));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(source_loc{path, 0, 0}, said("cannot read the model file"));
    std::string bytes(size, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    if (in.gcount() != static_cast<std::streamsize>(size)) throw input_error(source_loc{path, 0, 0}, said("cannot read the model file"));
    return bytes;
}

}  // namespace

loaded_model read_model_file(const std::string& path) { return read_model(read_whole(path), path); }

}  // namespace qkv::train
