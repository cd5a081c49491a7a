// Attention of the reference (attention.rs; reference-semantics.md §12):
// attention_naive (the exec FLASH_ATTN arm) and attention_flash (tiles of
// 16 keys, online softmax). q [B, Hq, Sq, D], k and v [B, Hk, Sk, D],
// optional ALiBi slopes [Hq]; params softmax_scale (f32), causal (0/1),
// window_left and window_right (-1: none), softcap (0: none). Per
// admissible (qi, kj), in T: dot = fold of q k; s = dot T(scale); softcap:
// s = tanh(s c^-1) c with c^-1 = 1/c rounded once; ALiBi: s += slope[hq]
// T(f32(kj) - f32(qi)). GQA: kv head = hq / (Hq / Hk).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

namespace {

struct AttnParams {
  double scale;  // T(f32(softmax_scale)) widened
  bool causal;
  std::int64_t left, right;  // -1: no window
  double softcap;            // 0: none
};

// position_admissible (attention.rs:76), in its order, raw 0-based indices
// (causal top-left aligned); the window sums saturate instead of wrapping.
bool admissible(const AttnParams& p, std::int64_t qi, std::int64_t kj) {
  if (p.causal && kj > qi) return false;
  if (p.left >= 0 && kj + p.left < qi) return false;
  if (p.right >= 0 && kj > qi + p.right) return false;
  return true;
}


struct Dims4 {
  std::int64_t b, h, s, d;
};
Dims4 dims4(const Tensor& x) { return {x.dims()[0], x.dims()[1], x.dims()[2], x.dims()[3]}; }

// The scores of one query row: -inf where not admissible; `pre`, where
// given, gets the scores after the scale, before softcap and ALiBi (the
// backward's softcap derivative), -inf where not admissible.
template <class T>
void scores(const T* q, const T* k, std::int64_t sk, std::int64_t d, std::int64_t qi, const AttnParams& p,
            const T* slope, std::vector<T>& s, std::vector<T>* pre = nullptr) {
  const T scale = cst<T>(p.scale), c = cst<T>(p.softcap), minus_inf = cst<T>(-std::numeric_limits<double>::infinity());
  const T cinv = div_in_order(cst<T>(1.0), c);
  s.assign(static_cast<std::size_t>(sk), minus_inf);
  if (pre) pre->assign(static_cast<std::size_t>(sk), minus_inf);
  for (std::int64_t kj = 0; kj < sk; ++kj) {
    if (!admissible(p, qi, kj)) continue;
    T dot = cst<T>(0.0);
    for (std::int64_t x = 0; x < d; ++x) dot = acc_add(dot, mul_in_order(q[x], k[kj * d + x]));
    T v = mul_in_order(dot, scale);
    if (pre) (*pre)[static_cast<std::size_t>(kj)] = v;
    if (p.softcap != 0) v = mul_in_order(m_tanh(mul_in_order(v, cinv)), c);
    if (slope) v = acc_add(v, mul_in_order(*slope, cst<T>(static_cast<float>(kj) - static_cast<float>(qi))));
    s[static_cast<std::size_t>(kj)] = v;
  }
}

// (Generic in T: f32 and f64, and bf16 and f16 for attention_flash, whose
// every operation is one f32 operation rounded back, kernels/scalar.h.)
template <class T>
void naive_row(const std::vector<T>& s, const T* v, std::int64_t d, T* out) {
  const T zero = cst<T>(0.0);
  T m = cst<T>(-std::numeric_limits<double>::infinity());
  for (T x : s)
    if (x > m) m = x;
  for (std::int64_t x = 0; x < d; ++x) out[x] = zero;
  if (!std::isfinite(to_f64(m))) return;  // fully masked, all NaN or -inf, or a +inf score: +0
  std::vector<T> e(s.size());
  T sum = zero;
  for (std::size_t j = 0; j < s.size(); ++j) {
    e[j] = std::isfinite(to_f64(s[j])) ? m_exp(sub_in_order(s[j], m)) : zero;
    sum = acc_add(sum, e[j]);
  }
  const T inv = cst<T>(1.0) / sum;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const T pj = mul_in_order(e[j], inv);
    if (to_f64(pj) == 0) continue;  // an inf or NaN in V under zero weight does not propagate
    for (std::int64_t x = 0; x < d; ++x) out[x] = acc_add(out[x], mul_in_order(pj, v[static_cast<std::int64_t>(j) * d + x]));
  }
}

