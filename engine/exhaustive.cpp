#include "engine/exhaustive.h"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "engine/check.h"
#include "core/error.h"
#include "engine/case_run.h"

namespace kc::engine {

std::string exhaustive_unsupported(const contract::KernelSpec& k, DType t) {
  if (!drivers::of(k).one_to_one() || k.inputs.size() != 1)
    return fmt::format("{} is not a one-input elementwise kernel (its driver is {}): only those have one input per "
                       "output to sweep",
                       k.name, k.driver);
  if (!k.accuracy_for(t)) return fmt::format("{} does not take {} (its contract lists {})", k.name, dtype_name(t), k.dtypes().to_string());
  if (!is_float(t)) return fmt::format("{} is not a float dtype", dtype_name(t));
  return "";
}

namespace {

// x[i] = the bit pattern a + i, written straight into the storage (a
// sweep writes 2^32 of them).
void fill_bit_patterns(Tensor& x, std::uint64_t a, std::uint64_t b) {
  std::byte* out = x.mutable_bytes();
  const std::size_t w = dtype_size(x.dtype());
  for (std::uint64_t v = a; v < b; ++v, out += w) {
    if (w == 4) {
      const auto u = static_cast<std::uint32_t>(v);
      std::memcpy(out, &u, 4);
    } else {
      std::memcpy(out, &v, w);  // little-endian host, as Tensor::set_bits
    }
  }
}

}  // namespace

KernelDTypeResult grade_range(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                              const Params& params, std::uint64_t lo, std::uint64_t hi,
                              const std::function<std::string(std::uint64_t, std::uint64_t)>& command) {
  const auto start = std::chrono::steady_clock::now();
  RunOptions o = opts;
  // Case i of the range covers [lo + i chunk, ...): its own replay command.
  o.case_command = [&](std::int64_t id) {
    const std::uint64_t a = lo + static_cast<std::uint64_t>(id) * kExhaustiveChunk;
    return command(a, std::min(hi, a + kExhaustiveChunk));
  };
  const Context c{k, t, backend, drivers::of(k), o};
  const CheckList checks = handed_checks(opts).for_run(k, t, std::nullopt, tier_covers(opts, k, t));
  KernelDTypeResult res = result_for(k, t, o);
  backend.fresh_process();  // (a plug-in's: each block in a fresh worker, as each result)
  // Case i: the patterns of chunk i, as the loop builds it (the determinism check rebuilds them).
  auto case_of = [&](std::int64_t i) {
    const std::uint64_t a = lo + static_cast<std::uint64_t>(i) * kExhaustiveChunk, b = std::min(hi, a + kExhaustiveChunk);
    gen::Case cs{{Tensor(t, {static_cast<std::int64_t>(b - a)})}, params};
    fill_bit_patterns(cs.inputs[0], a, b);
    return cs;
  };
  // The block's outputs, which the determinism check compares its re-executions with.
  GradedOutputs graded(std::int64_t{512} << 20);
  Tallies acc;
  // One figure per input (a block has 2^20), in storage kept from the
  // process's previous block: fresh pages would be faulted in and zeroed
  // for every block. The inputs arrive in order: the error profile is
  // summarized as they come, 256 slices to a block.
  static thread_local std::vector<double> kept_fracs;
  acc.fracs.values.swap(kept_fracs);
  acc.fracs.values.clear();
  acc.fracs.values.reserve(static_cast<std::size_t>(hi - lo));
  acc.error_profile.stream_in_slices(std::max<std::uint64_t>(1, (hi - lo + kProfileSlices - 1) / kProfileSlices));
  std::optional<gen::Case> first;
  std::int64_t id = 0;
  std::uint64_t digest = 14695981039346656037ull;  // FNV-1a 64 of each case's first and end patterns
  for (std::uint64_t a = lo; a < hi; a += kExhaustiveChunk, ++id) {
    if (o.stop && o.stop->load()) {
      res.interrupted = true;
      break;
    }
    const std::uint64_t b = std::min(hi, a + kExhaustiveChunk);
    gen::Case cs = case_of(id);
    // A case's inputs are the consecutive patterns [a, b): its two ends
    // identify them (hashing every input byte by byte cost 10 ns a point).
    for (const std::uint64_t v : {a, b})
      for (int byte = 0; byte < 8; ++byte, digest *= 1099511628211ull) digest ^= (v >> (8 * byte)) & 0xff;
    const std::int64_t before = acc.elements;
    acc.graded = &graded;
    try {
      const std::int64_t failed = grade_case(c, checks, acc, id, {}, cs, true);
      if (o.progress) {
        o.progress->elements += acc.elements - before;
        o.progress->failures += failed;
      }
    } catch (const Interrupted&) {  // a stop during a plug-in's call: the block is not graded
      res.interrupted = true;
      break;
    }
    acc.graded = nullptr;
    record_calls(c, acc, id, {}, &cs);
    if (!first) first = std::move(cs);
  }
  acc.graded = nullptr;
  res.cases = id;
  res.exhaustive = !res.interrupted;
  res.inputs_digest = digest;
  if (!res.interrupted) {
    const RunView run{c, first ? &*first : nullptr, 0, case_of};
    res.interrupted = !finish_checks(c, checks, run, acc, graded);
  }
  acc.finish(c, res);
  kept_fracs.swap(acc.fracs.values);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

}  // namespace kc::engine
