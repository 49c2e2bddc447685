// gbc-reduce: reduces GBEES grids (gbees-cuda snapshots, pk-gbees checkpoints) at one time to
// what compare.py needs, so that millions of cells need not leave the GPU machine.
//
//   gbc-reduce OUT.json LABEL=SPEC [LABEL=SPEC ...] [--mean m1,..] [--h h1,..] [--std s1,..]
//              [--extent 3] [--threshold p]
//
// SPEC is one of
//   gbin:FILE  a gbees-cuda snapshot in the binary format of the patched copy (results/format-bin.txt)
//   gtxt:FILE  a gbees-cuda snapshot in its own text format (results/format.txt; needs --mean, --h)
//   ck:FILE    a pk-gbees checkpoint (pk/core/checkpoint.hpp: keys and probabilities of every cell)
//   box        the initial box as both codes make it: exp(-|z|^2/2) at the cell centres within
//              +-round(extent std/h) cells, normalised (needs --h, --std; time 0)
// Cells are matched by their integer index i (x = mean + h i). Writes one JSON object: per grid
// its cell count, total, the cells and mass at or above p*, per-axis mean and std, the 1-D
// marginals (index, mass) on every axis and the 2-D ones of axes (1,2), (1,3), (2,3), (4,5);
// per pair of grids the cells in both / in one only, sum |p_a - p_b| and BC over the union
// (each grid normalised to 1), the same over the cells at or above p* of each (renormalised),
// and the BC of every 1-D and 2-D marginal. Build: g++ -O2 -std=c++17 -static gbc-reduce.cpp.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Grid {
  std::string label, spec, kind;
  int n = 0;
  double time = 0;
  double threshold = -1;
  std::vector<double> center, h;
  std::vector<std::int32_t> key;  // cell c, axis d at c * n + d
  std::vector<double> p;
  double key_residual = 0;  // max |(x - center)/h - round(.)| (gbees-cuda)
  std::size_t size() const { return p.size(); }
};

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::strtod(item.c_str(), nullptr));
  return v;
}

std::vector<char> read_all(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot open " + path);
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  std::vector<char> data(static_cast<std::size_t>(size));
  if (size > 0 && std::fread(data.data(), 1, data.size(), f) != data.size()) fail("cannot read " + path);
  std::fclose(f);
  return data;
}

void keys_from_positions(Grid& g, const std::vector<double>& x) {  // x: cell c, axis d at c * n + d
  g.key.resize(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    const int d = static_cast<int>(k % g.n);
    const double u = (x[k] - g.center[d]) / g.h[d];
    const double r = std::round(u);
    g.key[k] = static_cast<std::int32_t>(r);
    g.key_residual = std::max(g.key_residual, std::fabs(u - r));
  }
}

Grid read_gbees_bin(const std::string& path) {
  const std::vector<char> data = read_all(path);
  if (data.size() < 32 || std::memcmp(data.data(), "GBCBIN1", 8) != 0) fail(path + ": not a GBCBIN1 file");
  Grid g;
  g.kind = "gbees-cuda";
  std::size_t at = 8;
  auto get = [&](void* dst, std::size_t bytes) {
    if (at + bytes > data.size()) fail(path + ": truncated");
    std::memcpy(dst, data.data() + at, bytes);
    at += bytes;
  };
  std::int32_t dims[2];
  get(dims, 8);
  g.n = dims[0];
  if (g.n < 1 || g.n > 8) fail(path + ": bad dimension");
  get(&g.time, 8);
  std::uint64_t count = 0;
  get(&count, 8);
  g.center.resize(g.n);
  g.h.resize(g.n);
  get(g.center.data(), 8 * g.n);
  get(g.h.data(), 8 * g.n);
  get(&g.threshold, 8);
  if (data.size() - at != count * 8 * (g.n + 1)) fail(path + ": size does not match its cell count");
  std::vector<double> x(count * g.n);
  g.p.resize(count);
  std::vector<double> row(g.n + 1);
  for (std::uint64_t c = 0; c < count; ++c) {
    std::memcpy(row.data(), data.data() + at + c * 8 * (g.n + 1), 8 * (g.n + 1));
    g.p[c] = row[0];
    for (int d = 0; d < g.n; ++d) x[c * g.n + d] = row[1 + d];
  }
  keys_from_positions(g, x);
  return g;
}

