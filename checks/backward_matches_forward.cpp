// Check "backward_matches_forward": the property's `related` backward
// kernel, given this forward kernel's output y and an upstream gradient g,
// is the vector-Jacobian product of the forward at the same x:
// <g, J dx> = <J^T g, dx> for a direction dx, within the bound
//   |<v, dx> - <g, J(x) dx>| <= sum_i |dx_i| (B_b,i + P_i),
// where v = backward(y, g), J(x) the exact Jacobian at x (MPFR), B_b,i the
// backward entry's bound at (y, g) (v_i within it of J(y)^T g, the exact
// VJP from the rounded y) and P_i how far J(y)^T g lies from J(x)^T g
// because y is the rounded forward (each y_j within the forward's bound
// B_f,j of its exact value):
//   softmax (J^T g = s (g - <s, g>), s = softmax(x)):
//     P_i = B_f,i |g_i - <y, g>| + s_i sum_j B_f,j |g_j|
//   log_softmax (J^T g = g - s sum g, the backward's s = exp(y)):
//     P_i = (e^(z_i + B_f,i) - e^(z_i)) |sum g| = s_i (e^(B_f,i) - 1) |sum g|;
//   layer_norm and rms_norm, whose backwards take x itself: P_i = 0, with
//     J dx of y = (x - mu) r: (dx_i - dmu) r - (x_i - mu) r^3 dv / 2,
//     dmu = sum dx / N, dv = (2/N) sum (x_j - mu)(dx_j - dmu); of y = x r:
//     dx_i r - x_i r^3 dq / 2, dq = (2/N) sum x_j dx_j (N = T(n), E = T(eps)
//     as the kernels use them: their backwards are the VJP where N = n).
// g and dx are small integers (exact in every dtype, varied by position).
// Rows whose input, output or backward result is not finite are not
// compared (the identity is about finite values).
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"
#include "oracles/rounding.h"

