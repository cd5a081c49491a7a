// SVG figures drawn by the project from document data only. Readable in
// black and white: hatching and marker shapes carry the meaning, colour
// only repeats it; every axis has a label with its unit.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kc::reports::site {

// Histogram of one error metric ({metric, edges, counts, failing}: the
// accuracy's histogram, distance_histogram or normalized_histogram). A bin
// holding failing elements is cross-hatched and says how many fail, wherever
// it lies; a bin past `bound` holding none is only outlined. "" when there
// is nothing to draw.
std::string error_histogram(const nlohmann::json& histogram, std::optional<double> bound);

// Error versus input from error_profile {x_lo, x_hi, <field>, failed}: one
// marker per slice that graded something, at the slice's largest value of
// `field` ("max_frac_ulp", "max_distance" or "max_normalized"); a slice
// holding a failing element is a filled triangle, whatever its value. A
// dashed line marks `bound` when given. "" when no slice has a value.
std::string error_profile_plot(const nlohmann::json& profile, const std::string& field, const std::string& metric,
                               std::optional<double> bound, const std::string& bound_label, const std::string& dtype);

// A number as an axis writes it: 3 significant digits, "NaN", "\u221e".
std::string short_num(double v);

bool has_profile_data(const nlohmann::json& profile, const std::string& field = "max_frac_ulp");

}  // namespace kc::reports::site
