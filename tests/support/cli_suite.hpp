// What the command-line suites start with, after BOOST_TEST_MODULE and Boost.Test: the real
// program run with arguments, input and environment (run_qkv.hpp), whole files in and out, and a
// scratch folder to write them in.
#pragma once

#include <filesystem>

#include <boost/test/unit_test.hpp>

#include "support/files.hpp"
#include "support/run_qkv.hpp"
#include "support/scratch.hpp"

using qkv::test::read_file;
using qkv::test::run_qkv;
using qkv::test::write_file;
namespace fs = std::filesystem;