template <class T>
void flash_row(const std::vector<T>& s, const T* v, std::int64_t d, T* out) {
  constexpr std::size_t kTile = 16;  // BC
  const T zero = cst<T>(0.0), minus_inf = cst<T>(-std::numeric_limits<double>::infinity());
  T m = minus_inf, l = zero;
  std::vector<T> o(static_cast<std::size_t>(d), zero);
  for (std::size_t t0 = 0; t0 < s.size(); t0 += kTile) {
    const std::size_t t1 = std::min(s.size(), t0 + kTile);
    T tile_max = minus_inf;
    for (std::size_t j = t0; j < t1; ++j)
      if (s[j] > tile_max) tile_max = s[j];
    const T m_new = tile_max > m ? tile_max : m;
    if (!std::isfinite(to_f64(m_new))) continue;  // the tile is skipped
    const T alpha = std::isfinite(to_f64(m)) ? m_exp(sub_in_order(m, m_new)) : zero;
    std::vector<T> pj(t1 - t0);
    T r = zero;
    for (std::size_t j = t0; j < t1; ++j) {
      pj[j - t0] = std::isfinite(to_f64(s[j])) ? m_exp(sub_in_order(s[j], m_new)) : zero;
      r = acc_add(r, pj[j - t0]);
    }
    l = acc_add(mul_in_order(alpha, l), r);
    for (auto& x : o) x = mul_in_order(x, alpha);
    for (std::size_t j = t0; j < t1; ++j) {
      if (to_f64(pj[j - t0]) == 0) continue;
      for (std::int64_t x = 0; x < d; ++x)
        o[static_cast<std::size_t>(x)] = acc_add(o[static_cast<std::size_t>(x)], mul_in_order(pj[j - t0], v[static_cast<std::int64_t>(j) * d + x]));
    }
    m = m_new;
  }
  if (to_f64(l) == 0) {
    for (std::int64_t x = 0; x < d; ++x) out[x] = zero;
    return;
  }
  const T inv = cst<T>(1.0) / l;
  for (std::int64_t x = 0; x < d; ++x) out[x] = mul_in_order(o[static_cast<std::size_t>(x)], inv);
}

// q, k, v's preconditions; the ALiBi slopes, where given, are input `alibi_at`.
void check_inputs(std::string_view op, std::span<const Tensor> in, std::size_t alibi_at = 3) {
  const char* names[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i)
    if (in[static_cast<std::size_t>(i)].rank() != 4)
      throw KernelError(std::string(op), names[i], Rule::rank_exact,
                        fmt::format("{} {}: expected rank 4 [B, H, S, D], got {}", op, names[i],
                                    dims_to_string(in[static_cast<std::size_t>(i)].dims())));
  const Dims4 q = dims4(in[0]), k = dims4(in[1]), v = dims4(in[2]);
  auto fail = [&](const char* operand, Rule rule, std::string msg) {
    throw KernelError(std::string(op), operand, rule, std::move(msg));
  };
  if (q.b != k.b) fail("k", Rule::batch_mismatch, fmt::format("B mismatch q vs k ({} vs {})", q.b, k.b));
  if (k.b != v.b) fail("v", Rule::batch_mismatch, fmt::format("B mismatch k vs v ({} vs {})", k.b, v.b));
  if (k.h != v.h) fail("v", Rule::heads_mismatch, fmt::format("Hk mismatch k vs v ({} vs {})", k.h, v.h));
  if (k.s != v.s) fail("v", Rule::seq_mismatch, fmt::format("Sk mismatch k vs v ({} vs {})", k.s, v.s));
  if (q.d != k.d) fail("k", Rule::head_dim_mismatch, fmt::format("head_dim mismatch q vs k ({} vs {})", q.d, k.d));
  if (k.d != v.d) fail("v", Rule::head_dim_mismatch, fmt::format("head_dim mismatch k vs v ({} vs {})", k.d, v.d));
  if (k.h == 0 || q.h % k.h != 0)
    fail("q", Rule::gqa_group, fmt::format("Hq={} must be a multiple of Hk={} (GQA group size)", q.h, k.h));
  if (in.size() > alibi_at && in[alibi_at].dims() != Dims{q.h})
    fail("alibi", Rule::alibi_shape,
         fmt::format("alibi_slopes must be shape [Hq={}], got {}", q.h, dims_to_string(in[alibi_at].dims())));
}

