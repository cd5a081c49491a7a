// How a results document writes a double. JSON has no infinities or NaN:
// in a document on disk such a figure is null, and the object holding it
// lists it in its "nonfinite" member ({"max_frac_ulp": "inf"}; an array's
// element as "edges[12]"), so that every figure is a number or null and a
// reader that ignores the flags never takes a string for a number. In
// memory (number(), as_double) a non-finite figure is a marked string
// until encode_nonfinite writes the document; decode_nonfinite restores
// the marks when a document is read back. Also the few readers every
// consumer of a document (the merge, the pages, the FKC audit) reads its
// values with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/saturating.h"

namespace kc::reports {

nlohmann::json number(double v);
// A document number (a number, a non-finite figure as number() or an older
// document wrote it: "inf", "-inf", "NaN") as a double; nullopt for null
// or anything else.
std::optional<double> as_double(const nlohmann::json& v);
// A document as written to disk: every non-finite figure null, named in
// its object's "nonfinite" member. decode_nonfinite undoes it (a document
// without "nonfinite" members is left as it is).
void encode_nonfinite(nlohmann::json& doc);
void decode_nonfinite(nlohmann::json& doc);
// A field of an object, or null when `obj` is not an object or lacks it
// (nlohmann's const operator[] on a missing key is undefined behaviour).
const nlohmann::json& field(const nlohmann::json& obj, const char* key);
// The accuracy entry of a document kernel's contract for a dtype, or an
// empty object.
const nlohmann::json& contract_accuracy(const nlohmann::json& kernel, const std::string& dtype);

// A count or index read back from a document: an integer JSON number that
// fits std::int64_t. A float (1e300 would overflow the conversion), a string
// or an unsigned beyond INT64_MAX is not one; documents come from anywhere.
std::optional<std::int64_t> integer(const nlohmann::json& v);
inline std::int64_t integer_or(const nlohmann::json& v, std::int64_t fallback) { return integer(v).value_or(fallback); }

using kc::saturating_add;  // document counts are added with it

}  // namespace kc::reports
