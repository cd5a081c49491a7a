#include "drivers/index_maps.h"

namespace kc::drivers {

namespace {

// Coordinates of flat index `o` in dims `d` (innermost axis varies fastest).
std::vector<std::int64_t> coordinates(const Dims& d, std::int64_t o) {
  std::vector<std::int64_t> c(d.size(), 0);
  for (std::size_t k = d.size(); k-- > 0;) {
    if (d[k] == 0) return c;
    c[k] = o % d[k];
    o /= d[k];
  }
  return c;
}

// Flat index of coordinates `c` in dims `d`.
std::int64_t flat(const Dims& d, const std::vector<std::int64_t>& c) {
  std::int64_t o = 0;
  for (std::size_t k = 0; k < d.size(); ++k) o = o * d[k] + c[k];
  return o;
}

}  // namespace

std::optional<Dims> broadcast_of(const Dims& a, const Dims& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Dims out(r, 1);
  for (std::size_t back = 1; back <= r; ++back) {
    const std::int64_t da = back <= a.size() ? a[a.size() - back] : 1;
    const std::int64_t db = back <= b.size() ? b[b.size() - back] : 1;
    std::int64_t& o = out[r - back];
    if (da == db) o = da;
    else if (da == 1) o = db;
    else if (db == 1) o = da;
    else return std::nullopt;
  }
  return out;
}

bool only_leading_ones_added(const Dims& source, const Dims& target) {
  if (target.size() < source.size()) return false;
  const std::size_t lead = target.size() - source.size();
  for (std::size_t k = 0; k < target.size(); ++k) {
    if (k < lead ? target[k] != 1 : target[k] != source[k - lead]) return false;
  }
  return true;
}

std::int64_t source_of(const Dims& src, const Dims& out, std::int64_t o) {
  const std::vector<std::int64_t> oc = coordinates(out, o);
  std::vector<std::int64_t> sc(src.size(), 0);
  const std::size_t lead = out.size() - src.size();
  for (std::size_t k = 0; k < src.size(); ++k) sc[k] = src[k] == 1 ? 0 : oc[k + lead];
  return flat(src, sc);
}

Dims without_dim(const Dims& d, std::size_t dim) {
  Dims out;
  for (std::size_t k = 0; k < d.size(); ++k)
    if (k != dim) out.push_back(d[k]);
  return out;
}

std::vector<std::int64_t> along_dim(const Dims& d, std::size_t dim, std::int64_t o) {
  const Dims out = without_dim(d, dim);
  const std::vector<std::int64_t> oc = coordinates(out, o);
  std::vector<std::int64_t> c(d.size(), 0), idx;
  for (std::size_t k = 0, j = 0; k < d.size(); ++k)
    if (k != dim) c[k] = oc[j++];
  for (std::int64_t i = 0; i < d[dim]; ++i) {
    c[dim] = i;
    idx.push_back(flat(d, c));
  }
  return idx;
}

Cells cells_of(const Dims& src, const Dims& target) {
  std::int64_t n_src = 1, n_cells = 1;
  for (std::int64_t v : src) n_src *= v;
  for (std::int64_t v : target) n_cells *= v;
  Cells c;
  c.members.resize(static_cast<std::size_t>(n_cells));
  c.cell_of.resize(static_cast<std::size_t>(n_src));
  const std::size_t lead = src.size() - target.size();
  std::vector<std::int64_t> tc(target.size(), 0);
  for (std::int64_t i = 0; i < n_src; ++i) {
    const std::vector<std::int64_t> sc = coordinates(src, i);
    for (std::size_t k = 0; k < target.size(); ++k) tc[k] = target[k] == 1 ? 0 : sc[k + lead];
    const std::int64_t cell = flat(target, tc);
    c.members[static_cast<std::size_t>(cell)].push_back(i);
    c.cell_of[static_cast<std::size_t>(i)] = cell;
  }
  return c;
}

Dims permuted_dims(const Dims& in, const std::vector<std::int64_t>& axes) {
  Dims out;
  for (std::int64_t a : axes) out.push_back(in[static_cast<std::size_t>(a)]);
  return out;
}

std::int64_t permuted_source(const Dims& in, const std::vector<std::int64_t>& axes, std::int64_t o) {
  const std::vector<std::int64_t> oc = coordinates(permuted_dims(in, axes), o);
  std::vector<std::int64_t> ic(in.size(), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) ic[static_cast<std::size_t>(axes[i])] = oc[i];
  return flat(in, ic);
}

std::vector<std::int64_t> last_two_swapped(std::size_t rank) {
  std::vector<std::int64_t> axes(rank);
  for (std::size_t i = 0; i < rank; ++i) axes[i] = static_cast<std::int64_t>(i);
  if (rank >= 2) std::swap(axes[rank - 2], axes[rank - 1]);
  return axes;
}

}  // namespace kc::drivers
