// Planted defects of attention (f32): each recomputes the output with the
// reference's steps but for its defect.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

struct Defect {
  std::int64_t causal_slack = 0;  // causal masks kj > qi + slack
  bool alibi_reversed = false;    // slope (qi - kj)
  bool gqa_modulo = false;        // kv head hq mod Hk
  bool softcap_after_alibi = false;
  bool softcap_after_mask = false;  // the mask's -inf goes through the softcap: tanh(-inf / c) c = -c, a finite score
  bool no_rescale = false;        // flash: O not multiplied by alpha
  bool divides = false;           // naive: p_j = e_j / sum (correct: one rounding fewer than e_j (1/sum))
  bool rounds_up = false;         // O's accumulation rounded upward (biased)
  bool exp_via_exp2 = false;      // e^x as exp2(x log2 e): one rounding more, scaled by |x|
  int exp_degree = 0;             // e^x from a polynomial of this degree (exp_poly), 0: libm's
};

// e^x as a fast-math kernel takes it: x = k ln 2 + r, |r| <= ln 2 / 2, and
// 2^k times the Taylor polynomial of e^r of this degree, each step in f32.
// Its truncation error r^(d+1) / (d+1)! reaches 2^-18.6 relative (64 ulps
// of f32) at the ends of the range for degree 5, 2^-14.5 (about 1,400
// ulps) for degree 4.
float exp_poly(float x, int degree) {
  if (!(x > -87.0f && x < 88.0f)) return std::exp(x);  // (the special values and the ends of the range as libm)
  const float k = std::nearbyint(x * 1.44269504f);
  const float r = (x - k * 0.693145752f) - k * 1.42860677e-06f;  // Cody-Waite: ln 2 in two parts
  float p = 1;
  for (int i = degree; i >= 1; --i) p = 1 + r * p / static_cast<float>(i);  // Horner: 1 + r (1 + r/2 (1 + r/3 (...)))
  return std::ldexp(p, static_cast<int>(k));
}

// e^x as the kernel of `df` takes it.
float exp_of(const Defect& df, float x) {
  return df.exp_degree ? exp_poly(x, df.exp_degree) : df.exp_via_exp2 ? std::exp2(x * 1.44269504f) : std::exp(x);
}

