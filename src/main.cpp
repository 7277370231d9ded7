// qkv: self-attention, taught by running it. The program is the command-line library's main().
#include "qkv/cli.hpp"

int main(int argc, char** argv) { return qkv::cli::main(argc, argv); }
