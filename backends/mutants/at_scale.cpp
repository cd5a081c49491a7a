// Planted defects that exist only at scale (production-shapes issue): each
// kernel is the reference below a size and wrong past it, as a blocked or
// split kernel is wrong only where its blocks or splits begin. Each is
// caught by `--shapes tails` (and production) and passes at tiny shapes.
// Rows and sums are taken in double and rounded once into T: the defect,
// not the arithmetic, is what the grading must see.
#include <cmath>
#include <cstring>
#include <vector>

#include "backends/mutants/support.h"
#include "backends/reference/executor.h"

namespace kc::mutants {

namespace {

// f(row values, out) over the last axis's rows of in[0] (in[1]'s rows as g
// where given), in double, each output rounded into T; the reference's
// answer for rows of at most `from` elements.
template <class RowFn>
Outputs rows_past(std::string_view kernel, std::span<const Tensor> in, const Params& p, std::int64_t from, RowFn f) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].rank() == 0 || in[0].dims().back() <= from) return y;
  const DType t = in[0].dtype();
  const std::int64_t n = in[0].dims().back();
  std::vector<double> x(static_cast<std::size_t>(n)), out(x.size());
  for (std::int64_t r = 0; r * n < in[0].numel(); ++r) {
    for (std::int64_t j = 0; j < n; ++j) x[static_cast<std::size_t>(j)] = in[0].value_at(r * n + j);
    f(x, out);
    for (std::int64_t j = 0; j < n; ++j) y[0].set_bits(r * n + j, bits(t, out[static_cast<std::size_t>(j)]));
  }
  return y;
}

Outputs softmax_drops_last_block(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Rows past 1024 summed in blocks of 256 across "thread blocks", the
  // last partial block's exponentials left out of the sum.
  return rows_past(kernel, in, p, 1024, [](const std::vector<double>& x, std::vector<double>& y) {
    const std::size_t n = x.size(), whole = n - n % 256;
    double m = -INFINITY, s = 0;
    for (double v : x) m = std::max(m, v);
    for (std::size_t j = 0; j < whole; ++j) s += std::exp(x[j] - m);
    for (std::size_t j = 0; j < n; ++j) y[j] = std::exp(x[j] - m) / s;
  });
}

Outputs softmax_stale_lane(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Rows past 4096: lane 7 of the 40th vector of 16 in the fifth block of
  // 1024 (element 4743) is never written, its register's stale NaN
  // stored. One element of a row: an exact sample of a few thousand of
  // two such rows' 8000-odd elements most likely misses it.
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].rank() == 0 || in[0].dims().back() <= 4743) return y;
  const std::int64_t n = in[0].dims().back();
  for (std::int64_t r = 0; r * n < in[0].numel(); ++r) y[0].set_bits(r * n + 4743, bits(in[0].dtype(), NAN));
  return y;
}

Outputs sum_error_past_bound(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Sums over more than 2^19 terms along the last axis: the exact sum
  // moved by 1.25 times the contract's bound gamma_(n-1) sum |x_i| (an
  // accumulator a quarter worse than a plain fold in T's worst case). The
  // exact sum and sum |x_i| in long double, compensated (their error is
  // far below the bound), the bound's gamma in long double.
  Outputs y = ref::execute(kernel, in, p);
  const Tensor& x = in[0];
  const std::int64_t dim = p.integer("dim");
  if (x.rank() != 2 || dim != 1 || x.dims()[1] <= (std::int64_t{1} << 19)) return y;
  const std::int64_t rows = x.dims()[0], n = x.dims()[1];
  const long double u = std::ldexp(1.0L, -float_format(x.dtype()).precision);
  const long double gamma = std::expm1(static_cast<long double>(n - 1) * std::log1p(u));
  for (std::int64_t r = 0; r < rows; ++r) {
    long double sum = 0, carry = 0, abs_sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const long double v = x.value_at(r * n + j), t = sum + v;
      carry += std::fabs(sum) >= std::fabs(v) ? (sum - t) + v : (v - t) + sum;  // (Neumaier)
      sum = t;
      abs_sum += std::fabs(v);
    }
    y[0].set_bits(r, bits(x.dtype(), static_cast<double>(sum + carry + 1.25L * gamma * abs_sum)));
  }
  return y;
}

