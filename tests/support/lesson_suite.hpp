// What every lesson suite starts with, after BOOST_TEST_MODULE and Boost.Test: the lessons run as a
// test reads them (lessons.hpp), the plain reference kernels and the closeness checks they are held
// to, and the short names the suites write (matrix, value, kernels::, tt::).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "qkv/kernels.hpp"
#include "qkv/lesson.hpp"
#include "qkv/scenario.hpp"
#include "qkv/trace.hpp"
#include "support/close.hpp"
#include "support/lessons.hpp"

using qkv::matrix;
using qkv::value;
namespace kernels = qkv::kernels;
namespace tt = boost::test_tools;
using namespace qkv::test;
