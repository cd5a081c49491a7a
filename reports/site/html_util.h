// Small HTML helpers shared by the pages: every value from a document goes
// through one of these, so escaping is decided in one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "reports/json_number.h"

namespace kc::reports::site {

using nlohmann::json;

// (the document readers, reports/json_number.h)
using reports::as_double;
using reports::field;

// Display form of a value, escaped: floats to 6 significant digits,
// integers in full, null as "n/a".
std::string show(const json& v);
// The exact value for sorting and checking (shortest round-trip form),
// escaped for an attribute; "" for null.
std::string exact(const json& v);
// A <td> whose text is show(v) and whose data-v is exact(v).
std::string num_td(const json& v, std::string_view cls = "");
// Escaped text of a string field; "" when absent or null.
std::string str(const json& obj, const char* key);
// An object's fields as a two-column table (a list shown as lines), escaped once.
std::string fields_table(const json& obj);

// An identifier safe in id="" and href="#" (letters, digits, '-', '_').
std::string slug(std::string_view s);

std::string verdict_badge(const std::string& verdict);

// The page frame: inline style and script, no external resources.
std::string page(std::string_view title, std::string_view body);

using reports::contract_accuracy;  // (reports/json_number.h)

// The trivial-case rule, with the reason when it applies ("" otherwise).
std::string untrustworthy_reason(const json& result);
extern const char* const kTrustRule;

}  // namespace kc::reports::site
