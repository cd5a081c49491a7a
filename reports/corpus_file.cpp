#include "reports/corpus_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "contracts/contract.h"
#include "core/error.h"
#include "core/params.h"

namespace kc::reports {

namespace {

constexpr const char* kFormat = "kconform-corpus/1";

std::string slug(const std::string& s) {
  std::string out;
  for (char ch : s) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-') ? ch : '-';
  return out.empty() ? "-" : out;
}

// "[2, 3]", "[]": dims of at most 8 entries, each 0 to 2^24 (a stored case is small).
std::optional<Dims> parse_dims(std::string text) {
  const auto b = text.find_first_not_of(' '), e = text.find_last_not_of(' ');
  if (b == std::string::npos) return std::nullopt;
  text = text.substr(b, e - b + 1);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  Dims d;
  std::istringstream in(text.substr(1, text.size() - 2));
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto pb = part.find_first_not_of(' '), pe = part.find_last_not_of(' ');
    if (pb == std::string::npos) return std::nullopt;
    std::int64_t v = -1;
    const auto r = std::from_chars(part.data() + pb, part.data() + pe + 1, v);
    if (r.ec != std::errc() || r.ptr != part.data() + pe + 1 || v < 0 || v > (1 << 24) || d.size() >= 8) return std::nullopt;
    d.push_back(v);
  }
  return d;
}

}  // namespace

std::string write_corpus_case(const CorpusCase& c) {
  const contract::KernelSpec* k = contract::find_kernel(c.kernel);
  std::string s = fmt::format("# kconform regression case: `kconform corpus replay` grades it again (README, "
                              "\"Regression corpus\")\nformat: {}\nkernel: {}\ndtype: {}\nbackend: {}\nprofile: {}\n"
                              "check: {}\nfailure: {}\nexpect: {}\nfound: {}\nparams: {}\n",
                              kFormat, c.kernel, dtype_name(c.dtype), c.backend, c.profile, c.check, c.failure, c.expect,
                              c.found, c.params);
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Tensor& t = c.inputs[i];
    const std::string name = k && i < k->inputs.size() ? std::string(k->inputs[i].name) : fmt::format("input{}", i);
    s += fmt::format("input {} {} {}\n", name, dtype_name(t.dtype()), dims_to_string(t.dims()));
    for (std::int64_t j = 0; j < t.numel(); ++j)
      s += (j % 8 == 0 ? "  " : " ") + hex_bits(t.dtype(), t.bits_at(j)) + (j % 8 == 7 || j + 1 == t.numel() ? "\n" : "");
  }
  return s;
}

namespace {

// Reads a corpus file a line at a time: the case so far, the line number
// its errors name, and the input whose bit patterns are still to come.
class CorpusReader {
 public:
  explicit CorpusReader(const std::string& file) : file_(file) {}

  // One line of the file, in order.
  void read_line(const std::string& line) {
    ++n_;
    if (line.empty() || line[0] == '#') return;
    if (line.size() >= 2 && line[0] == ' ') return read_values(line);  // values of the current input
    if (current_ && filled_ != current_->numel())
      throw fail(fmt::format("the previous input has {} of its {} values", filled_, current_->numel()));
    current_ = nullptr;
    if (line.rfind("input ", 0) == 0) return start_input(line);
    read_key(line);
  }

  // The case, once every line is read: whole and consistent with its kernel.
  CorpusCase finish() {
    if (current_ && filled_ != current_->numel())
      throw fail(fmt::format("the last input has {} of its {} values", filled_, current_->numel()));
    if (!format_seen_) throw fail(fmt::format("no `format: {}` line", kFormat));
    if (!k_) throw fail("no `kernel:` line");
    if (!k_->dtypes().contains(c_.dtype)) throw fail(fmt::format("{} does not take {}", k_->name, dtype_name(c_.dtype)));
    if (c_.inputs.size() != k_->inputs.size())
      throw fail(fmt::format("{} takes {} input(s); the file gives {}", k_->name, k_->inputs.size(), c_.inputs.size()));
    if (c_.check.empty()) throw fail("no `check:` line");
    return c_;
  }

 private:
  // "FILE:LINE: why", at the line being read.
  UsageError fail(const std::string& why) const { return UsageError(fmt::format("{}:{}: {}", file_, n_, why)); }

