// SVG figures drawn by the project from document data only. Readable in
// black and white: hatching and marker shapes carry the meaning, colour
// only repeats it; every axis has a label with its unit.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kc::reports::site {

// Histogram of fractional ulp errors: accuracy.histogram {edges, counts}.
// Bins that reach past `bound` are cross-hatched (a coarse bin may mix
// elements on both sides; the exact max is in the statistics). "" when there is nothing to draw.
std::string error_histogram(const nlohmann::json& histogram, std::optional<double> bound);

// Error versus input from error_profile {x_lo, x_hi, max_frac_ulp}: one marker
// per slice that graded something, slices in bit-pattern order. A dashed
// line marks `bound` when given. "" when no slice has a value.
std::string error_profile_plot(const nlohmann::json& profile, std::optional<double> bound, const std::string& bound_label,
                               const std::string& dtype);

bool has_profile_data(const nlohmann::json& profile);

}  // namespace kc::reports::site
