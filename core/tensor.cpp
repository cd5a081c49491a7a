#include "core/tensor.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kc {

std::string dims_to_string(const Dims& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

std::int64_t checked_numel(const Dims& d) {
  std::int64_t n = 1;
  for (std::int64_t x : d) {
    if (x < 0) return -1;
    if (x != 0 && n > INT64_MAX / x) return -1;
    n *= x;
  }
  return n;
}

Tensor::Tensor(DType dtype, Dims dims) : dtype_(dtype), dims_(std::move(dims)) {
  std::int64_t n = checked_numel(dims_);
  if (n < 0) throw std::invalid_argument("tensor: invalid shape " + dims_to_string(dims_));
  storage_ = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(n) * dtype_size(dtype));
}

Tensor Tensor::from_bytes_unchecked(DType dtype, Dims dims, std::vector<std::byte> bytes) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.storage_ = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  return t;
}

std::int64_t Tensor::numel() const { return checked_numel(dims_); }
std::size_t Tensor::byte_size() const { return storage_ ? storage_->size() : 0; }
bool Tensor::consistent() const {
  std::int64_t n = numel();
  return n >= 0 && byte_size() == static_cast<std::size_t>(n) * dtype_size(dtype_);
}

double Tensor::value_at_other(std::int64_t i) const { return bits_to_double(dtype_, bits_at(i)); }
double Tensor::value_exact_at(std::int64_t i) const { return bits_to_double_exact(dtype_, bits_at(i)); }
void Tensor::set_bits(std::int64_t i, std::uint64_t bits) {
  const std::size_t w = dtype_size(dtype_);
  std::memcpy(mutable_bytes() + static_cast<std::size_t>(i) * w, &bits, w);
}

Tensor Tensor::reshaped(Dims target) const {
  if (checked_numel(target) != numel())
    throw std::invalid_argument(fmt::format("reshape: element count mismatch: source {} vs target {}",
                                            dims_to_string(dims_), dims_to_string(target)));
  Tensor t = *this;  // shares storage_
  t.dims_ = std::move(target);
  return t;
}

bool is_pure_padding(const Dims& source, const Dims& target) {
  if (source.size() > target.size()) return false;
  const std::size_t pad = target.size() - source.size();
  for (std::size_t i = 0; i < pad; ++i)
    if (target[i] != 1) return false;
  for (std::size_t i = 0; i < source.size(); ++i)
    if (source[i] != target[pad + i]) return false;
  return true;
}

Tensor Tensor::broadcast_padded(Dims target) const {
  if (!is_pure_padding(dims_, target))
    throw std::invalid_argument(fmt::format("broadcast_padded: {} -> {} is not pure padding",
                                            dims_to_string(dims_), dims_to_string(target)));
  Tensor t = *this;
  t.dims_ = std::move(target);
  return t;
}

bool Tensor::shares_storage(const Tensor& other) const {
  return storage_ && storage_ == other.storage_;
}

}  // namespace kc