Outputs attention_with(std::string_view kernel, std::span<const Tensor> in, const Params& p, Defect df) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return y;
  const Dims &qd = in[0].dims(), &kd = in[1].dims();
  const std::int64_t B = qd[0], hq_n = qd[1], sq = qd[2], d = qd[3], hk_n = kd[1], sk = kd[2];
  const float scale = static_cast<float>(p.real("softmax_scale")), cap = static_cast<float>(p.real("softcap"));
  const bool causal = p.integer("causal") != 0;
  const std::int64_t left = p.integer("window_left"), right = p.integer("window_right");
  const bool flash = kernel == "attention_flash";
  auto f = [](const Tensor& t, std::int64_t i) { return static_cast<float>(t.value_at(i)); };
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t hq = 0; hq < hq_n; ++hq) {
      const std::int64_t kvh = df.gqa_modulo ? hq % hk_n : hq / (hq_n / hk_n), kv = (b * hk_n + kvh) * sk * d;
      for (std::int64_t qi = 0; qi < sq; ++qi) {
        const std::int64_t at = ((b * hq_n + hq) * sq + qi) * d;
        std::vector<float> s(static_cast<std::size_t>(sk), -std::numeric_limits<float>::infinity());
        for (std::int64_t kj = 0; kj < sk; ++kj) {
          const bool masked =
              (causal && kj > qi + df.causal_slack) || (left >= 0 && kj + left < qi) || (right >= 0 && kj > qi + right);
          const bool mask_first = df.softcap_after_mask && cap != 0;
          if (masked && !mask_first) continue;
          float dot = 0;
          for (std::int64_t x = 0; x < d && !masked; ++x) dot += f(in[0], at + x) * f(in[1], kv + kj * d + x);
          float v = masked ? -std::numeric_limits<float>::infinity() : dot * scale;
          const float dist = df.alibi_reversed ? static_cast<float>(qi) - static_cast<float>(kj) : static_cast<float>(kj) - static_cast<float>(qi);
          if (cap != 0 && !df.softcap_after_alibi) v = std::tanh(v * (1.0f / cap)) * cap;
          if (in.size() > 3) v += f(in[3], hq) * dist;
          if (cap != 0 && df.softcap_after_alibi) v = std::tanh(v * (1.0f / cap)) * cap;
          s[static_cast<std::size_t>(kj)] = v;
        }
        std::vector<float> out(static_cast<std::size_t>(d), 0.0f);
        if (!flash) {
          float m = -std::numeric_limits<float>::infinity();
          for (float x : s) if (x > m) m = x;
          if (std::isfinite(m)) {
            std::vector<float> e(s.size());
            float sum = 0;
            for (std::size_t j = 0; j < s.size(); ++j) sum += (e[j] = std::isfinite(s[j]) ? exp_of(df, s[j] - m) : 0.0f);
            const float inv = 1.0f / sum;
            for (std::size_t j = 0; j < s.size(); ++j) {
              const float pj = df.divides ? e[j] / sum : e[j] * inv;
              if (pj == 0) continue;
              for (std::int64_t x = 0; x < d; ++x) {
                float& o = out[static_cast<std::size_t>(x)];
                const float term = pj * f(in[2], kv + static_cast<std::int64_t>(j) * d + x);
                o = df.rounds_up ? add_rounding_up(o, term) : o + term;
              }
            }
          }
        } else {
          float m = -std::numeric_limits<float>::infinity(), l = 0;
          for (std::size_t t0 = 0; t0 < s.size(); t0 += 16) {
            const std::size_t t1 = std::min(s.size(), t0 + 16);
            float tm = -std::numeric_limits<float>::infinity();
            for (std::size_t j = t0; j < t1; ++j) if (s[j] > tm) tm = s[j];
            const float mn = tm > m ? tm : m;
            if (!std::isfinite(mn)) continue;
            const float alpha = std::isfinite(m) ? exp_of(df, m - mn) : 0.0f;
            float r = 0;
            std::vector<float> pj(t1 - t0);
            for (std::size_t j = t0; j < t1; ++j) r += (pj[j - t0] = std::isfinite(s[j]) ? exp_of(df, s[j] - mn) : 0.0f);
            l = alpha * l + r;
            if (!df.no_rescale) for (auto& o : out) o *= alpha;
            for (std::size_t j = t0; j < t1; ++j)
              if (pj[j - t0] != 0)
                for (std::int64_t x = 0; x < d; ++x) out[static_cast<std::size_t>(x)] += pj[j - t0] * f(in[2], kv + static_cast<std::int64_t>(j) * d + x);
            m = mn;
          }
          if (l != 0) for (auto& o : out) o *= 1.0f / l;
          else for (auto& o : out) o = 0;
        }
        for (std::int64_t x = 0; x < d; ++x) y[0].set_bits(at + x, double_to_bits(DType::f32, out[static_cast<std::size_t>(x)]));
      }
    }
  return y;
}