Tensor attention(std::string_view op, bool flash, std::span<const Tensor> in, const Params& p) {
  check_inputs(op, in);
  // softmax_scale and softcap are f32 parameters: T::from(f32) (§0.3).
  const AttnParams ap{static_cast<float>(p.real("softmax_scale")), p.integer("causal") != 0, p.integer("window_left"),
                      p.integer("window_right"), static_cast<float>(p.real("softcap"))};
  const Dims4 q = dims4(in[0]), k = dims4(in[1]);
  Tensor out(in[0].dtype(), in[0].dims());
  // (naive: f32 and f64, the exec arm's dtypes; flash: every float dtype)
  by_dtype(in[0].dtype(), [&]<class T>() {
    const T *qs = in[0].as<T>().data(), *ks = in[1].as<T>().data(), *vs = in[2].as<T>().data();
    const T* slopes = in.size() > 3 ? in[3].as<T>().data() : nullptr;
    T* os = out.as_mutable<T>().data();
    const std::int64_t groups = q.h / k.h;
    std::vector<T> s;
    for (std::int64_t b = 0; b < q.b; ++b)
      for (std::int64_t hq = 0; hq < q.h; ++hq) {
        const std::int64_t kvh = hq / groups, kv_at = (b * k.h + kvh) * k.s * k.d;
        for (std::int64_t qi = 0; qi < q.s; ++qi) {
          const std::int64_t at = ((b * q.h + hq) * q.s + qi) * q.d;
          scores(qs + at, ks + kv_at, k.s, q.d, qi, ap, slopes ? slopes + hq : nullptr, s);
          if (flash) flash_row(s, vs + kv_at, q.d, os + at);
          else naive_row(s, vs + kv_at, q.d, os + at);
        }
      }
  });
  return out;
}

