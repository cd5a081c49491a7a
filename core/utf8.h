// UTF-8 validity (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), as nlohmann::json demands of every string it writes: text
// from outside (arguments, FKC files) is checked where it enters, so that a
// bad byte is reported with its place instead of failing a write later.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kc {

// The offset of the first byte that does not begin a valid sequence.
inline std::optional<std::size_t> invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c == 0xED) n = 2, hi = 0x9F;  // not a surrogate
    else if (c >= 0xE1 && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;  // at most U+10FFFF
    else return i;
    if (i + static_cast<std::size_t>(n) >= s.size()) return i;  // cut short by the end
    for (int k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
    }
    i += static_cast<std::size_t>(n) + 1;
  }
  return std::nullopt;
}

// Text from a program kconform does not trust (a plug-in's names, messages
// and printed output), made fit to write: every byte that does not begin a
// valid sequence becomes U+FFFD, and text past `cap` bytes is cut at a
// character boundary. What was done is kept, so that a report can say so.
struct RepairedText {
  std::string text;
  bool replaced = false;           // some bytes were not UTF-8
  bool cut = false;                // the cap removed the rest
  std::size_t original_bytes = 0;  // before the cap
  // "name: invalid UTF-8 replaced; 2097152 bytes, cut to 256": "" when the text was fine.
  std::string note(std::string_view field) const;
};
RepairedText repair_utf8(std::string_view s, std::size_t cap = std::string::npos);

}  // namespace kc
