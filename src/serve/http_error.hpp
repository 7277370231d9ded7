// What a request asked that the server will not do: its HTTP status (4xx) and one line saying
// why, sent as {"error": "…"}. Handlers throw it; the server turns it into the response.
#pragma once

#include <string>

namespace qkv::serve {

struct http_error {
    int status = 400;
    std::string message;
};

}  // namespace qkv::serve
