// A results document's result read back into the engine's types: the
// inverse of result_json (reports/results_json.h), so that the merges of
// runs (campaign batches, exhaustive blocks, shards, `report`) combine
// typed results, as the run itself tallies them, rather than JSON.
// result_json(read_result(j)) == j for every result a run writes
// (tests/results_reader_test.cpp holds it to that over a whole run).
// Documents come from anywhere: a missing field or one of the wrong type
// is a UsageError naming the result and the field, never undefined
// behaviour.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/results.h"

namespace kc::reports {

// `where` names the result in errors ("kernel 'exp' dtype f32 of run 2").
engine::KernelDTypeResult read_result(const nlohmann::json& result, const std::string& kernel,
                                      const std::string& family, const std::string& where);

}  // namespace kc::reports
