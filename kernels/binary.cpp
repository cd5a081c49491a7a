// Binary elementwise kernels of the reference (ops.rs:277-336, 1771-1843)
// and their NumPy-broadcasting forms (ops.rs:2094-2196), with their exec
// arms. One IEEE operation in T per element, in the reference's order
// (reference-semantics.md §2, §3); halves through f32 (§0.2).
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

enum class BinaryOp : std::uint8_t { add, sub, mul, div, maximum, minimum, rem, pow };

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

// "add", ..., "broadcast_add" -> add
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

}  // namespace

// Exec arms: `binary!` takes two tensors of one float dtype
// (reference-semantics.md §19). Same-shape ops need equal dims
// (assert_same_shape); the broadcast ops need NumPy-compatible shapes.
void register_binary(Arms& arms) {
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "minimum", "rem", "pow"}) {
    const BinaryOp op = *parse_binary_op(name);
    arms.push_back(Arm{
        .op = name, .dtypes = kFloatSet, .arity = 2, .params = {}, .eval =
            [op, name](std::span<const Tensor> in, const Params&) {
              if (in[0].dims() != in[1].dims())
                throw KernelError(name, "b", Rule::shape_mismatch,
                                  fmt::format("shape mismatch: lhs={}, rhs={}", dims_to_string(in[0].dims()),
                                              dims_to_string(in[1].dims())));
              return std::vector<Tensor>{binary_same_shape(op, in[0], in[1])};
            },
        .operands = {"a", "b"}});
  }
  for (const char* name : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div"}) {
    const BinaryOp op = *parse_binary_op(name);
    arms.push_back(Arm{
        .op = name, .dtypes = kFloatSet, .arity = 2, .params = {}, .eval =
            [op, name](std::span<const Tensor> in, const Params&) {
              std::string why;
              if (!broadcast_shape(in[0].dims(), in[1].dims(), &why))
                throw KernelError(name, "b", Rule::broadcast_incompatible, why);
              return std::vector<Tensor>{binary_broadcast(op, in[0], in[1])};
            },
        .operands = {"a", "b"}});
  }
}

}  // namespace kc::kern