Grid read_gbees_txt(const std::string& path, const std::vector<double>& mean, const std::vector<double>& h,
                    double threshold) {
  if (mean.empty() || h.empty()) fail(path + ": a text snapshot needs --mean and --h");
  std::ifstream in(path);
  if (!in) fail("cannot open " + path);
  Grid g;
  g.kind = "gbees-cuda";
  g.n = static_cast<int>(mean.size());
  g.center = mean;
  g.h = h;
  g.threshold = threshold;
  std::string line;
  if (!std::getline(in, line)) fail(path + ": empty");
  g.time = std::strtod(line.c_str(), nullptr);
  std::vector<double> x;
  while (std::getline(in, line)) {
    const char* s = line.c_str();
    char* end = nullptr;
    const double p = std::strtod(s, &end);
    if (end == s) continue;  // blank line
    g.p.push_back(p);
    for (int d = 0; d < g.n; ++d) {
      s = end;
      x.push_back(std::strtod(s, &end));
      if (end == s) fail(path + ": a line with fewer than " + std::to_string(g.n + 1) + " values");
    }
  }
  keys_from_positions(g, x);
  return g;
}

Grid read_checkpoint(const std::string& path) {
  const std::vector<char> data = read_all(path);
  Grid g;
  g.kind = "pk-gbees";
  std::size_t at = 0;
  std::vector<std::pair<std::string, std::uint64_t>> sections;
  std::int64_t cells = -1, members = 0;
  bool ended = false;
  while (at < data.size() && !ended) {
    const char* begin = data.data() + at;
    const void* nl = std::memchr(begin, '\n', data.size() - at);
    if (!nl) fail(path + ": header not terminated");
    const std::string line(begin, static_cast<const char*>(nl));
    at += line.size() + 1;
    std::istringstream ls(line);
    std::string a, b, c;
    ls >> a >> b;
    if (a == "header-crc32") ended = true;
    if (a == "option") {
      std::getline(ls, c);
      c.erase(0, c.find_first_not_of(' '));
      if (b == "mean") g.center = parse_list(c);
      if (b == "h") g.h = parse_list(c);
      if (b == "threshold") g.threshold = std::strtod(c.c_str(), nullptr);
      if (b == "ensemble") members = std::strtoll(c.c_str(), nullptr, 10);
    } else if (a == "value") {
      ls >> c;
      if (b == "time") g.time = std::strtod(c.c_str(), nullptr);  // hexadecimal floats
      if (b == "cells") cells = std::strtoll(c.c_str(), nullptr, 10);
    } else if (a == "section") {
      ls >> c;
      sections.emplace_back(b, std::strtoull(c.c_str(), nullptr, 10));
    } else if (a == "program" && b != "pk-gbees") {
      fail(path + ": a checkpoint of " + b + ", not pk-gbees");
    }
  }
  if (!ended || cells < 0 || g.h.empty() || g.center.size() != g.h.size()) fail(path + ": not a pk-gbees checkpoint");
  if (members > 1) fail(path + ": an ensemble's checkpoint");
  g.n = static_cast<int>(g.h.size());
  std::size_t key_at = 0, p_at = 0, offset = at;
  bool have_key = false, have_p = false;
  for (const auto& s : sections) {
    if (s.first == "key") key_at = offset, have_key = true;
    if (s.first == "probability") p_at = offset, have_p = true;
    offset += s.second;
  }
  if (!have_key || !have_p || offset != data.size()) fail(path + ": sections do not match the file");
  const int bits = 64 / g.n;
  const std::int64_t bias = std::int64_t(1) << (bits - 1);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
  g.p.resize(cells);
  g.key.resize(cells * g.n);
  for (std::int64_t c = 0; c < cells; ++c) {
    std::uint64_t k;
    std::memcpy(&k, data.data() + key_at + 8 * c, 8);
    std::memcpy(&g.p[c], data.data() + p_at + 8 * c, 8);
    for (int d = 0; d < g.n; ++d)
      g.key[c * g.n + d] = static_cast<std::int32_t>(static_cast<std::int64_t>((k >> (d * bits)) & mask) - bias);
  }
  return g;
}

