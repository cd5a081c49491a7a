// The options every grading command shares for a plug-in backend: how its
// kernels are run apart from kconform (core/backend.h IsolationOptions).
#pragma once

#include <CLI/CLI.hpp>

#include "core/backend.h"

namespace kc::cli {

void add_isolation_options(CLI::App& app, IsolationOptions& o);

// A CLI11 check that a real is a number (not NaN, CLI11's Range lets NaN
// through: every comparison with it is false) within [lo, hi].
CLI::Validator finite_in(double lo, double hi);

}  // namespace kc::cli
