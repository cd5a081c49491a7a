// What the attention drivers share (drivers/attention.cpp,
// drivers/paged_attention.cpp): one output element per element of q, its
// inputs packed as oracles/attention_layout.h says, given to the entry's
// Row oracle with its column as the position.
#pragma once

#include "drivers/driver.h"
#include "oracles/exact.h"

namespace kc::drivers {

class AttentionRows : public Driver {
 public:
  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, c.inputs.at(0).numel(), f);
  }
  void evaluate(const contract::KernelSpec& k, const oracle::Context& ctx, const Element& e,
                oracle::Exact& out) const override {
    k.oracle.as<oracle::Row>()(oracle::Row{ctx, e.args, {}, static_cast<std::size_t>(e.form)}, out);
  }
};

}  // namespace kc::drivers
