// The default contract profile of a backend (engine/conformance.h).
#include "engine/conformance.h"

namespace kc::engine {

Profile default_profile(std::string_view backend) {
  return backend == "reference" ? Profile::reference : Profile::conformance;
}

}  // namespace kc::engine
