// The join card (join_card.hpp): getifaddrs for the address, libqrencode for the code.
#include "join_card.hpp"

#include <memory>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <qrencode.h>

namespace qkv::cli {

std::string lan_address() {
    ifaddrs* all = nullptr;
    if (getifaddrs(&all) != 0) return "";
    std::string out;
    for (const ifaddrs* a = all; a && out.empty(); a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
        if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
        char text[INET_ADDRSTRLEN] = {};
        if (inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text)) out = text;
    }
    freeifaddrs(all);
    return out;
}

std::vector<std::string> qr_lines(const std::string& text) {
    const std::unique_ptr<QRcode, void (*)(QRcode*)> code(QRcode_encodeString(text.c_str(), 0, QR_ECLEVEL_M, QR_MODE_8, 1), QRcode_free);
    if (!code) return {};
    constexpr int quiet = 2;
    const int n = code->width, side = n + 2 * quiet;
    // dark: a module of the code (bit 0 of its byte); the quiet zone is light
    const auto dark = [&](int r, int c) {
        r -= quiet, c -= quiet;
        return r >= 0 && c >= 0 && r < n && c < n && (code->data[r * n + c] & 1);
    };
    std::vector<std::string> lines;
    for (int r = 0; r < side; r += 2) {
        std::string line;
        for (int c = 0; c < side; ++c) {
            const bool top = !dark(r, c), bottom = r + 1 < side && !dark(r + 1, c);  // light halves
            line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " ";
        }
        lines.push_back(line);
    }
    return lines;
}

}  // namespace qkv::cli
