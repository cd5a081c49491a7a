// `--backend plugin:PATH`: a kernel library loaded from outside through the
// C ABI of include/kconform/plugin.h, run in a worker process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/backend.h"
#include "core/rules.h"

namespace kc::plugin {

// Loads the plug-in (in a worker) and checks what it registers: every
// kernel an inventory kernel, every dtype one its contract lists. Throws
// UsageError (exit 2) naming the library and the problem; each call runs
// in a worker process as `isolation` says.
std::unique_ptr<Backend> make_plugin_backend(const std::string& path, const IsolationOptions& isolation);

// The kc_status of include/kconform/plugin.h that names `rule` on its own
// ("KC_ERR_DIM_EMPTY"); nullopt where only kc_error.rule can name it.
std::optional<std::string_view> status_for_rule(Rule rule);

}  // namespace kc::plugin
