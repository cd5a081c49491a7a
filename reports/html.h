// HTML pages rendered from a results document (JSON), never from engine
// state, so that what a page says is what the JSON says. Self-contained:
// inline CSS, no scripts or fonts from anywhere. Every string from the
// document is escaped.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kc::reports {

std::string escape_html(std::string_view s);
// A file-name-safe slug of a kernel name (hostile names cannot escape the folder).
std::string page_name(std::string_view kernel);

// Writes index.html and one page per kernel into `dir`, atomically: the site
// is built in a sibling temporary folder and renamed over `dir`.
void write_site(const nlohmann::json& results, const std::filesystem::path& dir);

}  // namespace kc::reports
