// The runner's side of one call's data (worker.cpp): the call as kconform
// sends it, and the outputs the kernel asks alloc_output for, each a
// guarded buffer (guarded.h). Worker-side only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/plugin/guarded.h"
#include "backends/plugin/protocol.h"
#include "kconform/plugin.h"

namespace kc::plugin {

// ---- one call's data

struct Call {
  std::string kernel;
  std::vector<kc_tensor> in;
  std::vector<std::vector<std::int64_t>> dims;
  std::vector<std::vector<std::byte>> bytes;
  std::vector<std::string> names;
  std::vector<std::vector<std::int64_t>> pdims;
  std::vector<kc_param> params;
  CallSetup setup;
};

// The next call from kconform; a malformed one (a count or rank past its
// limit) ends the runner with kExitProtocol.
Call read_call(Channel& ch);

// ---- outputs, as alloc_output hands them out

struct Output {
  kc_dtype dtype;
  std::vector<std::int64_t> dims;
  GuardedBuffer buf;
};

struct Outputs {
  const CallSetup* setup = nullptr;
  std::byte poison{0};
  std::vector<Output> list;
  std::int64_t bytes = 0;
  std::optional<Fault> bad_request;  // the first request that could not be served
};

// The kernel's kc_alloc_output (ctx an Outputs): a guarded buffer filled
// with the poison, or NULL with the request's fault kept (the first).
void* alloc_output(void* ctx, kc_dtype dtype, std::int32_t rank, const std::int64_t* dims);

}  // namespace kc::plugin
