// Environment variables set (or unset) for one test and given back as they were at its end, so a
// test that runs commands in-process leaves the process as it found it.
#pragma once

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace qkv::test {

class environment {
public:
    using setting = std::pair<std::string, std::optional<std::string>>;  // nullopt: unset

    environment(std::initializer_list<setting> settings) {
        for (const auto& [name, value] : settings) {
            const char* old = std::getenv(name.c_str());
            saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
            put(name, value);
        }
    }
    ~environment() {
        for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) put(it->first, it->second);
    }
    environment(const environment&) = delete;
    environment& operator=(const environment&) = delete;

private:
    static void put(const std::string& name, const std::optional<std::string>& value) {
        if (value) ::setenv(name.c_str(), value->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
    std::vector<setting> saved_;
};

}  // namespace qkv::test