Outputs layer_norm_wrong_welford_merge(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Rows past 4096 as two halves' Welford states merged with the
  // between-halves term's difference of means not squared:
  // M2 = M2_a + M2_b + d n_a n_b / n (d = mean_b - mean_a), a typo that
  // moves the variance by d / (4 var) of itself.
  return rows_past(kernel, in, p, 4096, [&p](const std::vector<double>& x, std::vector<double>& y) {
    const double eps = p.real("eps");  // (read past the reference's checks: a missing eps is its error)
    const std::size_t n = x.size(), na = n / 2;
    auto state = [&](std::size_t from, std::size_t to, double& mean, double& m2) {
      mean = 0, m2 = 0;
      for (std::size_t j = from; j < to; ++j) mean += x[j];
      mean /= static_cast<double>(to - from);
      for (std::size_t j = from; j < to; ++j) m2 += (x[j] - mean) * (x[j] - mean);
    };
    double ma, m2a, mb, m2b;
    state(0, na, ma, m2a);
    state(na, n, mb, m2b);
    const double a = static_cast<double>(na), b = static_cast<double>(n - na), d = mb - ma;
    const double mean = ma + d * b / static_cast<double>(n);
    const double var = std::max(0.0, (m2a + m2b + d * a * b / static_cast<double>(n)) / static_cast<double>(n));
    for (std::size_t j = 0; j < n; ++j) y[j] = (x[j] - mean) / std::sqrt(var + eps);
  });
}

Outputs cumsum_loses_block_carry(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Scanned in blocks of 1024 whose carry-in is lost: each block's
  // prefixes start from 0 again (only along the last axis, past 1024).
  Outputs ref_out = ref::execute(kernel, in, p);  // (first: a bad call is the reference's error)
  if (static_cast<std::size_t>(p.integer("dim")) + 1 != in[0].dims().size()) return ref_out;
  return rows_past(kernel, in, p, 1024, [](const std::vector<double>& x, std::vector<double>& y) {
    double acc = 0;
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = acc = (j % 1024 == 0 ? 0.0 : acc) + x[j];
  });
}

Outputs matmul_split_k_drops_last(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // 2-D products with K past 2048 split into chunks of 512 whose partial
  // sums are added, the last partial chunk's dropped.
  Outputs y = ref::execute(kernel, in, p);
  const Tensor &a = in[0], &b = in[1];
  if (a.rank() != 2 || b.rank() != 2 || a.dims()[1] <= 2048) return y;
  const std::int64_t m = a.dims()[0], k = a.dims()[1], n = b.dims()[1], whole = k - k % 512;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t kk = 0; kk < whole; ++kk) s += a.value_at(i * k + kk) * b.value_at(kk * n + j);
      y[0].set_bits(i * n + j, bits(a.dtype(), s));
    }
  return y;
}

Outputs flash_drops_last_tile(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Key tiles of 64: where Sk passes 256 and is no multiple of 64, the last
  // (partial) tile is left out of the online softmax. (Plain attention
  // only: no mask, softcap or slopes; the reference's answer otherwise.)
  Outputs y = ref::execute(kernel, in, p);
  const bool plain = in.size() == 3 && p.integer("causal") == 0 && p.integer("window_left") < 0 &&
                     p.integer("window_right") < 0 && p.real("softcap") == 0;
  const Dims &q = in[0].dims(), &k = in[1].dims();
  const std::int64_t sk = k[2], d = q[3], kept = sk - sk % 64;
  if (!plain || sk <= 256 || sk % 64 == 0) return y;
  const double scale = p.real("softmax_scale");
  std::vector<double> w(static_cast<std::size_t>(kept));
  for (std::int64_t row = 0; row < q[0] * q[1] * q[2]; ++row) {
    const std::int64_t b = row / (q[1] * q[2]), hq = row / q[2] % q[1];
    const std::int64_t kv = (b * k[1] + hq / (q[1] / k[1])) * sk * d;
    double m = -INFINITY, sum = 0;
    for (std::int64_t j = 0; j < kept; ++j) {
      double dot = 0;
      for (std::int64_t c = 0; c < d; ++c) dot += in[0].value_at(row * d + c) * in[1].value_at(kv + j * d + c);
      m = std::max(m, w[static_cast<std::size_t>(j)] = dot * scale);
    }
    for (auto& v : w) sum += (v = std::exp(v - m));
    for (std::int64_t c = 0; c < d; ++c) {
      double acc = 0;
      for (std::int64_t j = 0; j < kept; ++j) acc += w[static_cast<std::size_t>(j)] * in[2].value_at(kv + j * d + c);
      y[0].set_bits(row * d + c, bits(in[0].dtype(), acc / sum));
    }
  }
  return y;
}

