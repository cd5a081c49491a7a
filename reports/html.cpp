#include "reports/html.h"

#include <unistd.h>

#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "core/error.h"
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
      // A NUL or other C0 control would be rendered as U+FFFD or break tools reading the page.
      case '\0': out += "&#xFFFD;"; break;
      default: out += c;
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

namespace {

void write_file(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary);
  f << s;
  f.close();
  if (!f) throw UsageError("cannot write " + p.string());
}

}  // namespace

void write_folder_atomically(const fs::path& dir, const Files& files) {
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  fs::create_directories(parent);
  // The pid keeps two concurrent reports from building in the same folder.
  const std::string stem = dir.filename().string() + "." + std::to_string(::getpid());
  const fs::path tmp = parent / (stem + ".tmp-site");
  const fs::path old = parent / (stem + ".old-site");
  std::error_code ec;
  fs::remove_all(tmp, ec);
  try {
    fs::create_directories(tmp);
    for (const auto& [name, content] : files) write_file(tmp / name, content);
    fs::remove_all(old, ec);
    const bool had = fs::exists(dir);
    if (had) fs::rename(dir, old);
    try {
      fs::rename(tmp, dir);
    } catch (...) {
      if (had) fs::rename(old, dir, ec);  // put the good site back
      throw;
    }
    fs::remove_all(old, ec);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw UsageError(fmt::format("cannot write the site to {}: {}", dir.string(), e.what()));
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace site

}  // namespace kc::reports
