// HTML pages rendered from a results document (JSON), never from engine
// state, so that what a page says is what the JSON says. Self-contained:
// inline CSS and a small inline script, nothing loaded from anywhere. Every
// string from the document is escaped. The pages are in reports/site/.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kc::reports {

std::string escape_html(std::string_view s);
// A file-name-safe slug of a kernel name (hostile names cannot escape the folder).
std::string page_name(std::string_view kernel);

// Writes index.html and one page per kernel into `dir`, atomically: every
// page is rendered in memory, written to a sibling temporary folder, and
// that folder replaces `dir`; on failure `dir` is left as it was.
void write_site(const nlohmann::json& results, const std::filesystem::path& dir);

}  // namespace kc::reports
