#include "cli/shapes_option.h"

#include <fmt/format.h>

#include "core/error.h"
#include "drivers/driver.h"

namespace kc::cli {

std::int64_t problem_bytes(const gen::Problem& p) {
  std::int64_t elements = 0;
  for (std::size_t i = 0; i < p.dims.size(); ++i)
    if (p.given[i]) elements += checked_numel(p.dims[i]);
  return elements * 8 * 3;
}

std::shared_ptr<const gen::ShapeSelection> shapes_option(const std::string& value, std::int64_t max_case_mb) {
  auto s = std::make_shared<gen::ShapeSelection>(gen::shape_selection(value));
  for (const gen::Problem& p : s->problems) {
    const contract::KernelSpec& k = *contract::find_kernel(p.kernel);
    const std::string error = drivers::of(k).shaped_error(k, drivers::Shaped{p.dims, p.given, p.params});
    if (!error.empty()) throw UsageError(fmt::format("{}:{}: {}", p.file, p.line, error));
    const std::int64_t bytes = problem_bytes(p), mb = (bytes + (1 << 20) - 1) >> 20;
    if (mb > max_case_mb)
      throw UsageError(fmt::format("{}:{}: {} would take about {} MiB (its operands' elements at 8 bytes, three times: "
                                   "inputs, the worker's copy, outputs), above --max-case-mb {}: not attempted",
                                   p.file, p.line, p.kernel, mb, max_case_mb));
  }
  return s;
}

}  // namespace kc::cli
