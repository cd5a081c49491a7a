// Exec arms of the casts: each accepts exactly its source dtype; any other
// pair panics in the reference (`cast: unsupported dtype combination`, §17).
#include <deque>

#include <fmt/format.h>

#include "backends/reference/executor.h"
#include "kernels/cast.h"

namespace kc::ref {

void register_cast_arms(std::vector<ExecArm>& table) {
  for (const auto& c : kern::all_casts()) {
    static std::deque<std::string> names;  // stable storage for the op names (string_views point here)
    names.push_back(fmt::format("cast_{}_to_{}", dtype_name(c.src), dtype_name(c.dst)));
    table.push_back(ExecArm{.op = names.back(), .dtypes = {c.src}, .arity = 1, .params = {},
                            .eval = [dst = c.dst](std::span<const Tensor> in, const Params&) {
                              return std::vector<Tensor>{kern::cast(in[0], dst)};
                            }});
  }
}

}  // namespace kc::ref
