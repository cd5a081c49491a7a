// One IEEE operation in T per element, in the reference's order
// (reference-semantics.md §2, §3); halves through f32 (§0.2).
#include "kernels/binary.h"

#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

template <class T>
T apply(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::add: return a + b;
    case BinaryOp::sub: return a - b;
    case BinaryOp::mul: return a * b;
    case BinaryOp::div: return a / b;
    case BinaryOp::maximum: return a > b ? a : b;  // NaN-asymmetric; ties return b
    case BinaryOp::minimum: return a < b ? a : b;
    case BinaryOp::rem: {  // a - floor(a/b) * b, each step rounded (not fmod)
      T q = a / b;
      T f = m_floor(q);
      T p = f * b;
      return a - p;
    }
    case BinaryOp::pow: return m_pow(a, b);
  }
  return a;
}

template <class T, class IndexA, class IndexB>
void fill(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& y, IndexA ia, IndexB ib) {
  auto as = a.as<T>();
  auto bs = b.as<T>();
  auto ys = y.as_mutable<T>();
  for (std::size_t o = 0; o < ys.size(); ++o)
    ys[o] = apply<T>(op, as[static_cast<std::size_t>(ia(o))], bs[static_cast<std::size_t>(ib(o))]);
}

template <class F>
Tensor dispatch(const Tensor& a, const Dims& out, F f) {
  Tensor y(a.dtype(), out);
  switch (a.dtype()) {
    case DType::f32: f.template operator()<float>(y); break;
    case DType::f64: f.template operator()<double>(y); break;
    case DType::bf16: f.template operator()<bf16>(y); break;
    case DType::f16: f.template operator()<f16>(y); break;
    default: break;
  }
  return y;
}

}  // namespace

std::optional<BinaryOp> parse_binary_op(std::string_view name) {
  if (name.starts_with("broadcast_")) name.remove_prefix(10);
  constexpr std::string_view names[] = {"add", "sub", "mul", "div", "maximum", "minimum", "rem", "pow"};
  for (std::size_t i = 0; i < std::size(names); ++i)
    if (names[i] == name) return static_cast<BinaryOp>(i);
  return std::nullopt;
}

Tensor binary_same_shape(BinaryOp op, const Tensor& a, const Tensor& b) {
  auto same = [](std::size_t o) { return o; };
  return dispatch(a, a.dims(), [&]<class T>(Tensor& y) { fill<T>(op, a, b, y, same, same); });
}

Tensor binary_broadcast(BinaryOp op, const Tensor& a, const Tensor& b) {
  const Dims out = *broadcast_shape(a.dims(), b.dims());
  const BroadcastIndex ia(a.dims(), out), ib(b.dims(), out);
  return dispatch(a, out, [&]<class T>(Tensor& y) {
    fill<T>(op, a, b, y, [&](std::size_t o) { return ia(static_cast<std::int64_t>(o)); },
            [&](std::size_t o) { return ib(static_cast<std::int64_t>(o)); });
  });
}

}  // namespace kc::kern