namespace kc::checks {

namespace {

using oracle::Mp;

// The row map, as the entry declares it (KernelSpec::row_map).
using Form = contract::RowMap;
bool is_norm(Form f) { return f == Form::layer_norm || f == Form::rms_norm; }

// <g, J dx> of a norm at the row x, exactly (at the scope's precision).
Mp norm_jvp(Form f, DType t, double eps, std::span<const double> x, std::span<const double> g, std::span<const double> dx) {
  const std::size_t n = x.size();
  const Mp nn(oracle::num_cast(t, static_cast<double>(n))), ee(oracle::num_cast(t, eps));
  Mp mu(0), dmu(0), spread(0), dspread(0);
  if (f == Form::layer_norm) {
    for (std::size_t j = 0; j < n; ++j) mu += Mp(x[j]), dmu += Mp(dx[j]);
    mu /= nn, dmu /= nn;
  }
  for (std::size_t j = 0; j < n; ++j) {
    const Mp d = Mp(x[j]) - mu;
    spread += d * d;
    dspread += Mp(2) * d * (Mp(dx[j]) - dmu);
  }
  spread /= nn, dspread /= nn;
  const Mp r = Mp(1) / boost::multiprecision::sqrt(spread + ee);
  Mp lhs(0);
  for (std::size_t j = 0; j < n; ++j)
    lhs += Mp(g[j]) * ((Mp(dx[j]) - dmu) * r - (Mp(x[j]) - mu) * r * r * r * dspread / Mp(2));
  return lhs;
}

double g_at(std::int64_t i) { return static_cast<double>((i * 5 + 2) % 7 - 3); }
double dx_at(std::int64_t i) { return static_cast<double>((i * 3 + 1) % 5 - 2); }

// A norm's row at `at` (n elements) compared: <v, dx> against <g, J dx> of
// the exact forward at x, within sum |dx_i| B_b,i (P_i = 0: the backward
// takes x); skipped where a backward bound is not a number.
template <class Compare>
void compare_norm_row(Form form, const contract::KernelSpec& bwd, DType t, const Params& params, std::int64_t at,
                      std::size_t un, const std::vector<double>& xr, const std::vector<double>& gr,
                      const std::vector<double>& vr, const Compare& compare) {
  std::vector<double> dxr(un);
  Mp rhs_n(0), bound_n(0);
  RowOracle backward(t, params, xr, gr);  // (one Row for the row's elements: its row work once)
  for (std::size_t j = 0; j < un; ++j) {
    dxr[j] = dx_at(at + static_cast<std::int64_t>(j));
    const RowExact b = backward.at(bwd, j);
    if (!oracle::is_number(b.bound)) return;
    rhs_n += Mp(vr[j]) * Mp(dxr[j]);
    bound_n += Mp(std::fabs(dxr[j])) * b.bound;
  }
  const double eps = params.has("eps") ? params.real("eps") : 0.0;
  compare(at, rhs_n, norm_jvp(form, t, eps, xr, gr, dxr), bound_n);
}

// A softmax's (or log_softmax's) row at `at` (n elements) compared: <v,
// dx> against <g, J dx> of the exact forward at x, within sum |dx_i|
// (B_b,i + P_i); skipped where a forward or backward bound is not a
// number.
template <class Compare>
void compare_softmax_row(Form form, const CaseView& v, const contract::KernelSpec& bwd, DType t,
                         std::int64_t at, std::size_t un,
                         const std::vector<double>& yr, const std::vector<double>& gr, const std::vector<double>& vr,
                         const Compare& compare) {
  std::vector<Mp> s(un), zl(un), bf(un), bb(un);
  Mp sd(0), yg(0), gsum(0), rhs(0), gdx(0), sum_bf_g(0);
  const Params none;
  RowOracle backward(t, none, yr, gr);  // (one Row for the row's elements: its row work once)
  for (std::size_t j = 0; j < un; ++j) {
    const std::optional<RowExact> gf = graded_row_exact(v, at + static_cast<std::int64_t>(j));  // (the forward's own, as graded)
    if (!gf) return;
    const RowExact& f = *gf;
    const RowExact b = backward.at(bwd, j);
    if (!oracle::is_number(f.bound) || !oracle::is_number(b.bound)) return;
    s[j] = zl[j] = f.z;
    if (form == Form::log_softmax) mpfr_exp(oracle::raw(s[j]), oracle::raw(s[j]), MPFR_RNDN);
    bf[j] = f.bound, bb[j] = b.bound;
    const double dx = dx_at(at + static_cast<std::int64_t>(j));
    sd += s[j] * Mp(dx);
    yg += Mp(yr[j]) * Mp(gr[j]);
    gsum += Mp(gr[j]);
    gdx += Mp(gr[j]) * Mp(dx);
    rhs += Mp(vr[j]) * Mp(dx);
    sum_bf_g += bf[j] * Mp(std::fabs(gr[j]));
  }
  Mp lhs(0), bound(0);
  for (std::size_t j = 0; j < un; ++j) {
    const double dx = dx_at(at + static_cast<std::int64_t>(j));
    Mp p;
    if (form == Form::softmax) {
      lhs += Mp(gr[j]) * s[j] * (Mp(dx) - sd);
      p = bf[j] * boost::multiprecision::abs(Mp(gr[j]) - yg) + s[j] * sum_bf_g;
    } else {
      // exp(z + B_f) - exp(z): s_i (e^B_f - 1) without 0 * inf where s_i underflows
      Mp top = zl[j] + bf[j];
      mpfr_exp(oracle::raw(top), oracle::raw(top), MPFR_RNDU);
      p = (top - s[j]) * boost::multiprecision::abs(gsum);
    }
    bound += Mp(std::fabs(dx)) * (bb[j] + p);
  }
  if (form == Form::log_softmax) lhs = gdx - gsum * sd;
  compare(at, rhs, lhs, bound);
}

class BackwardMatchesForward final : public Check {
 public:
  explicit BackwardMatchesForward(const contract::Property& p) : p_(p) {}
  // (A softmax's own elements: their exact values as grading evaluated
  // them; a norm's relation reads only the backward's.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t) && !is_norm(v.c.k.row_map); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Form form = v.c.k.row_map;
      const contract::KernelSpec* bwd = contract::find_kernel(p_.related);
      if (!bwd) throw std::logic_error("backward_matches_forward: no contract for " + std::string(p_.related));
      const Tensor& x = v.cs.inputs.at(0);
      Tensor g(v.c.t, x.dims());
      for (std::int64_t i = 0; i < g.numel(); ++i) g.set_bits(i, double_to_bits(v.c.t, g_at(i)));
      // (softmax's backwards take the forward's output, the norms' x itself and eps)
      const bool norm = is_norm(form);
      const Tensor vjp = v.c.backend.run(p_.related, std::vector<Tensor>{norm ? x : v.y, g}, norm ? v.cs.params : Params()).at(0);
      if (vjp.dims() != x.dims())
        return fail(fmt::format("{} gave {} for inputs of {}", p_.related, dims_to_string(vjp.dims()), dims_to_string(x.dims())));
      std::vector<double> xr, yr, gr, vr;
      std::int64_t compared = 0;
      bool failed = false;
      const auto compare = [&](std::int64_t at, const Mp& rhs, const Mp& lhs, const Mp& bound) {
        const Mp off = boost::multiprecision::abs(rhs - lhs);
        ++compared;
        if (off <= bound) return;
        failed = true;
        fail(fmt::format("row at output {}: <{}(.., g), dx> = {:.17g}, but <g, J dx> of the exact forward = {:.17g}: "
                         "{:.6g} apart, beyond the bound {:.6g} (g_i = (5i + 2) mod 7 - 3, dx_i = (3i + 1) mod 5 - 2)",
                         at, p_.related, rhs.convert_to<double>(), lhs.convert_to<double>(), off.convert_to<double>(),
                         bound.convert_to<double>()));
      };
      for_each_row(x, [&](std::int64_t at, std::int64_t n) {
        if (failed || !row_values(x, at, n, xr) || !row_values(v.y, at, n, yr) || !row_values(vjp, at, n, vr)) return;
        row_values(g, at, n, gr);
        const auto un = static_cast<std::size_t>(n);
        oracle::PrecisionScope scope(1024);
        if (norm) compare_norm_row(form, *bwd, v.c.t, v.cs.params, at, un, xr, gr, vr, compare);
        else compare_softmax_row(form, v, *bwd, v.c.t, at, un, yr, gr, vr, compare);
      });
      if (!failed && compared > 0) acc.record(v.c, tally, true);
    });
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_backward_matches_forward(Registry& r) {
  r.push_back({.name = "backward_matches_forward",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.row_map == Form::none)
                   return "knows the Jacobians of the row maps softmax, log_softmax, layer_norm and rms_norm only "
                          "(the entry's row_map)";
                 const contract::KernelSpec* b = p.related.empty() ? nullptr : contract::find_kernel(p.related);
                 if (!b || !b->math.takes<oracle::Row>()) return "names no backward kernel with a Row oracle (`related`)";
                 return "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<BackwardMatchesForward>(*p); }});
}

}  // namespace kc::checks
