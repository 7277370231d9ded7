// The class's routes (serve.hpp lists them): who sends a request (a student's token, the
// teacher's), its JSON body read, and the class room's answer sent.
#pragma once

#include <functional>
#include <string>

#include <httplib.h>

#include "qkv/serve.hpp"
#include "class_room.hpp"

namespace qkv::serve {

// `join_link`: where students join, known once the server has its port.
void add_class_routes(httplib::Server& http, class_room& room, const options& o, std::function<std::string()> join_link);

}  // namespace qkv::serve
