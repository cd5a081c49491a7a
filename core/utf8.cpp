#include "core/utf8.h"

#include <fmt/format.h>

namespace kc {

RepairedText repair_utf8(std::string_view s, std::size_t cap) {
  RepairedText r;
  r.original_bytes = s.size();
  if (s.size() > cap) {
    s = s.substr(0, cap);
    r.cut = true;
  }
  r.text.reserve(s.size());
  while (!s.empty()) {
    const auto bad = invalid_utf8_at(s);
    const std::size_t good = bad ? *bad : s.size();
    r.text.append(s.substr(0, good));
    if (!bad) break;
    // A character the cap cut through is the cap's doing, not the text's:
    // a lead byte and only continuation bytes up to the end.
    bool cut_short = r.cut && s.size() - good < 4 && static_cast<unsigned char>(s[good]) >= 0xC2 &&
                     static_cast<unsigned char>(s[good]) <= 0xF4;
    for (std::size_t i = good + 1; cut_short && i < s.size(); ++i)
      cut_short = (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
    if (!cut_short) {
      r.text += "\xEF\xBF\xBD";  // U+FFFD
      r.replaced = true;
    }
    s.remove_prefix(cut_short ? s.size() : good + 1);
  }
  return r;
}

std::string RepairedText::note(std::string_view field) const {
  std::string n;
  if (replaced) n = fmt::format("{}: bytes that are not UTF-8 were replaced by U+FFFD", field);
  if (cut)
    n += fmt::format("{}{}: {} bytes long, cut to the first {}", n.empty() ? "" : "; ", n.empty() ? field : "",
                     original_bytes, text.size());
  return n;
}

}  // namespace kc