// attention_flash_backward (attention.rs:567; §12): recomputes each row's
// softmax from q, k, v and dO, for (b, hq, qi) in that nesting: a row
// whose maximum is not finite is skipped; p_j = e^(s_j - m) (1/sum);
// dV[kj] += p_j dO[qi] (kj ascending, p_j = 0 skipped); dP_j = the fold of
// dO[qi] . v[kj] and rd = the fold of p_j dP_j, both over all kj;
// dS_j = (dP_j - rd) p_j, times 1 - t t (t = tanh(s_pre c^-1)) with a
// softcap and a finite pre-softcap score; then with g = dS_j scale, not 0:
// dQ[qi] += g k[kj] and dK[kj] += g q[qi]. dK and dV sum the query heads of
// a KV head in increasing hq. The reference asserts only the ranks; the
// port checks what its indexing assumes (Dv = Dq, dO shaped as q, GQA).
std::vector<Tensor> flash_backward(std::span<const Tensor> in, const Params& p) {
  const char* op = "attention_flash_backward";
  check_inputs(op, in, 4);
  if (in[3].rank() != 4)
    throw KernelError(op, "do_grad", Rule::rank_exact,
                      fmt::format("{} do_grad: expected rank 4 [B, Hq, Sq, D], got {}", op, dims_to_string(in[3].dims())));
  if (in[3].dims() != in[0].dims())
    throw KernelError(op, "do_grad", Rule::shape_mismatch,
                      fmt::format("{}: do_grad is {}, the output's shape is q's {}", op, dims_to_string(in[3].dims()),
                                  dims_to_string(in[0].dims())));
  const AttnParams ap{static_cast<float>(p.real("softmax_scale")), p.integer("causal") != 0, p.integer("window_left"),
                      p.integer("window_right"), static_cast<float>(p.real("softcap"))};
  const Dims4 q = dims4(in[0]), k = dims4(in[1]);
  std::vector<Tensor> out{Tensor(in[0].dtype(), in[0].dims()), Tensor(in[1].dtype(), in[1].dims()),
                          Tensor(in[2].dtype(), in[2].dims())};
  by_dtype(in[0].dtype(), [&]<class T>() {
    const T *qs = in[0].as<T>().data(), *ks = in[1].as<T>().data(), *vs = in[2].as<T>().data(), *dos = in[3].as<T>().data();
    const T* slopes = in.size() > 4 ? in[4].as<T>().data() : nullptr;
    T *dq = out[0].as_mutable<T>().data(), *dk = out[1].as_mutable<T>().data(), *dv = out[2].as_mutable<T>().data();
    const T zero = cst<T>(0.0), one = cst<T>(1.0), scale = cst<T>(ap.scale), cinv = div_in_order(one, cst<T>(ap.softcap));
    std::fill(dq, dq + in[0].numel(), zero);
    std::fill(dk, dk + in[1].numel(), zero);
    std::fill(dv, dv + in[2].numel(), zero);
    const std::int64_t groups = q.h / k.h, d = q.d;
    const auto nk = static_cast<std::size_t>(k.s);
    std::vector<T> s, pre, pj(nk), dp(nk);
    for (std::int64_t b = 0; b < q.b; ++b)
      for (std::int64_t hq = 0; hq < q.h; ++hq) {
        const std::int64_t kv_at = (b * k.h + hq / groups) * k.s * d;
        for (std::int64_t qi = 0; qi < q.s; ++qi) {
          const std::int64_t at = ((b * q.h + hq) * q.s + qi) * d;
          scores(qs + at, ks + kv_at, k.s, d, qi, ap, slopes ? slopes + hq : nullptr, s, &pre);
          T m = cst<T>(-std::numeric_limits<double>::infinity());
          for (T x : s)
            if (x > m) m = x;
          if (!std::isfinite(to_f64(m))) continue;
          T sum = zero;
          for (std::size_t j = 0; j < nk; ++j) sum = acc_add(sum, pj[j] = std::isfinite(to_f64(s[j])) ? m_exp(sub_in_order(s[j], m)) : zero);
          const T inv = div_in_order(one, sum);
          for (std::size_t j = 0; j < nk; ++j) pj[j] = mul_in_order(pj[j], inv);
          for (std::size_t j = 0; j < nk; ++j) {
            if (to_f64(pj[j]) == 0) continue;
            for (std::int64_t x = 0; x < d; ++x)
              dv[kv_at + static_cast<std::int64_t>(j) * d + x] =
                  acc_add(dv[kv_at + static_cast<std::int64_t>(j) * d + x], mul_in_order(pj[j], dos[at + x]));
          }
          T rd = zero;
          for (std::size_t j = 0; j < nk; ++j) {
            T f = zero;
            for (std::int64_t x = 0; x < d; ++x) f = acc_add(f, mul_in_order(dos[at + x], vs[kv_at + static_cast<std::int64_t>(j) * d + x]));
            dp[j] = f;
            rd = acc_add(rd, mul_in_order(pj[j], f));
          }
          for (std::size_t j = 0; j < nk; ++j) {
            T ds = mul_in_order(sub_in_order(dp[j], rd), pj[j]);
            if (ap.softcap != 0 && std::isfinite(to_f64(pre[j]))) {
              const T t = m_tanh(mul_in_order(pre[j], cinv));
              ds = mul_in_order(ds, sub_in_order(one, mul_in_order(t, t)));
            }
            const T g = mul_in_order(ds, scale);
            if (to_f64(g) == 0) continue;
            const std::int64_t row = kv_at + static_cast<std::int64_t>(j) * d;
            for (std::int64_t x = 0; x < d; ++x) dq[at + x] = acc_add(dq[at + x], mul_in_order(g, ks[row + x]));
            for (std::int64_t x = 0; x < d; ++x) dk[row + x] = acc_add(dk[row + x], mul_in_order(g, qs[at + x]));
          }
        }
      }
  });
  return out;
}