// Paged attention recomputed per batch as f32 attention_naive with `df`
// (attention_with) on the context's keys gathered through the block
// table, query slot qp at position max(L - Sq, 0) + qp (keys past it
// masked: a window right of L - Sq); `drop_offset`: at position qp (every
// query of a long context sees only its first keys).
Outputs paged_with(std::string_view kernel, std::span<const Tensor> in, const Params& p, bool drop_offset, Defect df) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return y;
  const Dims &q = in[0].dims(), &kc = in[1].dims();
  const std::int64_t B = q[0], hq = q[1], sq = q[2], d = q[3], bs = kc[1], hkv = kc[2], mb = in[3].dims()[1];
  for (std::int64_t b = 0; b < B; ++b) {
    const auto len = static_cast<std::int64_t>(in[4].bits_at(b));
    Tensor qb(DType::f32, {1, hq, sq, d}), kb(DType::f32, {1, hkv, len, d}), vb(DType::f32, {1, hkv, len, d});
    for (std::int64_t i = 0; i < qb.numel(); ++i) qb.set_bits(i, in[0].bits_at(b * qb.numel() + i));
    for (std::int64_t h = 0; h < hkv; ++h)
      for (std::int64_t k = 0; k < len; ++k)
        for (std::int64_t x = 0; x < d; ++x) {
          const auto blk = static_cast<std::int64_t>(in[3].bits_at(b * mb + k / bs));
          const std::int64_t from = ((blk * bs + k % bs) * hkv + h) * d + x, to = (h * len + k) * d + x;
          kb.set_bits(to, in[1].bits_at(from)), vb.set_bits(to, in[2].bits_at(from));
        }
    std::vector<Tensor> args{qb, kb, vb};
    if (in.size() > 5) args.push_back(in[5]);
    const Params np = Params()
                          .set("softmax_scale", p.real("softmax_scale"))
                          .set("softcap", p.real("softcap"))
                          .set("causal", std::int64_t{drop_offset ? 1 : 0})
                          .set("window_left", std::int64_t{-1})
                          .set("window_right", drop_offset ? std::int64_t{-1} : std::max<std::int64_t>(len - sq, 0));
    const Tensor yb = attention_with("attention_naive", args, np, df).at(0);
    for (std::int64_t i = 0; i < yb.numel(); ++i) y[0].set_bits(b * yb.numel() + i, yb.bits_at(i));
  }
  return y;
}

// attention_flash_backward's defects: its recompute in f32 (the
// reference's steps, §12) but for the one planted.
struct BackwardDefect {
  bool gqa_overwrite = false;    // dK, dV of a KV head: the last query head's only (= instead of +=)
  bool no_softcap_grad = false;  // dS not multiplied by 1 - tanh^2
  bool dk_unscaled = false;      // dK += dS q (the scale dropped from dK)
  bool rd_drops_last = false;    // rd = the fold of p dP without the last key
  bool divides = false;          // p_j = e_j / sum (correct: one rounding fewer than e_j (1/sum))
  bool dq_rounds_up = false;     // dQ's accumulation rounded upward (biased)
  int exp_degree = 0;            // e^x from a polynomial of this degree (exp_poly), 0: libm's
};

