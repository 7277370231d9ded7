// qkv: self-attention, taught by running it. Everything happens in cli.cpp.
#include "qkv/cli.hpp"

int main(int argc, char** argv) { return qkv::cli::main(argc, argv); }