// attention_paged_naive (attention.rs:420): the keys of batch b are its
// context's L = context_lens[b] positions, row k in cache block
// block_table[b, k / block_size] at slot k mod block_size; query slot qp
// sits at a = saturating(L - Sq) + qp and keys past a are masked (the
// implicit causal mask); ALiBi's distance is f32(k) - f32(a).
Tensor paged(std::span<const Tensor> in, const Params& p) {
  const char* op = "attention_paged_naive";
  const char* names[] = {"q", "k_cache", "v_cache", "block_table", "context_lens"};
  const int ranks[] = {4, 4, 4, 2, 1};
  for (int i = 0; i < 5; ++i)
    if (in[static_cast<std::size_t>(i)].rank() != ranks[i])
      throw KernelError(op, names[i], Rule::rank_exact,
                        fmt::format("paged_attn: {} must be rank {}, got {}", names[i], ranks[i],
                                    dims_to_string(in[static_cast<std::size_t>(i)].dims())));
  for (int i = 0; i < 3; ++i)
    if (!(in[static_cast<std::size_t>(i)].dtype() == DType::f32 || in[static_cast<std::size_t>(i)].dtype() == DType::f64))
      throw KernelError(op, names[i], Rule::dtype_unsupported,
                        fmt::format("paged_attn: {} must be F32 or F64, got {}", names[i], dtype_name(in[static_cast<std::size_t>(i)].dtype())));
  for (int i = 1; i < 3; ++i)
    if (in[static_cast<std::size_t>(i)].dtype() != in[0].dtype())
      throw KernelError(op, names[i], Rule::dtype_mismatch, fmt::format("paged_attn: {} dtype differs from q's", names[i]));
  for (int i = 3; i < 5; ++i)
    if (in[static_cast<std::size_t>(i)].dtype() != DType::u32)
      throw KernelError(op, names[i], Rule::dtype_unsupported,
                        fmt::format("paged_attn: {} must be U32, got {}", names[i], dtype_name(in[static_cast<std::size_t>(i)].dtype())));
  const std::int64_t bs = p.integer("block_size");
  const Dims &q = in[0].dims(), &kc = in[1].dims(), &vc = in[2].dims(), &bt = in[3].dims(), &cl = in[4].dims();
  auto fail = [&](const char* operand, Rule rule, std::string msg) { throw KernelError(op, operand, rule, std::move(msg)); };
  if (kc[1] != bs) fail("k_cache", Rule::block_size_mismatch, fmt::format("k_cache block dim {} != block_size {}", kc[1], bs));
  if (vc[1] != bs) fail("v_cache", Rule::block_size_mismatch, fmt::format("v_cache block dim {} != block_size {}", vc[1], bs));
  if (vc[0] != kc[0] || vc[2] != kc[2]) fail("v_cache", Rule::heads_mismatch, "v_cache's blocks and Hkv must be k_cache's");
  if (kc[3] != q[3]) fail("k_cache", Rule::head_dim_mismatch, fmt::format("k_cache head_dim {} != q's {}", kc[3], q[3]));
  if (vc[3] != q[3]) fail("v_cache", Rule::head_dim_mismatch, fmt::format("v_cache head_dim {} != q's {}", vc[3], q[3]));
  if (bt[0] != q[0]) fail("block_table", Rule::batch_mismatch, fmt::format("block_table has {} rows for B = {}", bt[0], q[0]));
  if (cl[0] != q[0]) fail("context_lens", Rule::batch_mismatch, fmt::format("context_lens has {} entries for B = {}", cl[0], q[0]));
  if (kc[2] == 0 || q[1] % kc[2] != 0) fail("q", Rule::gqa_group, fmt::format("Hq={} must be a multiple of Hkv={}", q[1], kc[2]));
  if (in.size() > 5 && in[5].dims() != Dims{q[1]})
    fail("alibi", Rule::alibi_shape, fmt::format("alibi_slopes must be shape [Hq={}], got {}", q[1], dims_to_string(in[5].dims())));
  const std::int64_t nb = kc[0], mb = bt[1], hkv = kc[2], d = q[3];
  for (std::int64_t b = 0; b < q[0]; ++b) {
    const auto len = static_cast<std::int64_t>(in[4].bits_at(b));
    // (the reference reads past its table row here, or out of bounds: a typed error instead)
    if (len > mb * bs)
      fail("context_lens", Rule::context_len_capacity,
           fmt::format("context_lens[{}] = {} exceeds the table's {} blocks x block_size {}", b, len, mb, bs));
    for (std::int64_t blk = 0; blk * bs < len; ++blk)
      if (static_cast<std::int64_t>(in[3].bits_at(b * mb + blk)) >= nb)
        fail("block_table", Rule::block_table_range,
             fmt::format("block_table[{},{}]={} out of range (num_blocks={})", b, blk, in[3].bits_at(b * mb + blk), nb));
  }
  const AttnParams ap{static_cast<float>(p.real("softmax_scale")), false, -1, -1, static_cast<float>(p.real("softcap"))};
  Tensor out(in[0].dtype(), in[0].dims());
  const auto each = [&]<class T>() {
    const T *qs = in[0].as<T>().data(), *ks = in[1].as<T>().data(), *vs = in[2].as<T>().data();
    const T* slopes = in.size() > 5 ? in[5].as<T>().data() : nullptr;
    T* os = out.as_mutable<T>().data();
    std::vector<T> kk, vv, s;
    for (std::int64_t b = 0; b < q[0]; ++b) {
      const auto len = static_cast<std::int64_t>(in[4].bits_at(b));
      for (std::int64_t hq = 0; hq < q[1]; ++hq) {
        const std::int64_t kvh = hq / (q[1] / hkv);
        // The context's rows, gathered through the table (the same reads).
        kk.assign(static_cast<std::size_t>(len * d), T(0));
        vv.assign(static_cast<std::size_t>(len * d), T(0));
        for (std::int64_t k = 0; k < len; ++k) {
          const std::int64_t blk = static_cast<std::int64_t>(in[3].bits_at(b * mb + k / bs));
          const std::int64_t at = blk * bs * hkv * d + (k % bs) * hkv * d + kvh * d;
          for (std::int64_t x = 0; x < d; ++x) kk[static_cast<std::size_t>(k * d + x)] = ks[at + x], vv[static_cast<std::size_t>(k * d + x)] = vs[at + x];
        }
        for (std::int64_t qp = 0; qp < q[2]; ++qp) {
          const std::int64_t a = std::max<std::int64_t>(len - q[2], 0) + qp;
          AttnParams causal_at = ap;
          causal_at.causal = true;  // k > a masked: the top-left rule at position a
          const std::int64_t at = ((b * q[1] + hq) * q[2] + qp) * d;
          scores(qs + at, kk.data(), len, d, a, causal_at, slopes ? slopes + hq : nullptr, s);
          naive_row(s, vv.data(), d, os + at);
        }
      }
    }
  };
  if (in[0].dtype() == DType::f64) each.template operator()<double>();
  else each.template operator()<float>();
  return out;
}

}  // namespace