Outputs q4k_wrong_stride_past_first_tile(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Q4_K rows past 2048 values dequantized in tiles of 8 super-blocks
  // whose pointer advances 8 x 128 bytes (the quants' bytes, the 16-byte
  // header of d, dmin and scales forgotten): super-block j >= 8 of a row is
  // read at (j / 8) 1024 + (j % 8) 144 bytes into it, not j 144. The
  // reference dequantizes the bytes so read.
  Outputs y = ref::execute(kernel, in, p);  // (first: a bad call is the reference's error)
  const std::int64_t k = p.integer("k"), n = p.integer("n");
  if (p.integer("quant_type") != 12 || k <= 2048) return y;
  const std::int64_t per_row = k / 256, row_bytes = per_row * 144;
  const auto* src = reinterpret_cast<const std::uint8_t*>(in[0].bytes());
  Tensor w(DType::u32, in[0].dims());
  auto* dst = reinterpret_cast<std::uint8_t*>(w.mutable_bytes());
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t j = 0; j < per_row; ++j)
      std::memcpy(dst + r * row_bytes + j * 144, src + r * row_bytes + (j / 8) * 1024 + (j % 8) * 144, 144);
  const Tensor moved[] = {w};
  return ref::execute(kernel, moved, p);
}

}  // namespace

void register_at_scale(std::vector<Mutant>& v) {
  const DTypeSet wide{DType::f32, DType::f64};
  v.insert(v.end(), {
      {"softmax_drops_last_block", {"softmax_last_dim"}, wide, "accuracy",
       "softmax of rows past 1024 sums blocks of 256 and drops the last partial block's exponentials",
       softmax_drops_last_block, "conformance", false, "tails"},
      {"softmax_stale_lane", {"softmax_last_dim"}, wide, "property",
       "softmax of rows past 4096 leaves element 4743 of each row unwritten (a stale NaN lane)", softmax_stale_lane,
       "conformance", false, "tails"},
      {"sum_error_past_bound", {"sum_dim"}, {DType::f32}, "accuracy",
       "sum_dim over more than 2^19 terms returns the exact sum moved by 1.25 times its bound gamma_(n-1) sum |x|",
       sum_error_past_bound, "conformance", false, "folds"},
      {"layer_norm_wrong_welford_merge", {"layer_norm_last_dim"}, wide, "accuracy",
       "layer_norm of rows past 4096 merges two halves' Welford states with the means' difference not squared",
       layer_norm_wrong_welford_merge, "conformance", false, "tails"},
      {"cumsum_loses_block_carry", {"cumsum"}, wide, "accuracy",
       "cumsum along the last axis past 1024 restarts each block of 1024 from 0 (its carry-in lost)",
       cumsum_loses_block_carry, "conformance", false, "tails"},
      {"flash_drops_last_tile", {"attention_flash"}, wide, "accuracy",
       "flash attention over more than 256 keys, not a multiple of 64, leaves the last key tile out",
       flash_drops_last_tile, "conformance", false, "tails"},
      {"matmul_split_k_drops_last", {"matmul_2d"}, wide, "accuracy",
       "2-D matmul with K past 2048 adds chunks of 512 and drops the last partial chunk",
       matmul_split_k_drops_last, "conformance", false, "tails"},
      {"q4k_wrong_stride_past_first_tile", {"dequantize_blocks"}, {DType::u32}, "accuracy",
       "Q4_K dequantization of rows past 2048 values reads super-blocks 8.. of a row at a stride of 128 bytes a block "
       "between tiles of 8 (the 16-byte header left out)",
       q4k_wrong_stride_past_first_tile, "conformance", false, "tails"},
  });
}

}  // namespace kc::mutants
