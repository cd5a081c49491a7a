// A whole case on disk (`run --case N --save-case DIR`, read back by `run
// --load-case DIR`): every input, the parameters, the backend's outputs and
// the reference's, as NumPy .npy files (np.load reads them; bf16 as its
// uint16 bit patterns) beside a manifest, case.json. Format: README,
// "The whole failing case".
#pragma once

#include <filesystem>
#include <string>

#include "contracts/contract.h"
#include "core/backend.h"
#include "engine/conformance.h"
#include "generators/case.h"

namespace kc::cli {

// Writes case `opts.only_case` (after opts.shrink_path) of k x t to `dir`
// (created; an existing case.json there is replaced): its inputs and
// parameters, what `backend` returns for it and what the reference
// returns (or the error each raises), and `command`, the run that saved it.
void save_case(const std::filesystem::path& dir, const contract::KernelSpec& k, DType t, const Backend& backend,
               const engine::RunOptions& opts, const std::string& command);

struct LoadedCase {
  const contract::KernelSpec* kernel = nullptr;
  DType dtype = DType::f32;
  gen::Case cs;
};
// Reads a saved case (its inputs and parameters) back: UsageError naming
// the file and what is wrong with it.
LoadedCase load_case(const std::filesystem::path& dir);

}  // namespace kc::cli
