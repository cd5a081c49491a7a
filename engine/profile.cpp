// The contract profiles' names (engine/conformance.h); in the grading
// library, whose tallies name the profile of each check.
#include "engine/conformance.h"

namespace kc::engine {

std::string_view profile_name(Profile p) { return p == Profile::conformance ? "conformance" : "reference"; }
std::optional<Profile> parse_profile(std::string_view name) {
  if (name == "conformance") return Profile::conformance;
  if (name == "reference") return Profile::reference;
  return std::nullopt;
}
Profile default_profile(std::string_view backend) {
  return backend == "reference" ? Profile::reference : Profile::conformance;
}

}  // namespace kc::engine
