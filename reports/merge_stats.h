// The statistics of two runs of one kernel x dtype merged
// (reports/merge_stats.cpp): counts add, maxima are the worse,
// histograms add bin by bin, the bias test is recomputed over the pooled
// samples. Used by reports/merge.cpp.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kc::reports::merging {

using nlohmann::json;

double num(const json& v, double fallback = 0);
std::int64_t count(const json& obj, const char* key);
json larger(const json& a, const json& b);  // null when both are null
json pooled_mean(const json& a, std::int64_t na, const json& b, std::int64_t nb);
// Verdicts from best to worst; verdict_rank indexes this list.
extern const char* const kVerdictOrder[3];
int verdict_rank(const json& v);
void add_counts(json& into, const json& from);
json merged_accuracy(const json& a, const json& b, const std::string& where);
json merged_checks(const json& a, const json& b, const json& acc);

}  // namespace kc::reports::merging
