// The tensor model of the reference backend: a contiguous row-major buffer
// plus a shape, with no strides and no offset (inventory, "crate-wide layout
// invariant"). Storage is shared, immutable once built: reshape and the
// pure-padding broadcast return a new Tensor over the same storage, as the
// reference's `from_arc` does, and `shares_storage` lets a check observe that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace kc {

using Dims = std::vector<std::int64_t>;

std::string dims_to_string(const Dims& d);       // "[2, 3]"
std::int64_t checked_numel(const Dims& d);       // -1 if a dim is negative or it overflows

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor. Throws std::invalid_argument on a negative dim.
  Tensor(DType dtype, Dims dims);
  // Adopt raw bytes WITHOUT checking that they match the shape: backends see
  // tensors from outside (a later plug-in interface) and must validate them;
  // the bad-input generators build such tensors on purpose.
  static Tensor from_bytes_unchecked(DType dtype, Dims dims, std::vector<std::byte> bytes);

  DType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t numel() const;            // product of dims (checked_numel)
  std::size_t byte_size() const;         // bytes actually held
  bool consistent() const;               // dims valid and byte_size == numel * dtype size

  const std::byte* bytes() const { return storage_ ? storage_->data() : nullptr; }
  std::byte* mutable_bytes() { return storage_ ? storage_->data() : nullptr; }  // only fresh tensors are written

  template <class T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T*>(bytes()), byte_size() / sizeof(T)};
  }
  template <class T>
  std::span<T> as_mutable() {
    return {reinterpret_cast<T*>(mutable_bytes()), byte_size() / sizeof(T)};
  }

  // Element i as its raw bit pattern (zero-extended) and as an exact double.
  // Inline: the grading reads every element through it.
  std::uint64_t bits_at(std::int64_t i) const { return load_bits(bytes(), dtype_size(dtype_), i); }
  double value_at(std::int64_t i) const {
    if (dtype_ == DType::f32) return load_f32(bytes(), i);  // inline for the common dtype (a sweep reads 2^32 of them)
    return value_at_other(i);
  }
  // One load per width (little-endian host): a memcpy of a variable width
  // compiles to a byte loop whose bytes are then re-read as one word, a
  // stalled store-to-load forward per element (7% of a sweep).
  static std::uint64_t load_bits(const std::byte* data, std::size_t w, std::int64_t i) {
    const std::byte* at = data + static_cast<std::size_t>(i) * w;
    switch (w) {
      case 1: return static_cast<std::uint8_t>(*at);
      case 2: { std::uint16_t b; std::memcpy(&b, at, 2); return b; }
      case 4: { std::uint32_t b; std::memcpy(&b, at, 4); return b; }
      default: { std::uint64_t b; std::memcpy(&b, at, 8); return b; }
    }
  }
  static double load_f32(const std::byte* data, std::int64_t i) {
    float f;
    std::memcpy(&f, data + static_cast<std::size_t>(i) * 4, 4);
    return f;
  }
  double value_exact_at(std::int64_t i) const;  // a signalling NaN stays signalling (bits_to_double_exact)
  void set_bits(std::int64_t i, std::uint64_t bits);
  double value_at_other(std::int64_t i) const;  // value_at for every dtype

  // Zero-copy views (reference: reshape `ops.rs:829`, broadcast_to's pure
  // padding path `ops.rs:1076`). Both throw std::invalid_argument when the
  // target does not qualify.
  Tensor reshaped(Dims target) const;
  Tensor broadcast_padded(Dims target) const;  // only leading size-1 padding
  bool shares_storage(const Tensor& other) const;

 private:
  DType dtype_ = DType::f32;
  Dims dims_;
  std::shared_ptr<std::vector<std::byte>> storage_;
};

// Element reads with the storage and the dtype found once (Tensor's
// value_at and bits_at find both per call): for the loops that read every
// element of a case. The tensor must outlive the reader.
class ElementReader {
 public:
  explicit ElementReader(const Tensor& t) : p_(t.bytes()), t_(t.dtype()), w_(dtype_size(t.dtype())) {}
  std::uint64_t bits(std::int64_t i) const { return Tensor::load_bits(p_, w_, i); }
  double value(std::int64_t i) const {
    return t_ == DType::f32 ? Tensor::load_f32(p_, i) : bits_to_double(t_, bits(i));
  }
  // Tensor::value_exact_at (a signalling NaN stays signalling), and
  // whether the element is a signalling NaN: the cheap way where it is no NaN.
  double value_exact(std::int64_t i, bool& signaling) const {
    const double v = value(i);
    signaling = false;
    if (v == v) return v;
    signaling = is_signaling_nan(t_, bits(i));
    return bits_to_double_exact(t_, bits(i));
  }

 private:
  const std::byte* p_;
  DType t_;
  std::size_t w_;
};

// True when `target` is `source` with only leading size-1 dims added, the
// condition of broadcast_to's zero-copy path.
bool is_pure_padding(const Dims& source, const Dims& target);

}  // namespace kc
