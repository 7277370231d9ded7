// What the teacher's terminal shows of a class: the address the room joins at (this machine's
// address on the network, when the server listens on every network) and the join link as a QR
// code drawn in text. Private to src/cli.
#pragma once

#include <string>
#include <vector>

namespace qkv::cli {

// The first IPv4 address of an interface that is up and is not the loopback (the one a laptop in
// the same room reaches), or "" when there is none.
std::string lan_address();

// `text` as a QR code (libqrencode, error correction M), two rows of modules a line: a light module
// is a block, a dark one a blank, as `qrencode -t UTF8` draws it for a dark terminal, inside a quiet
// zone of two modules. Empty when the text is too long for a QR code.
std::vector<std::string> qr_lines(const std::string& text);

}  // namespace qkv::cli
