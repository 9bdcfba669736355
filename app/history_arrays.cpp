// SPDX-License-Identifier: MIT
// Packing, compressing and restoring the large arrays of a history run.
//
// Layout (little-endian): "KLHA", u32 version, u32 entries; each entry: u32 run, u32 variant,
// u8 field, u8 columns, u64 elements (neighbour lists: then u32 k); each column: u8 width (1, 2,
// 4, 8 bytes per value, or kFloat), i64 base (values are stored minus it), u64 compressed bytes,
// then qCompress's output.
#include "history_arrays.h"

#include <QCoreApplication>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "kernellab/knn.h"

namespace kernellab::app {
namespace {

constexpr char kMagic[4] = {'K', 'L', 'H', 'A'};
constexpr uint32_t kVersion = 1;
constexpr uint8_t kFloat = 0xF0;
// zlib cannot shrink data by more than about 1032:1: a larger claimed size is a forged header.
constexpr uint64_t kMaxRatio = 1100;
constexpr uint64_t kMaxColumnBytes = uint64_t(1) << 31;

enum Field : uint8_t {
  kLabels = 1,
  kKnnIndices = 2,
  kKnnDistances = 3,
  kSchedule = 4,
  kCenters = 5,
  kLabelsAsVariant = 6,  // the same labels as an earlier variant of the run (u32 variant, no column)
};

QString tr(const char* text) { return QCoreApplication::translate("HistoryArrays", text); }

template <class T>
void put(QByteArray& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // the hosts KernelLab builds for are little-endian
  out.append(b, sizeof(T));
}

// Values minus their minimum, in the fewest bytes that hold the range.
void putIntColumn(QByteArray& out, const std::vector<int64_t>& v) {
  int64_t lo = 0, hi = 0;
  if (!v.empty()) {
    const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
    lo = *mn;
    hi = *mx;
  }
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  const uint8_t width = range <= 0xFF ? 1 : range <= 0xFFFF ? 2 : range <= 0xFFFFFFFFull ? 4 : 8;
  QByteArray packed(static_cast<qsizetype>(v.size() * width), Qt::Uninitialized);
  char* p = packed.data();
  for (int64_t x : v) {
    const uint64_t d = static_cast<uint64_t>(x) - static_cast<uint64_t>(lo);
    std::memcpy(p, &d, width);  // low bytes first
    p += width;
  }
  const QByteArray z = qCompress(packed, 6);
  put<uint8_t>(out, width);
  put<int64_t>(out, lo);
  put<uint64_t>(out, static_cast<uint64_t>(z.size()));
  out += z;
}

void putFloatColumn(QByteArray& out, const std::vector<float>& v) {
  const QByteArray z = qCompress(QByteArray(reinterpret_cast<const char*>(v.data()),
                                            static_cast<qsizetype>(v.size() * sizeof(float))),
                                 6);
  put<uint8_t>(out, kFloat);
  put<int64_t>(out, 0);
  put<uint64_t>(out, static_cast<uint64_t>(z.size()));
  out += z;
}

// A bounds-checked reader over the blob.
class Reader {
 public:
  explicit Reader(const QByteArray& b) : b_(b) {}
  template <class T>
  bool get(T& v) {
    if (static_cast<size_t>(b_.size()) - pos_ < sizeof(T)) return false;
    std::memcpy(&v, b_.constData() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool bytes(uint64_t n, QByteArray& out) {
    if (n > static_cast<uint64_t>(b_.size()) - pos_) return false;
    out = QByteArray::fromRawData(b_.constData() + pos_, static_cast<qsizetype>(n));
    pos_ += n;
    return true;
  }
  bool atEnd() const { return pos_ == static_cast<size_t>(b_.size()); }

 private:
  const QByteArray& b_;
  size_t pos_ = 0;
};

// One column of `elements` values; its unpacked size is checked before qUncompress allocates.
bool getColumn(Reader& r, uint64_t elements, bool floats, std::vector<int64_t>* ints,
               std::vector<float>* reals, QString* error) {
  uint8_t width = 0;
  int64_t base = 0;
  uint64_t zbytes = 0;
  QByteArray z;
  if (!r.get(width) || !r.get(base) || !r.get(zbytes) || !r.bytes(zbytes, z)) {
    *error = tr("the side file is truncated");
    return false;
  }
  const bool isFloat = width == kFloat;
  if (isFloat != floats || (!isFloat && width != 1 && width != 2 && width != 4 && width != 8)) {
    *error = tr("the side file has a column of unknown width %1").arg(width);
    return false;
  }
  const uint64_t each = isFloat ? sizeof(float) : width;
  if (elements > kMaxColumnBytes / each) {
    *error = tr("the side file claims %1 values in one array (limit %2)")
                 .arg(elements)
                 .arg(kMaxColumnBytes / each);
    return false;
  }
  const uint64_t expected = elements * each;
  if (zbytes < 4) {
    *error = tr("the side file has an empty column");
    return false;
  }
  const auto* h = reinterpret_cast<const unsigned char*>(z.constData());
  const uint64_t header =
      (uint64_t(h[0]) << 24) | (uint64_t(h[1]) << 16) | (uint64_t(h[2]) << 8) | uint64_t(h[3]);
  if (header != expected || expected > zbytes * kMaxRatio + 64) {
    *error = tr("the side file's column says %1 bytes where %2 values need %3")
                 .arg(header)
                 .arg(elements)
                 .arg(expected);
    return false;
  }
  const QByteArray raw = expected == 0 ? QByteArray() : qUncompress(z);
  if (static_cast<uint64_t>(raw.size()) != expected) {
    *error = tr("the side file's column does not decompress to its size");
    return false;
  }
  if (isFloat) {
    reals->resize(elements);
    if (expected) std::memcpy(reals->data(), raw.constData(), expected);
    return true;
  }
  ints->resize(elements);
  const char* p = raw.constData();
  for (uint64_t i = 0; i < elements; ++i, p += width) {
    uint64_t d = 0;
    std::memcpy(&d, p, width);
    (*ints)[i] = static_cast<int64_t>(static_cast<uint64_t>(base) + d);
  }
  return true;
}

// Signed 32-bit values only: a decoded value outside int32 is a damaged file.
bool toInt32(const std::vector<int64_t>& in, std::vector<int32_t>& out) {
  out.resize(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] < std::numeric_limits<int32_t>::min() || in[i] > std::numeric_limits<int32_t>::max())
      return false;
    out[i] = static_cast<int32_t>(in[i]);
  }
  return true;
}

}  // namespace

QByteArray takeLargeArrays(ResultsFile& file) {
  QByteArray body;
  uint32_t entries = 0;
  auto head = [&](size_t run, size_t variant, Field f, uint8_t columns, uint64_t elements) {
    put<uint32_t>(body, static_cast<uint32_t>(run));
    put<uint32_t>(body, static_cast<uint32_t>(variant));
    put<uint8_t>(body, f);
    put<uint8_t>(body, columns);
    put<uint64_t>(body, elements);
    ++entries;
  };
  for (size_t r = 0; r < file.runs.size(); ++r) {
    std::vector<std::pair<size_t, std::vector<int32_t>>> keptLabels;  // this run's, by variant
    for (size_t v = 0; v < file.runs[r].variants.size(); ++v) {
      VariantResult& var = file.runs[r].variants[v];
      if (var.detail<ClusteringOutput>() &&
          var.detail<ClusteringOutput>()->labels.size() >= kSideArrayMinElements) {
        std::vector<int32_t>& l = var.detail<ClusteringOutput>()->labels;
        // Variants that agree (the usual outcome: every variant verified against one reference)
        // store their labels once.
        const auto same = std::find_if(keptLabels.begin(), keptLabels.end(),
                                       [&](const auto& kept) { return kept.second == l; });
        if (same != keptLabels.end()) {
          head(r, v, kLabelsAsVariant, 0, l.size());
          put<uint32_t>(body, static_cast<uint32_t>(same->first));
          std::vector<int32_t>().swap(l);
        } else {
          head(r, v, kLabels, 1, l.size());
          putIntColumn(body, std::vector<int64_t>(l.begin(), l.end()));
          keptLabels.emplace_back(v, std::move(l));
          l.clear();
        }
      }
      if (var.detail<ClusteringOutput>() &&
          var.detail<ClusteringOutput>()->centers.size() >= kSideArrayMinElements) {
        head(r, v, kCenters, 1, var.detail<ClusteringOutput>()->centers.size());
        putFloatColumn(body, var.detail<ClusteringOutput>()->centers);
        std::vector<float>().swap(var.detail<ClusteringOutput>()->centers);
      }
      if (var.detail<KnnDetails>() && var.detail<KnnDetails>()->k > 0 &&
          var.detail<KnnDetails>()->indices.size() >= kSideArrayMinElements) {
        // Neighbours lie in a window around their pixel: offsets from it pack small.
        std::vector<int32_t>& idx = var.detail<KnnDetails>()->indices;
        std::vector<int64_t> offsets(idx.size());
        for (size_t i = 0; i < idx.size(); ++i)
          offsets[i] = int64_t(idx[i]) - int64_t(i / size_t(var.detail<KnnDetails>()->k));
        head(r, v, kKnnIndices, 1, idx.size());
        put<uint32_t>(body, static_cast<uint32_t>(
                                var.detail<KnnDetails>()->k));  // JSON keeps k only with the lists
        putIntColumn(body, offsets);
        std::vector<int32_t>().swap(idx);
      }
      if (var.detail<KnnDetails>() &&
          var.detail<KnnDetails>()->squaredDistances.size() >= kSideArrayMinElements) {
        head(r, v, kKnnDistances, 1, var.detail<KnnDetails>()->squaredDistances.size());
        putFloatColumn(body, var.detail<KnnDetails>()->squaredDistances);
        std::vector<float>().swap(var.detail<KnnDetails>()->squaredDistances);
      }
      if (var.schedule.size() >= kSideArrayMinElements) {
        // Columns: block id and start as differences from the previous record (blocks launch in
        // order, a few ns apart), duration instead of end, SM and tile as they are.
        const auto& s = var.schedule;
        std::vector<int64_t> block(s.size()), sm(s.size()), start(s.size()), length(s.size()),
            tx(s.size()), ty(s.size());
        for (size_t i = 0; i < s.size(); ++i) {
          block[i] = int64_t(s[i].blockId) - (i ? int64_t(s[i - 1].blockId) : 0);
          sm[i] = s[i].smId;
          start[i] = static_cast<int64_t>(s[i].startNs - (i ? s[i - 1].startNs : 0));
          length[i] = static_cast<int64_t>(s[i].endNs - s[i].startNs);
          tx[i] = s[i].tileX;
          ty[i] = s[i].tileY;
        }
        head(r, v, kSchedule, 6, s.size());
        for (const auto* c : {&block, &sm, &start, &length, &tx, &ty}) putIntColumn(body, *c);
        std::vector<BlockRecord>().swap(var.schedule);
      }
    }
  }
  if (entries == 0) return {};
  QByteArray out(kMagic, 4);
  put<uint32_t>(out, kVersion);
  put<uint32_t>(out, entries);
  return out + body;
}

bool restoreLargeArrays(ResultsFile& file, const QByteArray& blob, QString* error) {
  QString why;
  auto fail = [&](const QString& text) {
    if (error) *error = text;
    return false;
  };
  Reader r(blob);
  char magic[4] = {};
  uint32_t version = 0, entries = 0;
  if (!r.get(magic) || std::memcmp(magic, kMagic, 4) != 0)
    return fail(tr("the side file is not a KernelLab arrays file"));
  if (!r.get(version) || version != kVersion)
    return fail(tr("the side file has version %1; this build reads %2").arg(version).arg(kVersion));
  if (!r.get(entries)) return fail(tr("the side file is truncated"));
  // Decoded into a list of assignments first: a problem halfway leaves `file` untouched.
  std::vector<std::function<void()>> commit;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> labelCounts;  // labels restored, by run and variant
  for (uint32_t e = 0; e < entries; ++e) {
    uint32_t run = 0, variant = 0;
    uint8_t field = 0, columns = 0;
    uint64_t elements = 0;
    if (!r.get(run) || !r.get(variant) || !r.get(field) || !r.get(columns) || !r.get(elements))
      return fail(tr("the side file is truncated"));
    if (run >= file.runs.size() || variant >= file.runs[run].variants.size())
      return fail(tr("the side file names run %1 variant %2, which the results do not have")
                      .arg(run + 1)
                      .arg(variant + 1));
    VariantResult& var = file.runs[run].variants[variant];
    const uint8_t wantColumns = field == kSchedule ? 6 : field == kLabelsAsVariant ? 0 : 1;
    if (columns != wantColumns) return fail(tr("the side file has an array of unknown shape"));
    if (field == kLabels) {
      std::vector<int64_t> v;
      auto labels = std::make_shared<std::vector<int32_t>>();
      if (!var.detail<ClusteringOutput>())
        return fail(tr("the side file has labels for a variant without clustering output"));
      if (!getColumn(r, elements, false, &v, nullptr, &why)) return fail(why);
      if (!toInt32(v, *labels)) return fail(tr("the side file has a label outside 32 bits"));
      commit.push_back(
          [&var, labels] { var.detail<ClusteringOutput>()->labels = std::move(*labels); });
      labelCounts[{run, variant}] = elements;
    } else if (field == kLabelsAsVariant) {
      uint32_t source = 0;
      if (!r.get(source)) return fail(tr("the side file is truncated"));
      const auto it = labelCounts.find({run, source});
      if (!var.detail<ClusteringOutput>() || source >= variant || it == labelCounts.end() ||
          it->second != elements)
        return fail(tr("the side file refers to labels it does not hold"));
      const ClusteringOutput* from = file.runs[run].variants[source].detail<ClusteringOutput>();
      commit.push_back([&var, from] {
        var.detail<ClusteringOutput>()->labels = from->labels;
      });  // after its own
      labelCounts[{run, variant}] = elements;
    } else if (field == kCenters) {
      if (!var.detail<ClusteringOutput>())
        return fail(tr("the side file has centers for a variant without clustering output"));
      auto c = std::make_shared<std::vector<float>>();
      if (!getColumn(r, elements, true, nullptr, c.get(), &why)) return fail(why);
      commit.push_back([&var, c] { var.detail<ClusteringOutput>()->centers = std::move(*c); });
    } else if (field == kKnnIndices) {
      uint32_t kk = 0;
      if (!r.get(kk)) return fail(tr("the side file is truncated"));
      if (!var.detail<KnnDetails>() || kk == 0 || kk > (1u << 20) || elements % kk != 0)
        return fail(tr("the side file has neighbour lists of k = %1 for %2 entries").arg(kk).arg(elements));
      std::vector<int64_t> v;
      if (!getColumn(r, elements, false, &v, nullptr, &why)) return fail(why);
      const size_t k = kk;
      for (size_t i = 0; i < v.size(); ++i) v[i] += static_cast<int64_t>(i / k);
      auto idx = std::make_shared<std::vector<int32_t>>();
      if (!toInt32(v, *idx)) return fail(tr("the side file has a neighbour index outside 32 bits"));
      commit.push_back([&var, idx, kk] {
        var.detail<KnnDetails>()->k = static_cast<int>(kk);
        var.detail<KnnDetails>()->indices = std::move(*idx);
      });
    } else if (field == kKnnDistances) {
      if (!var.detail<KnnDetails>())
        return fail(tr("the side file has distances for a variant without KNN details"));
      auto d = std::make_shared<std::vector<float>>();
      if (!getColumn(r, elements, true, nullptr, d.get(), &why)) return fail(why);
      commit.push_back([&var, d] { var.detail<KnnDetails>()->squaredDistances = std::move(*d); });
    } else if (field == kSchedule) {
      std::vector<int64_t> c[6];
      for (auto& col : c)
        if (!getColumn(r, elements, false, &col, nullptr, &why)) return fail(why);
      auto s = std::make_shared<std::vector<BlockRecord>>(elements);
      int64_t block = 0;
      uint64_t start = 0;
      for (uint64_t i = 0; i < elements; ++i) {
        block += c[0][i];
        start += static_cast<uint64_t>(c[2][i]);
        BlockRecord& b = (*s)[i];
        if (block < INT32_MIN || block > INT32_MAX || c[1][i] < INT32_MIN || c[1][i] > INT32_MAX ||
            c[4][i] < INT32_MIN || c[4][i] > INT32_MAX || c[5][i] < INT32_MIN ||
            c[5][i] > INT32_MAX)
          return fail(tr("the side file has a block record outside 32 bits"));
        b.blockId = static_cast<int>(block);
        b.smId = static_cast<int>(c[1][i]);
        b.startNs = start;
        b.endNs = start + static_cast<uint64_t>(c[3][i]);
        b.tileX = static_cast<int>(c[4][i]);
        b.tileY = static_cast<int>(c[5][i]);
      }
      commit.push_back([&var, s] { var.schedule = std::move(*s); });
    } else {
      return fail(tr("the side file has an array of unknown kind %1").arg(field));
    }
  }
  if (!r.atEnd()) return fail(tr("the side file has trailing bytes"));
  for (auto& c : commit) c();
  return true;
}

}  // namespace kernellab::app
