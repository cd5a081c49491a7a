#include "cli/saved_case.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/arguments.h"
#include "cli/plan.h"
#include "core/error.h"

namespace kc::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// NumPy's name of each dtype's storage (little-endian); bf16 has none: its
// bit patterns as uint16.
std::string npy_descr(DType t) {
  switch (t) {
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::bf16: return "<u2";
    case DType::f16: return "<f2";
    case DType::u32: return "<u4";
    case DType::u8: return "|u1";
  }
  return "?";
}

// .npy format 1.0: magic, version, a header dict padded with spaces to a
// multiple of 64 bytes (newline last), then the data in C order.
void write_npy(const fs::path& p, const Tensor& x) {
  std::vector<std::string> dims;
  for (auto d : x.dims()) dims.push_back(std::to_string(d));
  std::string shape = "(" + fmt::format("{}", fmt::join(dims, ", ")) + (dims.size() == 1 ? ",)" : ")");
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", npy_descr(x.dtype()), shape);
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(p, std::ios::binary);
  const char magic[] = "\x93NUMPY\x01\x00";
  f.write(magic, 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const char le[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  f.write(le, 2);
  f << header;
  f.write(reinterpret_cast<const char*>(x.bytes()), static_cast<std::streamsize>(x.byte_size()));
  if (!f) throw UsageError(fmt::format("--save-case: cannot write {}", p.string()));
}

Tensor read_npy(const fs::path& p, DType t, const Dims& dims) {
  std::ifstream f(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto bad = [&](const std::string& why) { return UsageError(fmt::format("saved case {}: {}", p.string(), why)); };
  if (!f && !f.eof()) throw bad("cannot be read");
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw bad("not a .npy file");
  const std::size_t len = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  if (bytes[6] != 1 || 10 + len > bytes.size()) throw bad("not a version 1.0 .npy file");
  const std::string header = bytes.substr(10, len);
  if (header.find("'descr': '" + npy_descr(t) + "'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    throw bad(fmt::format("its dtype is not {} (as {}) in C order: {}", dtype_name(t), npy_descr(t), header));
  Tensor x(t, dims);
  if (bytes.size() - 10 - len != x.byte_size())
    throw bad(fmt::format("holds {} data bytes where shape {} of {} takes {}", bytes.size() - 10 - len, dims_to_string(dims),
                          dtype_name(t), x.byte_size()));
  std::memcpy(x.mutable_bytes(), bytes.data() + 10 + len, x.byte_size());
  return x;
}

json tensor_entry(const fs::path& dir, const std::string& file, const std::string& name, const Tensor& x) {
  write_npy(dir / file, x);
  return {{"name", name}, {"dtype", dtype_name(x.dtype())}, {"shape", x.dims()}, {"file", file},
          {"storage", x.dtype() == DType::bf16 ? "bf16 bit patterns as uint16" : npy_descr(x.dtype())}};
}

// What a backend returns for the case: its outputs' entries, or its error.
json outputs_of(const fs::path& dir, const std::string& prefix, const contract::KernelSpec& k, const Backend& b,
                const gen::Case& cs) {
  json out = json::array();
  try {
    const auto ys = b.run(k.name, cs.inputs, cs.params);
    for (std::size_t i = 0; i < ys.size(); ++i) {
      const std::string name = i < k.outputs.size() && !k.outputs[i].name.empty() ? std::string(k.outputs[i].name) : "y";
      out.push_back(tensor_entry(dir, fmt::format("{}-{}-{}.npy", prefix, i, name), name, ys[i]));
    }
    return out;
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

}  // namespace

void save_case(const fs::path& dir, const contract::KernelSpec& k, DType t, const Backend& backend,
               const engine::RunOptions& opts, const std::string& command) {
  const gen::Case cs = engine::case_by_id(k, t, backend, opts, *opts.only_case, opts.shrink_path);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(fmt::format("--save-case: cannot create {}: {}", dir.string(), ec.message()));
  json inputs = json::array();
  for (std::size_t i = 0; i < cs.inputs.size(); ++i) {
    const std::string name = i < k.inputs.size() ? std::string(k.inputs[i].name) : fmt::format("input{}", i);
    inputs.push_back(tensor_entry(dir, fmt::format("input-{}-{}.npy", i, name), name, cs.inputs[i]));
  }
  const auto reference = make_backend("reference");
  const json manifest{{"format", "kconform-case/1"},
                      {"kernel", k.name},
                      {"dtype", dtype_name(t)},
                      {"case", *opts.only_case},
                      {"shrink", opts.shrink_path},
                      {"params", cs.params.to_string()},
                      {"saved_by", command},
                      {"backend", opts.backend},
                      {"inputs", inputs},
                      {"outputs", outputs_of(dir, "output", k, backend, cs)},
                      {"reference_outputs", outputs_of(dir, "reference", k, *reference, cs)},
                      {"load", "kconform run --load-case " + dir.string() + " --backend " + opts.backend}};
  std::ofstream f(dir / "case.json");
  f << manifest.dump(1) << "\n";
  if (!f) throw UsageError(fmt::format("--save-case: cannot write {}", (dir / "case.json").string()));
}

LoadedCase load_case(const fs::path& dir) {
  const fs::path file = fs::is_directory(dir) ? dir / "case.json" : dir;
  const json m = read_json_file(file, "saved case (kconform run --save-case)");
  const auto bad = [&](const std::string& why) { return UsageError(fmt::format("saved case {}: {}", file.string(), why)); };
  if (!m.is_object() || m.value("format", "") != "kconform-case/1") throw bad("not a kconform-case/1 manifest");
  LoadedCase lc;
  lc.kernel = contract::find_kernel(m.value("kernel", ""));
  if (!lc.kernel) throw bad(fmt::format("unknown kernel '{}'", m.value("kernel", "")));
  const auto t = parse_dtype(m.value("dtype", ""));
  if (!t) throw bad(fmt::format("unknown dtype '{}'", m.value("dtype", "")));
  lc.dtype = *t;
  lc.cs.params = parse_params_for(*lc.kernel, m.value("params", ""));
  if (!m.contains("inputs") || !m["inputs"].is_array()) throw bad("no inputs");
  for (const auto& in : m["inputs"]) {
    const auto dt = in.is_object() && in.contains("dtype") && in["dtype"].is_string() ? parse_dtype(in["dtype"].get<std::string>()) : std::nullopt;
    if (!dt || !in.contains("shape") || !in["shape"].is_array() || !in.contains("file") || !in["file"].is_string())
      throw bad("an input lacks its dtype, shape or file");
    Dims dims;
    for (const auto& d : in["shape"]) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0) throw bad("a shape holds something other than dims >= 0");
      dims.push_back(d.get<std::int64_t>());
    }
    lc.cs.inputs.push_back(read_npy(file.parent_path() / in["file"].get<std::string>(), *dt, dims));
  }
  // An edited case must still be a valid call of the kernel: the
  // reference's preconditions say (a case every check can grade).
  try {
    make_backend("reference")->run(lc.kernel->name, lc.cs.inputs, lc.cs.params);
  } catch (const KernelError& e) {
    throw bad(fmt::format("not a valid call of {}: {}", lc.kernel->name, e.what()));
  }
  return lc;
}

}  // namespace kc::cli