void register_attention(Arms& table) {
  // Exec FLASH_ATTN (exec.rs:1355): f32/f64, the ALiBi slopes an optional
  // fourth input of the same dtype. attention_flash is not exec-wired:
  // kconform calls the generic function with the same operands, in every
  // float dtype (FKC attention.fkc.md: F32, F64, BF16, F16; math in T).
  const std::vector<ParamDecl> params{{"softmax_scale", ParamKind::real},
                                      {"causal", ParamKind::integer, 0, 1},
                                      {"window_left", ParamKind::integer, -1, INT32_MAX},
                                      {"window_right", ParamKind::integer, -1, INT32_MAX},
                                      {"softcap", ParamKind::real}};
  for (const auto& [name, flash] : {std::pair{"attention_naive", false}, std::pair{"attention_flash", true}})
    table.push_back(Arm{.op = name, .dtypes = flash ? kFloatSet : DTypeSet{DType::f32, DType::f64}, .arity = 4, .params = params,
                        .eval = [name = name, flash = flash](std::span<const Tensor> in, const Params& p) {
                          return std::vector<Tensor>{attention(name, flash, in, p)};
                        },
                        .operands = {"q", "k", "v", "alibi"},
                        .min_arity = 3});
  // attention_flash_backward is not exec-wired (three outputs): kconform
  // calls the function with q, k, v, do_grad and the optional slopes, in
  // every float dtype (FKC attention.fkc.md: F32, F64, BF16, F16).
  table.push_back(Arm{.op = "attention_flash_backward", .dtypes = kFloatSet, .arity = 5, .params = params,
                      .eval = [](std::span<const Tensor> in, const Params& p) { return flash_backward(in, p); },
                      .operands = {"q", "k", "v", "do_grad", "alibi"},
                      .min_arity = 4});
  // Exec PAGED_ATTN (exec.rs:1431): f32/f64 tensors, the block table and
  // context lengths U32 (`paged_attn: block_table must be U32`).
  table.push_back(Arm{.op = "attention_paged_naive", .dtypes = {DType::f32, DType::f64, DType::u32}, .arity = 6,
                      .params = {{"softmax_scale", ParamKind::real}, {"block_size", ParamKind::integer, 1, INT32_MAX},
                                 {"softcap", ParamKind::real}},
                      .eval = [](std::span<const Tensor> in, const Params& p) { return std::vector<Tensor>{paged(in, p)}; },
                      .operands = {"q", "k_cache", "v_cache", "block_table", "context_lens", "alibi"},
                      .same_dtype = false,
                      .min_arity = 5});
}

}  // namespace kc::kern
