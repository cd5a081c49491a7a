#include "reports/html.h"

#include <unistd.h>

#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "core/error.h"
#include "reports/output_folder.h"
#include "reports/site/site.h"

namespace kc::reports {

namespace fs = std::filesystem;
using nlohmann::json;

std::string escape_html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': case '\n': case '\r': out += c; break;
      default: {
        // C0 controls and DEL (an ESC would reach a terminal that cats the
        // page) are shown as their Unicode control pictures, U+2400 + c, U+2421.
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20) out += fmt::format("&#x{:04X};", 0x2400 + u);
        else if (u == 0x7F) out += "&#x2421;";
        else out += c;
      }
    }
  }
  return out;
}

std::string page_name(std::string_view kernel) {
  std::string s = "kernel-";
  for (char c : kernel) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    s += ok ? std::string(1, c) : fmt::format("%{:02x}", static_cast<unsigned char>(c));
  }
  // '%' is not safe in a file name referenced from HTML: replace it.
  for (char& c : s)
    if (c == '%') c = '.';
  // File names stay far below 255 bytes whatever the kernel name: a long
  // one keeps its first 80 characters and a hash of the whole name.
  if (s.size() > 100) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : kernel) h = (h ^ c) * 1099511628211ull;
    s = fmt::format("{}-{:016x}", s.substr(0, 80), h);
  }
  return s + ".html";
}

void write_site(const json& results, const fs::path& dir) {
  site::validate_document(results, "results");
  site::write_folder_atomically(dir, site::render_site(results, nullptr, nullptr));
}

namespace site {

Files render_site(const json& in, const json* baseline_in, Diff* diff_out) {
  const json doc = normalize(in);
  const json baseline_doc = baseline_in ? normalize(*baseline_in) : json();
  const json* baseline = baseline_in ? &baseline_doc : nullptr;
  Files files;
  files.emplace_back("index.html", index_page(doc, baseline != nullptr));
  for (const auto& k : doc["kernels"]) {
    const std::string name = page_name(k["name"].get<std::string>());
    for (const auto& [f, _] : files)
      // page_name is injective today; this keeps a later change to it from silently overwriting a page.
      if (f == name) throw UsageError(fmt::format("two kernels map to the same page '{}'", name));
    files.emplace_back(name, kernel_page(doc, k));
  }
  if (baseline) {
    Diff d = compare(*baseline, doc);
    files.emplace_back("diff.html", diff_page(*baseline, doc, d));
    if (diff_out) *diff_out = std::move(d);
  }
  return files;
}

void write_folder_atomically(const fs::path& dir, const Files& files) {
  OutputFolder out(dir, FolderKind::site);
  for (const auto& [name, content] : files) out.write(name, content);
  out.commit();
}

}  // namespace site

}  // namespace kc::reports
