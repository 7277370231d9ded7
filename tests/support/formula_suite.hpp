// What the suites of the formula language and its built-ins start with, after BOOST_TEST_MODULE
// and Boost.Test: the language, its built-ins and the plain kernels, an expression evaluated as a
// stage would (evaluate.hpp), and the closeness checks.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include <boost/test/unit_test.hpp>

#include "qkv/builtins.hpp"
#include "qkv/formula.hpp"
#include "qkv/kernels.hpp"
#include "support/close.hpp"
#include "support/evaluate.hpp"

using namespace qkv;

using qkv::test::check_close;
using qkv::test::contains;
using qkv::test::ev;
using qkv::test::eval_error;
using qkv::test::rel_diff;