Outputs backward_with(std::string_view kernel, std::span<const Tensor> in, const Params& p, BackwardDefect df) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return y;
  const Dims &qd = in[0].dims(), &kd = in[1].dims();
  const std::int64_t B = qd[0], hq_n = qd[1], sq = qd[2], d = qd[3], hk_n = kd[1], sk = kd[2], groups = hq_n / hk_n;
  const float scale = static_cast<float>(p.real("softmax_scale")), cap = static_cast<float>(p.real("softcap"));
  const bool causal = p.integer("causal") != 0;
  const std::int64_t left = p.integer("window_left"), right = p.integer("window_right");
  auto f = [](const Tensor& t, std::int64_t i) { return static_cast<float>(t.value_at(i)); };
  std::vector<float> dq(static_cast<std::size_t>(in[0].numel()), 0.0f), dk(static_cast<std::size_t>(in[1].numel()), 0.0f),
      dv(dk.size(), 0.0f);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t hq = 0; hq < hq_n; ++hq) {
      const std::int64_t kv = (b * hk_n + hq / groups) * sk * d;
      if (df.gqa_overwrite)
        for (std::int64_t i = 0; i < sk * d; ++i) dk[static_cast<std::size_t>(kv + i)] = dv[static_cast<std::size_t>(kv + i)] = 0;
      for (std::int64_t qi = 0; qi < sq; ++qi) {
        const std::int64_t at = ((b * hq_n + hq) * sq + qi) * d;
        std::vector<float> s(static_cast<std::size_t>(sk), -std::numeric_limits<float>::infinity()), pre(s);
        for (std::int64_t kj = 0; kj < sk; ++kj) {
          if ((causal && kj > qi) || (left >= 0 && kj + left < qi) || (right >= 0 && kj > qi + right)) continue;
          float dot = 0;
          for (std::int64_t x = 0; x < d; ++x) dot += f(in[0], at + x) * f(in[1], kv + kj * d + x);
          float v = pre[static_cast<std::size_t>(kj)] = dot * scale;
          if (cap != 0) v = std::tanh(v * (1.0f / cap)) * cap;
          if (in.size() > 4) v += f(in[4], hq) * (static_cast<float>(kj) - static_cast<float>(qi));
          s[static_cast<std::size_t>(kj)] = v;
        }
        float m = -std::numeric_limits<float>::infinity();
        for (float x : s) if (x > m) m = x;
        if (!std::isfinite(m)) continue;
        std::vector<float> pj(s.size()), dp(s.size());
        float sum = 0;
        for (std::size_t j = 0; j < s.size(); ++j)
          sum += (pj[j] = std::isfinite(s[j]) ? (df.exp_degree ? exp_poly(s[j] - m, df.exp_degree) : std::exp(s[j] - m)) : 0.0f);
        const float inv = 1.0f / sum;
        for (auto& x : pj) x = df.divides ? x / sum : x * inv;
        for (std::size_t j = 0; j < s.size(); ++j)
          if (pj[j] != 0)
            for (std::int64_t x = 0; x < d; ++x) dv[static_cast<std::size_t>(kv + static_cast<std::int64_t>(j) * d + x)] += pj[j] * f(in[3], at + x);
        float rd = 0;
        for (std::size_t j = 0; j < s.size(); ++j) {
          float g = 0;
          for (std::int64_t x = 0; x < d; ++x) g += f(in[3], at + x) * f(in[2], kv + static_cast<std::int64_t>(j) * d + x);
          dp[j] = g;
          if (!(df.rd_drops_last && j + 1 == s.size())) rd += pj[j] * g;
        }
        for (std::size_t j = 0; j < s.size(); ++j) {
          float ds = (dp[j] - rd) * pj[j];
          if (cap != 0 && std::isfinite(pre[j]) && !df.no_softcap_grad) {
            const float t = std::tanh(pre[j] * (1.0f / cap));
            ds *= 1.0f - t * t;
          }
          const float g = ds * scale;
          if (g == 0) continue;
          const std::int64_t row = kv + static_cast<std::int64_t>(j) * d;
          for (std::int64_t x = 0; x < d; ++x) {
            float& o = dq[static_cast<std::size_t>(at + x)];
            o = df.dq_rounds_up ? add_rounding_up(o, g * f(in[1], row + x)) : o + g * f(in[1], row + x);
          }
          for (std::int64_t x = 0; x < d; ++x) dk[static_cast<std::size_t>(row + x)] += (df.dk_unscaled ? ds : g) * f(in[0], at + x);
        }
      }
    }
  for (auto [i, v] : {std::pair{0, &dq}, std::pair{1, &dk}, std::pair{2, &dv}})
    for (std::size_t e = 0; e < v->size(); ++e) y[static_cast<std::size_t>(i)].set_bits(static_cast<std::int64_t>(e), double_to_bits(DType::f32, (*v)[e]));
  return y;
}

template <BackwardDefect D>
Outputs with_backward_defect(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return backward_with(kernel, in, p, D);
}

template <Defect D>
Outputs with_defect(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return attention_with(kernel, in, p, D);
}

template <bool DropOffset, Defect D>
Outputs paged_with_defect(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return paged_with(kernel, in, p, DropOffset, D);
}

}  // namespace