Grid initial_box(const std::vector<double>& mean, const std::vector<double>& h, const std::vector<double>& std_,
                 double extent, double threshold) {
  if (h.empty() || std_.size() != h.size()) fail("box needs --h and --std");
  Grid g;
  g.kind = "initial box";
  g.n = static_cast<int>(h.size());
  g.center = mean.empty() ? std::vector<double>(g.n, 0.0) : mean;
  g.h = h;
  g.threshold = threshold;
  std::vector<int> half(g.n);
  std::size_t count = 1;
  for (int d = 0; d < g.n; ++d) {
    half[d] = static_cast<int>(std::lround(extent * std_[d] / h[d]));
    count *= 2 * half[d] + 1;
  }
  g.p.resize(count);
  g.key.resize(count * g.n);
  std::vector<int> i(g.n);
  for (int d = 0; d < g.n; ++d) i[d] = -half[d];
  double total = 0;
  for (std::size_t c = 0; c < count; ++c) {
    double z2 = 0;
    for (int d = 0; d < g.n; ++d) {
      const double z = h[d] * i[d] / std_[d];
      z2 += z * z;
      g.key[c * g.n + d] = i[d];
    }
    g.p[c] = std::exp(-0.5 * z2);
    total += g.p[c];
    for (int d = g.n - 1; d >= 0; --d) {  // the last axis fastest
      if (++i[d] <= half[d]) break;
      i[d] = -half[d];
    }
  }
  for (double& q : g.p) q /= total;
  return g;
}

// Keys packed into 64 bits relative to the smallest index on each axis over all grids.
struct Packer {
  std::vector<std::int32_t> lo;
  std::vector<int> shift;
  std::uint64_t pack(const std::int32_t* k) const {
    std::uint64_t v = 0;
    for (std::size_t d = 0; d < lo.size(); ++d) v |= static_cast<std::uint64_t>(k[d] - lo[d]) << shift[d];
    return v;
  }
};

struct Sorted {
  std::vector<std::uint64_t> key;
  std::vector<double> p;
};

Sorted sorted_cells(const Grid& g, const Packer& pk, bool above_only) {
  std::vector<std::pair<std::uint64_t, double>> v;
  v.reserve(g.size());
  double total = 0;
  for (std::size_t c = 0; c < g.size(); ++c) {
    if (above_only && !(g.p[c] >= g.threshold)) continue;
    v.emplace_back(pk.pack(&g.key[c * g.n]), g.p[c]);
    total += g.p[c];
  }
  std::sort(v.begin(), v.end());
  Sorted s;
  s.key.reserve(v.size());
  s.p.reserve(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (!s.key.empty() && s.key.back() == v[k].first) {  // a duplicate cell (should not happen)
      s.p.back() += v[k].second / total;
      continue;
    }
    s.key.push_back(v[k].first);
    s.p.push_back(total > 0 ? v[k].second / total : 0.0);
  }
  return s;
}

struct CellComparison {
  std::size_t both = 0, only_a = 0, only_b = 0, duplicates_a = 0, duplicates_b = 0;
  double mass_only_a = 0, mass_only_b = 0, l1 = 0, bc = 0, max_abs = 0;
};

