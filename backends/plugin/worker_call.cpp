// The runner's reading of a call and its alloc_output (worker_call.h).
#include "backends/plugin/worker_call.h"

#include <unistd.h>

#include <fmt/format.h>

#include "core/dtype.h"

namespace kc::plugin {

namespace {

constexpr std::int32_t kMaxOperands = 64;
constexpr std::int32_t kMaxRank = 64;

[[noreturn]] void protocol_error() { ::_exit(kExitProtocol); }

// A count or a rank from kconform, refused past its limit (a malformed
// message must not size a vector).
std::int32_t read_bounded(Channel& ch, std::int32_t limit) {
  const auto v = ch.get<std::int32_t>();
  if (v < 0 || v > limit) protocol_error();
  return v;
}

}  // namespace

Call read_call(Channel& ch) {
  Call c;
  c.kernel = ch.get_string(kNameCap);
  const auto n = static_cast<std::size_t>(read_bounded(ch, kMaxOperands));
  c.in.resize(n);
  c.dims.resize(n);
  c.bytes.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    c.in[i].dtype = static_cast<kc_dtype>(ch.get<std::int32_t>());
    c.in[i].rank = read_bounded(ch, kMaxRank);
    for (std::int32_t d = 0; d < c.in[i].rank; ++d) c.dims[i].push_back(ch.get<std::int64_t>());
    c.bytes[i] = ch.get_blob(std::size_t{1} << 36);
  }
  const auto np = static_cast<std::size_t>(read_bounded(ch, kMaxOperands));
  c.names.resize(np);
  c.pdims.resize(np);
  c.params.resize(np);
  for (std::size_t i = 0; i < np; ++i) {
    c.names[i] = ch.get_string(kNameCap);
    c.params[i].kind = static_cast<kc_param_kind>(ch.get<std::int32_t>());
    c.params[i].integer = ch.get<std::int64_t>();
    c.params[i].real = ch.get<double>();
    c.params[i].rank = read_bounded(ch, kMaxRank);
    for (std::int32_t d = 0; d < c.params[i].rank; ++d) c.pdims[i].push_back(ch.get<std::int64_t>());
  }
  for (std::size_t i = 0; i < np; ++i) {
    c.params[i].name = c.names[i].c_str();
    c.params[i].dims = c.pdims[i].data();
  }
  c.setup = ch.get<CallSetup>();
  return c;
}

void* alloc_output(void* ctx, kc_dtype dtype, std::int32_t rank, const std::int64_t* dims) {
  auto* out = static_cast<Outputs*>(ctx);
  const auto index = static_cast<std::int32_t>(out->list.size());
  auto refuse = [&](std::string what) -> void* {
    if (!out->bad_request) out->bad_request = Fault{"output request", Role::output, index, std::move(what)};
    return nullptr;
  };
  if (dtype < KC_F32 || dtype > KC_U8) return refuse(fmt::format("the kernel asked alloc_output for dtype {}, which is not a kc_dtype", static_cast<int>(dtype)));
  if (rank < 0 || rank > kMaxRank || (rank > 0 && !dims))
    return refuse(fmt::format("the kernel asked alloc_output for rank {}{}", rank, rank > 0 && !dims ? " with dims NULL" : ""));
  const auto size = static_cast<std::int64_t>(dtype_size(static_cast<DType>(dtype)));
  std::int64_t n = 1;
  bool overflow = false;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < 0) return refuse(fmt::format("the kernel asked alloc_output for a negative dimension ({} at {})", dims[i], i));
    if (dims[i] > 0 && n > (INT64_MAX / size) / dims[i]) overflow = true;
    else n *= dims[i];
  }
  std::string shape = "[";
  for (int i = 0; i < rank; ++i) shape += fmt::format("{}{}", i ? ", " : "", dims[i]);
  shape += "]";
  if (overflow) return refuse(fmt::format("the kernel asked alloc_output for dims {}, whose byte count overflows 64 bits", shape));
  if (out->bytes + n * size > out->setup->max_output_bytes)
    return refuse(fmt::format("the kernel asked alloc_output for dims {} ({} elements, {} bytes), over the cap of {} bytes "
                              "for one call's outputs (--max-output-mb)",
                              shape, n, n * size, out->setup->max_output_bytes));
  const std::size_t align = out->setup->alignment > 0 ? static_cast<std::size_t>(out->setup->alignment) : static_cast<std::size_t>(size);
  std::string why;
  auto buf = GuardedBuffer::make(static_cast<std::size_t>(n * size), align, out->setup->placement, Role::output, index,
                                 out->poison, why);
  if (!buf) return refuse(fmt::format("alloc_output could not serve dims {} ({} bytes): {}", shape, n * size, why));
  out->bytes += n * size;
  out->list.push_back({dtype, std::vector<std::int64_t>(dims, dims + rank), std::move(*buf)});
  return out->list.back().buf.data();
}

}  // namespace kc::plugin
