// The options every grading command shares for a plug-in backend: how its
// kernels are run apart from kconform (core/backend.h IsolationOptions).
#pragma once

#include <CLI/CLI.hpp>

#include "core/backend.h"

namespace kc::cli {

void add_isolation_options(CLI::App& app, IsolationOptions& o);

// The environment variables recorded where set (IsolationOptions::
// environment): the libraries' own tuning and dispatch variables, which
// change a kernel's results (OPENBLAS_CORETYPE picks another kernel set).
inline constexpr const char* kRecordedByDefault =
    "OPENBLAS_*, GOTO_*, OMP_*, GOMP_*, KMP_*, MKL_*, DNNL_*, ONEDNN_*, BLIS_*, SLEEF_*, TORCH_*, ATEN_*, "
    "GLIBC_TUNABLES, LD_PRELOAD";
// Those and the names (or NAME* prefixes) in `extra`, sorted by name.
std::vector<std::pair<std::string, std::string>> recorded_environment(const std::vector<std::string>& extra);

// A CLI11 check that a real is a number (not NaN, CLI11's Range lets NaN
// through: every comparison with it is false) within [lo, hi].
CLI::Validator finite_in(double lo, double hi);

}  // namespace kc::cli
