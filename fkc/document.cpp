#include "fkc/document.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/utf8.h"

namespace kc::fkc {

namespace {

struct Line {
  std::size_t begin, end;  // end: past the newline (or the text's end)
  std::string_view text;   // without the newline
};

std::vector<Line> split_lines(const std::string& s) {
  std::vector<Line> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t nl = s.find('\n', i);
    const std::size_t stop = nl == std::string::npos ? s.size() : nl;
    std::string_view t(s.data() + i, stop - i);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    out.push_back({i, nl == std::string::npos ? s.size() : nl + 1, t});
    i = stop + 1;
  }
  return out;
}

std::string_view trimmed(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  return t;
}

// CommonMark: a fence opens with ``` and an optional info string ("fkc",
// "rust") and closes with a bare ```.
bool is_fence(std::string_view t) { return trimmed(t).substr(0, 3) == "```"; }
bool closes(std::string_view t) { return trimmed(t) == "```"; }
bool opens_fkc(std::string_view t) { return trimmed(t) == "```fkc"; }

class BlockReader {
 public:
  BlockReader(const std::string& path, int first_line) : path_(path), first_line_(first_line) {}

  [[noreturn]] void bad(int block_line, const std::string& what) const {
    throw UsageError(fmt::format("{}:{}: {}", path_, first_line_ + block_line, what));
  }
  [[noreturn]] void bad(const YAML::Node& n, const std::string& what) const { bad(n.Mark().line, what); }

  // A scalar's text, which YAML escapes ("\\xA0") can make invalid UTF-8.
  std::string text(const YAML::Node& n, const char* what) const {
    if (invalid_utf8_at(n.Scalar())) bad(n, fmt::format("{} is not valid UTF-8 once its escapes are decoded", what));
    return n.Scalar();
  }

  std::optional<bool> flag(const YAML::Node& p, const char* key) const {
    const YAML::Node n = p[key];
    if (!n || n.IsNull()) return std::nullopt;
    bool b = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b))
      bad(n, fmt::format("precision.{} must be true, false or ~, not '{}'", key, n.IsScalar() ? n.Scalar() : "a collection"));
    return b;
  }

  std::optional<double> real(const YAML::Node& p, const char* key) const {
    const YAML::Node n = p[key];
    if (!n || n.IsNull()) return std::nullopt;
    double d = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, d) || !(d >= 0))
      bad(n, fmt::format("precision.{} must be a non-negative number or ~, not '{}'", key,
                         n.IsScalar() ? n.Scalar() : "a collection"));
    return d;
  }

  // An integer ulp distance: u32, as the framework's dispatcher reads it.
  std::optional<std::uint32_t> ulps(const YAML::Node& p) const {
    const YAML::Node n = p["max_ulp"];
    if (!n || n.IsNull()) return std::nullopt;
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    const bool digits = !s.empty() && s.size() <= 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoull(s) > std::numeric_limits<std::uint32_t>::max())
      bad(n, fmt::format("precision.max_ulp must be an integer ulp distance from 0 to 4294967295 or ~, not '{}'",
                         n.IsScalar() ? s : "a collection"));
    return static_cast<std::uint32_t>(std::stoull(s));
  }

 private:
  const std::string& path_;
  int first_line_;  // file line of the block's first YAML line, 1-based
};

