// A typed reference to an oracle function, light enough for contract files.
//
// Every oracle has the form `void f(const In&, Exact&)`: `In` is the shape of
// what one output element depends on (one value, a pair, the folded terms of
// a cell, ...; oracles/exact.h), `Exact` what it returns (the exact value and
// whatever its bound needs). A contract entry stores the function as an
// OracleRef; its driver, which builds the `In`, asks for the signature it
// feeds with `as<In>()`. The engine checks every entry against its driver
// at start-up, so a binary oracle attached to a unary kernel is a clear
// error naming both signatures, not a wrong grade.
#pragma once

#include <string>
#include <typeinfo>

namespace kc::oracle {

struct Exact;  // oracles/exact.h

// The native replay of the reference's steps for one output element
// (oracles/replay.h): its value in the output dtype, as a double.
struct ReplayIn;
using ReplayFn = double (*)(const ReplayIn&);

class OracleRef {
 public:
  OracleRef() = default;
  template <class In>
  OracleRef(void (*f)(const In&, Exact&))  // NOLINT: implicit on purpose, entries write `.oracle = oracle::exp`
      : fn_(reinterpret_cast<void (*)()>(f)), input_(&typeid(In*)) {}

  bool empty() const { return fn_ == nullptr; }
  template <class In>
  bool takes() const {
    return input_ && *input_ == typeid(In*);
  }
  // The function, if it takes `In`; nullptr otherwise.
  template <class In>
  auto as() const -> void (*)(const In&, Exact&) {
    return takes<In>() ? reinterpret_cast<void (*)(const In&, Exact&)>(fn_) : nullptr;
  }
  // "kc::oracle::Pair" (demangled), for start-up errors.
  std::string input_name() const;

 private:
  void (*fn_)() = nullptr;
  const std::type_info* input_ = nullptr;  // typeid(In*): In may be incomplete here
};

// The demangled name of an input type, as input_name() prints it.
std::string type_name(const std::type_info& pointer_to_input);

}  // namespace kc::oracle
