// Backend selection: the reference port, or the reference with one mutant.
#include <fmt/format.h>

#include "backends/mutants/mutants.h"
#include "backends/plugin/plugin_backend.h"
#include "backends/reference/executor.h"
#include "core/backend.h"
#include "core/error.h"

namespace kc {

namespace {

std::optional<DTypeSet> reference_supports(std::string_view kernel) {
  if (const kern::Arm* arm = ref::find_arm(kernel)) return arm->dtypes;
  return std::nullopt;
}

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> inputs,
                          const Params& params) const override {
    return ref::execute(kernel, inputs, params);
  }
  std::optional<DTypeSet> supported(std::string_view kernel) const override { return reference_supports(kernel); }
};

class MutantBackend final : public Backend {
 public:
  explicit MutantBackend(const mutants::Mutant& m) : m_(m) {}
  std::string name() const override { return fmt::format("mutant:{}", m_.name); }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> inputs,
                          const Params& params) const override {
    if (m_.breaks(kernel)) return m_.run(kernel, inputs, params);
    return ref::execute(kernel, inputs, params);
  }
  std::optional<DTypeSet> supported(std::string_view kernel) const override { return reference_supports(kernel); }

 private:
  const mutants::Mutant& m_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(std::string_view spec, const IsolationOptions& isolation) {
  if (spec == "reference") return std::make_unique<ReferenceBackend>();
  if (spec.starts_with("plugin:")) {
    if (spec.size() == 7) throw UsageError("--backend plugin:PATH needs the path of a shared library");
    return plugin::make_plugin_backend(std::string(spec.substr(7)), isolation);
  }
  if (spec.starts_with("mutant:")) {
    if (const mutants::Mutant* m = mutants::find(spec.substr(7))) return std::make_unique<MutantBackend>(*m);
  }
  throw UsageError(fmt::format("unknown backend '{}' (try 'reference', plugin:PATH or one of `kconform list --backends`)",
                               spec));
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names{"reference"};
  for (const auto& m : mutants::all()) names.push_back(fmt::format("mutant:{}", m.name));
  return names;
}

}  // namespace kc
