// libFuzzer target: the tcp transport's parsers for everything a peer or stranger sends
// (frames back to back, the three handshake messages, the packed iface address). They
// must reject or accept any input without reading out of bounds or crashing.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "transports/tcp/tcp_netif.h"
#include "transports/tcp/tcp_wire.h"

using namespace torus::tcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  std::string why;
  // Frames as the receive path walks them: header and body, then skip the payload.
  size_t off = 0;
  while (off < in.size()) {
    ParsedFrame f;
    const ParseResult r = parse_frame(in.subspan(off), 32, &f, &why);
    if (r != ParseResult::Ok) break;
    volatile std::byte sink = f.body_len ? f.body[f.body_len - 1] : std::byte{0};
    (void)sink;
    const size_t whole = sizeof(FrameHeader) + f.body_len + f.payload_len;
    if (whole > in.size() - off) break;
    off += whole;
  }
  if (size >= sizeof(Challenge)) {
    Challenge c;
    (void)parse_challenge(in.first<sizeof(Challenge)>(), &c, &why);
  }
  if (size >= sizeof(Hello)) {
    Hello h;
    (void)parse_hello(in.first<sizeof(Hello)>(), &h, &why);
  }
  if (size >= sizeof(Welcome)) {
    Welcome w;
    (void)parse_welcome(in.first<sizeof(Welcome)>(), &w, &why);
  }
  IfaceAddress a;
  if (parse_address(in, &a, &why)) {
    IfaceAddress self;
    (void)choose_address(self, {}, a, &why);
    for (const NetAddr& n : a.listen) (void)n.to_string();
  }
  return 0;
}