void register_attention(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"attention_causal_off_by_one", {"attention_naive"}, {DType::f32}, "accuracy",
       "f32 attention's causal mask lets key qi + 1 through", with_defect<Defect{.causal_slack = 1}>},
      {"attention_alibi_wrong_sign", {"attention_naive"}, {DType::f32}, "accuracy",
       "f32 attention adds slope (qi - kj) instead of slope (kj - qi)", with_defect<Defect{.alibi_reversed = true}>},
      {"attention_gqa_modulo", {"attention_naive"}, {DType::f32}, "accuracy",
       "f32 attention maps query head hq to KV head hq mod Hk instead of hq / (Hq / Hk)",
       with_defect<Defect{.gqa_modulo = true}>},
      {"attention_softcap_after_alibi", {"attention_naive"}, {DType::f32}, "accuracy",
       "f32 attention applies the softcap after ALiBi", with_defect<Defect{.softcap_after_alibi = true}>},
      {"attention_softcap_after_mask", {"attention_naive", "attention_flash"}, {DType::f32}, "accuracy",
       "f32 attention masks before the softcap: a masked score's -inf becomes tanh(-inf / c) c = -c, and the key "
       "gets a weight",
       with_defect<Defect{.softcap_after_mask = true}>},
      {"attention_exp_via_exp2", {"attention_naive", "attention_flash"}, {DType::f32}, "semantics",
       "f32 attention takes e^x as exp2(x log2 e), a fast-math rewrite: its relative error u |x| sits on a weight "
       "e^-|x|, so an output moves by at most about 0.37 u |v|: correct, not the reference's bits",
       with_defect<Defect{.exp_via_exp2 = true}>, "reference", true},
      {"attention_exp_degree5", {"attention_naive", "attention_flash"}, {DType::f32}, "accuracy",
       "f32 attention takes e^x from a degree-5 polynomial after range reduction (2^-18.6 relative, 64 ulps)",
       with_defect<Defect{.exp_degree = 5}>},
      {"attention_paged_no_offset", {"attention_paged_naive"}, {DType::f32}, "accuracy",
       "f32 paged attention places query slot qp at position qp, not max(L - Sq, 0) + qp (the causal offset dropped)",
       paged_with_defect<true, Defect{}>},
      {"attention_paged_rounds_up", {"attention_paged_naive"}, {DType::f32}, "statistics",
       "f32 paged attention rounds each step of O's accumulation upward (biased)",
       paged_with_defect<false, Defect{.rounds_up = true}>},
      {"attention_flash_no_rescale", {"attention_flash"}, {DType::f32}, "accuracy",
       "f32 flash attention does not rescale O by e^(m - m_new) when the maximum moves",
       with_defect<Defect{.no_rescale = true}>},
      {"attention_divides", {"attention_naive"}, {DType::f32}, "semantics",
       "f32 attention takes p_j = e_j / sum instead of e_j (1/sum): correct, not the reference's bits",
       with_defect<Defect{.divides = true}>, "reference", true},
      {"attention_backward_gqa_overwrite", {"attention_flash_backward"}, {DType::f32}, "accuracy",
       "f32 attention backward: each query head overwrites its KV head's dK and dV instead of adding to them",
       with_backward_defect<BackwardDefect{.gqa_overwrite = true}>},
      {"attention_backward_no_softcap_grad", {"attention_flash_backward"}, {DType::f32}, "accuracy",
       "f32 attention backward leaves out the softcap's derivative 1 - tanh^2(s c^-1)",
       with_backward_defect<BackwardDefect{.no_softcap_grad = true}>},
      {"attention_backward_dk_unscaled", {"attention_flash_backward"}, {DType::f32}, "accuracy",
       "f32 attention backward accumulates dK += dS q without the softmax scale",
       with_backward_defect<BackwardDefect{.dk_unscaled = true}>},
      {"attention_backward_rd_drops_last", {"attention_flash_backward"}, {DType::f32}, "accuracy",
       "f32 attention backward's rd = sum_j p_j dP_j leaves out the last key",
       with_backward_defect<BackwardDefect{.rd_drops_last = true}>},
      {"attention_backward_dq_rounds_up", {"attention_flash_backward"}, {DType::f32}, "statistics",
       "f32 attention backward rounds each step of dQ's accumulation upward (biased)",
       with_backward_defect<BackwardDefect{.dq_rounds_up = true}>},
      {"attention_backward_exp_degree4", {"attention_flash_backward"}, {DType::f32}, "accuracy",
       "f32 attention backward recomputes e^x from a degree-4 polynomial (2^-14.5 relative, about 1,400 ulps)",
       with_backward_defect<BackwardDefect{.exp_degree = 4}>},
      {"attention_backward_divides", {"attention_flash_backward"}, {DType::f32}, "semantics",
       "f32 attention backward takes p_j = e_j / sum instead of e_j (1/sum): correct, not the reference's bits",
       with_backward_defect<BackwardDefect{.divides = true}>, "reference", true},
  });
}

}  // namespace kc::mutants
