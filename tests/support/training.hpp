// The training group of built-ins (train_transformer, …) in the table for a whole test module, as
// the command line adds it before a command runs lessons: a suite that runs lesson 18 or its exercises
// in-process includes this once.
#pragma once

#include <boost/test/unit_test.hpp>

#include "qkv/train_builtins.hpp"

struct qkv_training_builtins {
    qkv_training_builtins() { qkv::train::add_training_builtins(); }
};

BOOST_TEST_GLOBAL_FIXTURE(qkv_training_builtins);