  // A line of bit patterns of the current input.
  void read_values(const std::string& line) {
    if (!current_) throw fail("bit patterns outside an `input` block");
    std::istringstream vs(line);
    std::string word;
    while (vs >> word) {
      if (filled_ >= current_->numel()) throw fail(fmt::format("more than the {} values its dims give", current_->numel()));
      std::uint64_t v = 0;
      const bool hex = word.size() > 2 && word[0] == '0' && word[1] == 'x';
      const auto r = hex ? std::from_chars(word.data() + 2, word.data() + word.size(), v, 16) : std::from_chars_result{};
      if (!hex || r.ec != std::errc() || r.ptr != word.data() + word.size() || word.size() - 2 > dtype_size(current_->dtype()) * 2)
        throw fail(fmt::format("'{}' is not a {} bit pattern (0x and {} hex digits)", word, dtype_name(current_->dtype()),
                               dtype_size(current_->dtype()) * 2));
      current_->set_bits(filled_++, v);
    }
  }

  // "input NAME DTYPE [DIMS]": the kernel's next operand, its values to follow.
  void start_input(const std::string& line) {
    if (!k_) throw fail("an input before `kernel:`");
    std::istringstream ls(line.substr(6));
    std::string name, dt, dims;
    ls >> name >> dt;
    std::getline(ls, dims);
    const std::size_t i = c_.inputs.size();
    if (i >= k_->inputs.size()) throw fail(fmt::format("{} has {} input(s); this is one more", k_->name, k_->inputs.size()));
    if (name != k_->inputs[i].name)
      throw fail(fmt::format("input {} of {} is '{}', not '{}'", i, k_->name, k_->inputs[i].name, name));
    const auto t = parse_dtype(dt);
    if (!t) throw fail(fmt::format("'{}' is not a dtype", dt));
    const auto d = parse_dims(dims);
    if (!d) throw fail(fmt::format("'{}' is not a shape such as [2, 3] or []", dims));
    double elements = 1;
    for (auto x : *d) elements *= static_cast<double>(x);
    if (elements > (1 << 24)) throw fail(fmt::format("{} has more than 2^24 elements: not a shrunk case", dims));
    c_.inputs.emplace_back(*t, *d);
    current_ = &c_.inputs.back();
    filled_ = 0;
  }

  // A "key: value" line (a key given once at most).
  void read_key(const std::string& line) {
    const auto colon = line.find(": ");
    const std::string key = line.substr(0, colon == std::string::npos ? line.find(':') : colon);
    if (colon == std::string::npos && line.back() != ':') throw fail(fmt::format("'{}' is neither `key: value` nor an input", line));
    const std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
    if (std::find(seen_.begin(), seen_.end(), key) != seen_.end()) throw fail(fmt::format("`{}` given twice", key));
    seen_.push_back(key);
    set_field(key, value);
  }

  // One field of the case from its key, the value checked where it has few forms.
  void set_field(const std::string& key, const std::string& value) {
    if (key == "format") {
      if (value != kFormat) throw fail(fmt::format("format '{}': this kconform reads {}", value, kFormat));
      format_seen_ = true;
    } else if (key == "kernel") {
      k_ = contract::find_kernel(value);
      if (!k_) throw fail(fmt::format("'{}' is not a kernel (`kconform list`)", value));
      c_.kernel = value;
    } else if (key == "dtype") {
      const auto t = parse_dtype(value);
      if (!t) throw fail(fmt::format("'{}' is not a dtype", value));
      c_.dtype = *t;
    } else if (key == "backend") {
      c_.backend = value;
    } else if (key == "profile") {
      if (value != "conformance" && value != "reference") throw fail("profile: conformance or reference");
      c_.profile = value;
    } else if (key == "check") {
      c_.check = value;
    } else if (key == "failure") {
      c_.failure = value;
    } else if (key == "expect") {
      if (value != "fail" && value != "pass") throw fail("expect: fail or pass");
      c_.expect = value;
    } else if (key == "found") {
      c_.found = value;
    } else if (key == "params") {
      try {
        Params::parse(value);
      } catch (const std::exception& e) {
        throw fail(fmt::format("params: {}", e.what()));
      }
      c_.params = value;
    } else {
      throw fail(fmt::format("unknown key `{}`", key));
    }
  }

  const std::string& file_;
  int n_ = 0;
  CorpusCase c_;
  std::vector<std::string> seen_;
  const contract::KernelSpec* k_ = nullptr;
  Tensor* current_ = nullptr;  // the operand being read: its values still to come
  std::int64_t filled_ = 0;
  bool format_seen_ = false;
};

}  // namespace

CorpusCase read_corpus_case(const std::string& text, const std::string& file) {
  CorpusReader reader(file);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) reader.read_line(line);
  return reader.finish();
}

std::string corpus_file_name(const CorpusCase& c) {
  return fmt::format("{}/{}/{}.{}.{}.case", slug(c.kernel), dtype_name(c.dtype), slug(c.backend), slug(c.check),
                     slug(c.failure.empty() ? "fails" : c.failure));
}

}  // namespace kc::reports
