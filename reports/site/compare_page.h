// `kconform report A.json B.json ... --compare`: one site comparing the
// backends of several runs (the reference, plug-ins grading real libraries)
// kernel x dtype by kernel x dtype, in the manner of the published libm
// accuracy tables: a table with one column group per backend (max
// fractional ulp, max distance, verdict, the verdict of the backend's own
// claim, a link to its kernel page), and per kernel a page overlaying the
// backends' error-versus-input profiles. Each backend's own site is kept
// under b<i>/, so every link lands on the page that holds the figure.
#pragma once

#include <vector>

#include "reports/site/site.h"

namespace kc::reports::site {

// docs: loaded, validated results documents, one per backend (two runs of
// the same backend label are told apart by their index).
Files render_comparison(const std::vector<json>& docs);

// The column label of a run: the plug-in's name and version, else its backend.
std::string backend_label(const json& doc);

}  // namespace kc::reports::site