CellComparison compare_cells(const Sorted& a, const Sorted& b) {
  CellComparison r;
  std::size_t i = 0, j = 0;
  while (i < a.key.size() || j < b.key.size()) {
    if (j == b.key.size() || (i < a.key.size() && a.key[i] < b.key[j])) {
      ++r.only_a;
      r.mass_only_a += a.p[i];
      r.l1 += a.p[i];
      r.max_abs = std::max(r.max_abs, a.p[i]);
      ++i;
    } else if (i == a.key.size() || b.key[j] < a.key[i]) {
      ++r.only_b;
      r.mass_only_b += b.p[j];
      r.l1 += b.p[j];
      r.max_abs = std::max(r.max_abs, b.p[j]);
      ++j;
    } else {
      ++r.both;
      const double d = std::fabs(a.p[i] - b.p[j]);
      r.l1 += d;
      r.max_abs = std::max(r.max_abs, d);
      r.bc += std::sqrt(a.p[i] * b.p[j]);
      ++i;
      ++j;
    }
  }
  return r;
}

// Dense marginals over the common index ranges.
struct Marginals {
  std::vector<std::vector<double>> one;  // [axis][i - lo]
  std::vector<std::vector<double>> two;  // [pair][(i - lo_a) * range_b + (j - lo_b)], empty if too large
};

std::vector<std::pair<int, int>> all_pairs(int n) {
  std::vector<std::pair<int, int>> v;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) v.emplace_back(a, b);
  return v;
}

Marginals marginals(const Grid& g, const std::vector<std::int32_t>& lo, const std::vector<std::int32_t>& range) {
  Marginals m;
  const int n = g.n;
  const auto pairs = all_pairs(n);
  m.one.resize(n);
  for (int d = 0; d < n; ++d) m.one[d].assign(range[d], 0.0);
  m.two.resize(pairs.size());
  for (std::size_t q = 0; q < pairs.size(); ++q) {
    const double cells = double(range[pairs[q].first]) * range[pairs[q].second];
    if (cells <= 16e6) m.two[q].assign(static_cast<std::size_t>(cells), 0.0);
  }
  double total = 0;
  for (double q : g.p) total += q;
  for (std::size_t c = 0; c < g.size(); ++c) {
    const std::int32_t* k = &g.key[c * n];
    const double q = g.p[c] / total;
    for (int d = 0; d < n; ++d) m.one[d][k[d] - lo[d]] += q;
    for (std::size_t s = 0; s < pairs.size(); ++s) {
      if (m.two[s].empty()) continue;
      const int a = pairs[s].first, b = pairs[s].second;
      m.two[s][static_cast<std::size_t>(k[a] - lo[a]) * range[b] + (k[b] - lo[b])] += q;
    }
  }
  return m;
}