// The kernel, its dtypes and its precision claims.
void read_block(const YAML::Node& y, const BlockReader& r, Block& b) {
  if (!y.IsMap()) r.bad(0, "the fkc block is not a YAML mapping");
  if (!y["kernel"] || !y["kernel"].IsScalar() || y["kernel"].Scalar().empty()) r.bad(0, "the fkc block names no kernel");
  b.kernel = r.text(y["kernel"], "the kernel name");
  // yaml-cpp: indexing a missing key's node throws, so each level is checked.
  const YAML::Node accept = y["accept"];
  const YAML::Node inputs = accept && accept.IsMap() ? accept["inputs"] : YAML::Node();
  if (inputs && inputs.IsSequence())
    for (const auto& in : inputs)
      if (in.IsMap() && in["dtypes"] && in["dtypes"].IsSequence())
        for (const auto& d : in["dtypes"]) {
          if (!d.IsScalar()) r.bad(d, "a dtype is not a name");
          std::string t = r.text(d, "a dtype");
          std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
          if (std::find(b.dtypes.begin(), b.dtypes.end(), t) == b.dtypes.end()) b.dtypes.push_back(t);
        }
  const YAML::Node p = y["precision"];
  if (!p || !p.IsMap()) r.bad(0, fmt::format("kernel {}: the fkc block has no precision: mapping", b.kernel));
  b.precision = {r.flag(p, "bit_stable_on_same_hardware"), r.ulps(p), r.real(p, "max_relative"),
                 r.real(p, "max_absolute"), r.flag(p, "audited"),
                 p["notes"] && p["notes"].IsScalar() ? r.text(p["notes"], "precision.notes") : ""};
}

}  // namespace

Document parse_document(std::string text, const std::string& path) {
  Document doc{path, std::move(text), {}};
  if (const auto bad = invalid_utf8_at(doc.text)) {
    const auto line = 1 + std::count(doc.text.begin(), doc.text.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
    throw UsageError(fmt::format("{}:{}: not UTF-8 (byte {} of the file is 0x{:02x})", path, line, *bad,
                                 static_cast<unsigned char>(doc.text[*bad])));
  }
  const auto lines = split_lines(doc.text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (is_fence(lines[i].text) && !opens_fkc(lines[i].text)) {
      // Another language's fence: skip to its end, so that an fkc example
      // inside it is not read as a contract.
      for (++i; i < lines.size() && !closes(lines[i].text); ++i) {
      }
      continue;
    }
    if (!opens_fkc(lines[i].text)) continue;
    const std::size_t open = i;
    std::size_t close = open + 1;
    while (close < lines.size() && !closes(lines[close].text)) ++close;
    if (close == lines.size())
      throw UsageError(fmt::format("{}:{}: the ```fkc block opened here is never closed", path, open + 1));
    Block b;
    b.line = static_cast<int>(open) + 1;
    BlockReader r(path, b.line + 1);
    const std::size_t body_begin = lines[open].end, body_end = lines[close].begin;
    YAML::Node y;
    // Block-relative lines (0-based) of the precision key and of the top-level key after it.
    int key_line = -1, next_key_line = -1;
    try {
      y = YAML::Load(doc.text.substr(body_begin, body_end - body_begin));
      read_block(y, r, b);
      for (const auto& kv : y)
        if (kv.first.IsScalar() && kv.first.Scalar() == "precision") {
          if (kv.first.Mark().column != 0) r.bad(kv.first, fmt::format("kernel {}: precision: is not a key at column 0", b.kernel));
          key_line = kv.first.Mark().line;
        }
      for (const auto& kv : y)
        if (kv.first.Mark().line > key_line && (next_key_line < 0 || kv.first.Mark().line < next_key_line))
          next_key_line = kv.first.Mark().line;
    } catch (const YAML::Exception& e) {
      r.bad(e.mark.is_null() ? 0 : e.mark.line, fmt::format("cannot read the fkc block: {}", e.msg));
    }
    // The precision block's bytes: from its key's line to the next
    // top-level key (or the fence), less the blank and column-0 comment
    // lines at its end, which belong to what follows. Found from YAML's
    // own marks, so a value continued on unindented lines stays whole.
    const std::size_t key = open + 1 + static_cast<std::size_t>(key_line);
    const std::size_t stop = next_key_line < 0 ? close : open + 1 + static_cast<std::size_t>(next_key_line);
    std::size_t last = stop - 1;
    while (last > key && (trimmed(lines[last].text).empty() || lines[last].text.front() == '#')) --last;
    b.precision_line = static_cast<int>(key) + 1;
    b.precision_begin = lines[key].begin;
    b.precision_end = lines[last].end;
    doc.blocks.push_back(std::move(b));
    i = close;
  }
  return doc;
}

Document load_document(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError(fmt::format("{}: cannot read the FKC file", path));
  std::ostringstream s;
  s << f.rdbuf();
  return parse_document(s.str(), path);
}

}  // namespace kc::fkc
