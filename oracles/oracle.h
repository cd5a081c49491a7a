// The evaluations of one output element a contract entry names, bound to
// one typed input (oracles/input.h), light enough for contract files.
//
// Each kernel has up to three functions of the same input type `In`:
//   * its exact oracle, `void f(const In&, Exact&)`: the exact value of the
//     element and whatever its bound needs (oracles/exact.h);
//   * its native replay of the reference's steps, `double f(const In&)`:
//     the reference's bits (oracles/replay.h);
//   * its double fast path, `bool f(const In&, fast::Approx&)`: the exact
//     value with an error bound, where one exists (oracles/fast.h).
// An entry binds them together, `.math = {oracle::exp, replay::exp,
// fast::exp}`: `Math`'s constructor deduces `In` from the oracle and the
// other two must take the same `In`, so a replay of pairs attached to a
// unary oracle does not compile (as LLVM libc's MPFR wrapper checks an
// operation against its input and output types). What remains a run-time
// question, which input an entry's driver builds, the engine checks at
// start-up (drivers/driver.h expects_input), naming both types.
#pragma once

#include <string>
#include <type_traits>
#include <typeinfo>

#include "oracles/input.h"

namespace kc::oracle {

struct Exact;  // oracles/exact.h
namespace fast {
struct Approx;  // oracles/fast.h
}

template <ElementInput In>
using OracleFn = void (*)(const In&, Exact&);
template <ElementInput In>
using ReplayFn = double (*)(const In&);
template <ElementInput In>
using FastFn = bool (*)(const In&, fast::Approx&);

class Math {
 public:
  Math() = default;
  // Implicit on purpose: entries write `.math = {oracle::exp, ...}`. In is
  // deduced from the oracle alone; the replay and the fast path convert to
  // functions of that In or the entry does not compile.
  template <ElementInput In>
  Math(OracleFn<In> oracle, std::type_identity_t<ReplayFn<In>> replay = nullptr,  // NOLINT
       std::type_identity_t<FastFn<In>> fast = nullptr)
      : input_(&typeid(In)),
        oracle_(reinterpret_cast<Erased>(oracle)),
        replay_(reinterpret_cast<Erased>(replay)),
        fast_(reinterpret_cast<Erased>(fast)),
        call_oracle_([](Erased f, const Input& in, Exact& out) {
          reinterpret_cast<OracleFn<In>>(f)(std::get<In>(in), out);
        }),
        call_replay_([](Erased f, const Input& in) { return reinterpret_cast<ReplayFn<In>>(f)(std::get<In>(in)); }),
        call_fast_([](Erased f, const Input& in, fast::Approx& a) {
          return reinterpret_cast<FastFn<In>>(f)(std::get<In>(in), a);
        }) {}

  bool empty() const { return oracle_ == nullptr; }
  bool has_replay() const { return replay_ != nullptr; }
  bool has_fast() const { return fast_ != nullptr; }
  template <class In>
  bool takes() const {
    return input_ && *input_ == typeid(In);
  }
  // "Scalar", "Row", ...: the input type, for start-up errors.
  std::string input_name() const;

  // The three evaluations of an element whose input holds this In (the
  // start-up check makes sure; std::bad_variant_access otherwise).
  void exact(const Input& in, Exact& out) const { call_oracle_(oracle_, in, out); }
  double replay(const Input& in) const { return call_replay_(replay_, in); }
  bool fast(const Input& in, fast::Approx& a) const { return call_fast_(fast_, in, a); }
  // The functions themselves, for a loop that calls one of them per
  // element without the visit (the bulk lane's fast path and replay).
  template <class In>
  OracleFn<In> oracle_of() const {
    return takes<In>() ? reinterpret_cast<OracleFn<In>>(oracle_) : nullptr;
  }
  template <class In>
  ReplayFn<In> replay_of() const {
    return takes<In>() ? reinterpret_cast<ReplayFn<In>>(replay_) : nullptr;
  }
  template <class In>
  FastFn<In> fast_of() const {
    return takes<In>() ? reinterpret_cast<FastFn<In>>(fast_) : nullptr;
  }

 private:
  using Erased = void (*)();
  const std::type_info* input_ = nullptr;
  Erased oracle_ = nullptr, replay_ = nullptr, fast_ = nullptr;
  void (*call_oracle_)(Erased, const Input&, Exact&) = nullptr;
  double (*call_replay_)(Erased, const Input&) = nullptr;
  bool (*call_fast_)(Erased, const Input&, fast::Approx&) = nullptr;
};

// The demangled name of an input type without its namespace, "Scalar".
std::string type_name(const std::type_info& input);

}  // namespace kc::oracle

// Declares kernel NAME's three evaluations of the input IN (a type of
// oracles/input.h): `oracle::NAME`, `oracle::replay::NAME` and
// `oracle::fast::NAME`. Written at namespace scope by the files that need
// them and nowhere else: the family's oracle file, which defines them
// beside each other, and the contract file (or contract header,
// contracts/movers.h) whose entries bind them
// (`.math = {oracle::exp, oracle::replay::exp, oracle::fast::exp}`). A
// definition of another return type then does not compile, one of another
// input does not link, and no header lists the kernels. A kernel without
// a fast path leaves `fast::NAME` undefined and its entry does not name it.
#define KC_MATH_OF(IN, NAME)                   \
  namespace kc::oracle {                       \
  void NAME(const IN&, Exact&);                \
  namespace replay {                           \
  double NAME(const IN&);                      \
  }                                            \
  namespace fast {                             \
  bool NAME(const IN&, Approx&);               \
  }                                            \
  }