double bc(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return NAN;
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::sqrt(a[i] * b[i]);
  return s;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
std::string num9(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
template <class T, class F>
std::string list(const std::vector<T>& v, F f) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + f(v[i]);
  return s + "]";
}
std::string quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 3) {
      std::fprintf(stderr,
                   "usage: gbc-reduce OUT.json LABEL=gbin:FILE|gtxt:FILE|ck:FILE|box ... [--mean m,..] [--h h,..] "
                   "[--std s,..] [--extent 3] [--threshold p]\n");
      return 2;
    }
    const std::string out_path = argv[1];
    std::vector<std::pair<std::string, std::string>> specs;
    std::vector<double> mean, h, std_;
    double extent = 3, threshold = -1;
    for (int a = 2; a < argc; ++a) {
      const std::string s = argv[a];
      auto value = [&]() -> std::string {
        if (a + 1 >= argc) fail(s + " needs a value");
        return argv[++a];
      };
      if (s == "--mean")
        mean = parse_list(value());
      else if (s == "--h")
        h = parse_list(value());
      else if (s == "--std")
        std_ = parse_list(value());
      else if (s == "--extent")
        extent = std::strtod(value().c_str(), nullptr);
      else if (s == "--threshold")
        threshold = std::strtod(value().c_str(), nullptr);
      else {
        const auto eq = s.find('=');
        if (eq == std::string::npos) fail("not LABEL=SPEC: " + s);
        specs.emplace_back(s.substr(0, eq), s.substr(eq + 1));
      }
    }
    std::vector<Grid> grids;
    for (const auto& [label, spec] : specs) {
      Grid g;
      if (spec.rfind("gbin:", 0) == 0)
        g = read_gbees_bin(spec.substr(5));
      else if (spec.rfind("gtxt:", 0) == 0)
        g = read_gbees_txt(spec.substr(5), mean, h, threshold);
      else if (spec.rfind("ck:", 0) == 0)
        g = read_checkpoint(spec.substr(3));
      else if (spec == "box")
        g = initial_box(mean, h, std_, extent, threshold);
      else
        fail("unknown SPEC " + spec);
      g.label = label;
      g.spec = spec;
      if (g.size() == 0) {  // e.g. a snapshot gbees-cuda never took (its grid overflowed)
        std::fprintf(stderr, "gbc-reduce: %s = %s holds no cell: left out\n", label.c_str(), spec.c_str());
        continue;
      }
      if (threshold > 0 && g.threshold < 0) g.threshold = threshold;
      if (!grids.empty() && g.n != grids[0].n) fail(label + ": another dimension");
      std::fprintf(stderr, "gbc-reduce: %s = %s: t %.6f, %zu cells\n", label.c_str(), spec.c_str(), g.time, g.size());
      grids.push_back(std::move(g));
    }
    if (grids.empty()) fail("no grid");
    const int n = grids[0].n;
    std::vector<std::int32_t> lo(n, INT32_MAX), hi(n, INT32_MIN);
    for (const Grid& g : grids)
      for (std::size_t c = 0; c < g.size(); ++c)
        for (int d = 0; d < n; ++d) {
          lo[d] = std::min(lo[d], g.key[c * n + d]);
          hi[d] = std::max(hi[d], g.key[c * n + d]);
        }
    std::vector<std::int32_t> range(n);
    Packer packer;
    packer.lo = lo;
    int bits = 0;
    for (int d = 0; d < n; ++d) {
      range[d] = hi[d] >= lo[d] ? hi[d] - lo[d] + 1 : 1;
      int b = 1;
      while ((std::int64_t(1) << b) < range[d]) ++b;
      packer.shift.push_back(bits);
      bits += b;
    }
    if (bits > 64) fail("the grids' index ranges need " + std::to_string(bits) + " bits to pack");
    std::vector<Marginals> m;
    for (const Grid& g : grids) m.push_back(marginals(g, lo, range));
    const auto pairs = all_pairs(n);
    const std::vector<std::pair<int, int>> written = {{0, 1}, {0, 2}, {1, 2}, {3, 4}};

    std::string o = "{\"format\":\"gbc-reduced 1\",\"dimension\":" + std::to_string(n) +
                    ",\"index_lo\":" + list(lo, [](std::int32_t v) { return std::to_string(v); }) + ",\"grids\":[";
    for (std::size_t k = 0; k < grids.size(); ++k) {
      const Grid& g = grids[k];
      double total = 0, above_mass = 0;
      std::size_t above = 0;
      for (double q : g.p) {
        total += q;
        if (q >= g.threshold) ++above, above_mass += q;
      }
      std::vector<double> mu(n, 0.0), sd(n, 0.0);
      for (std::size_t c = 0; c < g.size(); ++c)
        for (int d = 0; d < n; ++d) mu[d] += g.p[c] / total * g.key[c * n + d];
      for (std::size_t c = 0; c < g.size(); ++c)
        for (int d = 0; d < n; ++d) sd[d] += g.p[c] / total * std::pow(g.key[c * n + d] - mu[d], 2);
      for (double& s : sd) s = std::sqrt(s);
      o += std::string(k ? "," : "") + "{\"label\":" + quote(g.label) + ",\"source\":" + quote(g.spec) +
           ",\"kind\":" + quote(g.kind) + ",\"time\":" + num(g.time) + ",\"cells\":" + std::to_string(g.size()) +
           ",\"total\":" + num(total) + ",\"threshold\":" + num(g.threshold) +
           ",\"above_cells\":" + std::to_string(above) + ",\"above_mass\":" + num(above_mass) +
           ",\"center\":" + list(g.center, num) + ",\"h\":" + list(g.h, num) +
           ",\"key_residual\":" + num(g.key_residual) + ",\"mean_index\":" + list(mu, num) +
           ",\"std_index\":" + list(sd, num) + ",\"marginal1\":[";
      for (int d = 0; d < n; ++d) {
        std::vector<std::int32_t> idx;
        std::vector<double> mass;
        for (std::int32_t i = 0; i < range[d]; ++i)
          if (m[k].one[d][i] > 0) idx.push_back(i + lo[d]), mass.push_back(m[k].one[d][i]);
        o += std::string(d ? "," : "") + "{\"axis\":" + std::to_string(d) +
             ",\"index\":" + list(idx, [](std::int32_t v) { return std::to_string(v); }) +
             ",\"mass\":" + list(mass, num) + "}";
      }
      o += "],\"marginal2\":[";
      bool first = true;
      for (const auto& w : written) {
        if (w.second >= n) continue;
        const std::size_t q = std::find(pairs.begin(), pairs.end(), w) - pairs.begin();
        if (m[k].two[q].empty()) continue;
        std::vector<std::int32_t> ii, jj;
        std::vector<double> mass;
        for (std::int32_t i = 0; i < range[w.first]; ++i)
          for (std::int32_t j = 0; j < range[w.second]; ++j) {
            const double v = m[k].two[q][static_cast<std::size_t>(i) * range[w.second] + j];
            if (v > 0) ii.push_back(i + lo[w.first]), jj.push_back(j + lo[w.second]), mass.push_back(v);
          }
        const auto str = [](std::int32_t v) { return std::to_string(v); };
        o += std::string(first ? "" : ",") + "{\"axes\":[" + std::to_string(w.first) + "," + std::to_string(w.second) +
             "],\"i\":" + list(ii, str) + ",\"j\":" + list(jj, str) + ",\"mass\":" + list(mass, num9) + "}";
        first = false;
      }
      o += "]}";
    }
    o += "],\"pairs\":[";
    bool first_pair = true;
    for (std::size_t a = 0; a < grids.size(); ++a)
      for (std::size_t b = a + 1; b < grids.size(); ++b) {
        const auto cells = [&](bool above) {
          const CellComparison c =
              compare_cells(sorted_cells(grids[a], packer, above), sorted_cells(grids[b], packer, above));
          return "{\"both\":" + std::to_string(c.both) + ",\"only_a\":" + std::to_string(c.only_a) +
                 ",\"only_b\":" + std::to_string(c.only_b) + ",\"mass_only_a\":" + num(c.mass_only_a) +
                 ",\"mass_only_b\":" + num(c.mass_only_b) + ",\"l1\":" + num(c.l1) + ",\"bc\":" + num(c.bc) +
                 ",\"max_abs\":" + num(c.max_abs) + "}";
        };
        std::vector<double> bc1, bc2;
        for (int d = 0; d < n; ++d) bc1.push_back(bc(m[a].one[d], m[b].one[d]));
        for (std::size_t q = 0; q < pairs.size(); ++q) bc2.push_back(bc(m[a].two[q], m[b].two[q]));
        std::vector<std::string> names;
        for (const auto& q : pairs)
          names.push_back("x" + std::to_string(q.first + 1) + "x" + std::to_string(q.second + 1));
        o += std::string(first_pair ? "" : ",") + "{\"a\":" + quote(grids[a].label) +
             ",\"b\":" + quote(grids[b].label) + ",\"cells\":" + cells(false) + ",\"cells_above\":" + cells(true) +
             ",\"marginal1_bc\":" + list(bc1, num) + ",\"marginal2_names\":" + list(names, quote) +
             ",\"marginal2_bc\":" + list(bc2, num) + "}";
        first_pair = false;
      }
    o += "]}\n";
    std::FILE* f = std::fopen(out_path.c_str(), "w");
    if (!f || std::fwrite(o.data(), 1, o.size(), f) != o.size() || std::fclose(f) != 0)
      fail("cannot write " + out_path);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gbc-reduce: %s\n", e.what());
    return 1;
  }
}
