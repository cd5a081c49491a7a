// The worker's first step: load the library, call its
// kconform_plugin_register and read its entries without trusting a
// pointer (registration.cpp). Worker-side only.
#pragma once

#include <string>

#include "backends/plugin/protocol.h"
#include "kconform/plugin.h"

namespace kc::plugin {

// The Hello to send: the library's text and entries, or the reason it
// cannot be graded. `info` keeps the entries' entry points for the calls.
Hello load_and_register(const std::string& path, kc_plugin_info& info);

}  // namespace kc::plugin
