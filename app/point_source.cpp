// SPDX-License-Identifier: MIT
// The window's clustering points: a bounded sample of the generated or loaded set.
#include "point_source.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/random.h"
#include "kernellab/text.h"

#ifdef __unix__
#include <sys/stat.h>
#endif

namespace kernellab::app {
namespace {

// 10000000 -> "10,000,000": the note is read next to the view's other numbers.
std::string grouped(int64_t v) { return formatCount(v); }

int64_t sampleSize(int64_t total, int d, const SampleLimits& limits) {
  return std::min({total, limits.maxPoints, limits.maxValues / std::max(1, d)});
}

// A points file the user chose: read only when it is a regular file (a FIFO would block the
// loader forever, a device never ends).
void checkRegularFile(const std::string& path) {
#ifdef __unix__
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError("cannot open '" + path + "' for reading");
  if (!S_ISREG(st.st_mode))
    throw InputError("'" + path + "' is " +
                     (S_ISFIFO(st.st_mode)                         ? "a FIFO"
                      : S_ISDIR(st.st_mode)                        ? "a directory"
                      : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                   : "not a regular file") +
                     ", not a points file");
#else
  (void)path;
#endif
}

}  // namespace

std::vector<int64_t> sampleIndices(int64_t total, int64_t count, uint64_t seed) {
  std::vector<int64_t> out;
  if (total <= 0 || count <= 0) return out;
  if (count >= total) {
    out.resize(static_cast<size_t>(total));
    std::iota(out.begin(), out.end(), int64_t(0));
    return out;
  }
  out.reserve(static_cast<size_t>(count));
  const uint64_t salt = splitmix64(seed ^ 0x5A3B1E5A3B1Eull);
  for (int64_t s = 0; s < count; ++s) {
    // Stratum s is [total*s/count, total*(s+1)/count): never empty while count < total.
    const int64_t lo = static_cast<int64_t>((static_cast<long double>(total) * s) / count);
    const int64_t hi = static_cast<int64_t>((static_cast<long double>(total) * (s + 1)) / count);
    const int64_t width = std::max<int64_t>(1, hi - lo);
    out.push_back(std::min(
        total - 1, lo + static_cast<int64_t>(splitmix64(salt + uint64_t(s)) % uint64_t(width))));
  }
  // Rounding can make neighbouring strata touch: keep the indices strictly ascending.
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

DatasetPoints makeDatasetPoints(const ClusteringProblem& problem, uint64_t seed,
                                const SampleLimits& limits) {
  DatasetPoints out;
  if (!problem.inputPath.empty()) {
    checkRegularFile(problem.inputPath);
    clustering::PointSet set = clustering::loadPoints(problem.inputPath);
    out.total = set.n;
    out.d = set.d;
    out.source = set.source;
    const int64_t keep = sampleSize(set.n, set.d, limits);
    if (keep < 1)
      throw InputError("D = " + std::to_string(set.d) + " is above the " +
                       grouped(limits.maxValues) + " values the window shows of one data set");
    if (keep < set.n) {
      out.indices = sampleIndices(set.n, keep, seed);
      std::vector<float> values;
      values.reserve(out.indices.size() * static_cast<size_t>(set.d));
      for (int64_t i : out.indices)
        values.insert(values.end(), set.values.begin() + i * set.d,
                      set.values.begin() + (i + 1) * set.d);
      out.values = std::make_shared<const std::vector<float>>(std::move(values));
      out.n = static_cast<int64_t>(out.indices.size());
      out.sampleNote = "Showing " + grouped(out.n) + " of " + grouped(set.n) +
                       " points of the file, an even sample";
    } else {
      out.n = set.n;
      out.values = std::make_shared<const std::vector<float>>(std::move(set.values));
    }
    return out;
  }
  // Generated: the parts that do not scale with the sample are bounded first.
  if (problem.k >= 1 && problem.d >= 1 &&
      double(problem.k) * problem.d > double(limits.maxCenterValues))
    throw InputError("K x D = " + std::to_string(problem.k) + " x " + std::to_string(problem.d) +
                     " cluster centers are more than the window regenerates (" +
                     grouped(limits.maxCenterValues) + " values)");
  if (problem.shape == DatasetShape::Blobs && problem.n > limits.maxShuffled)
    throw InputError(
        "the blobs' order is a shuffle of all N = " + grouped(problem.n) +
        " points, which the window redoes only up to N = " + grouped(limits.maxShuffled));
  const int64_t keep = sampleSize(problem.n, problem.d, limits);
  if (problem.n >= 1 && problem.d >= 1 && keep < 1)
    throw InputError("D = " + std::to_string(problem.d) + " is above the " +
                     grouped(limits.maxValues) + " values the window shows of one data set");
  std::vector<int64_t> indices = sampleIndices(problem.n, keep, seed);
  clustering::PointSet set = clustering::generatePointsAt(problem, seed, indices);
  out.n = set.n;
  out.d = set.d;
  out.total = problem.n;
  out.truth = std::move(set.truth);
  out.source = set.source;
  out.values = std::make_shared<const std::vector<float>>(std::move(set.values));
  if (out.n < problem.n) {
    out.indices = std::move(indices);
    out.sampleNote = "Showing " + grouped(out.n) + " of " + grouped(problem.n) +
                     " points, regenerated from the request's seed";
  }
  return out;
}

std::vector<int32_t> labelsOfSample(const DatasetPoints& points,
                                    const std::vector<int32_t>& labels) {
  if (static_cast<int64_t>(labels.size()) != points.total) return {};
  if (points.indices.empty()) return labels;
  std::vector<int32_t> out;
  out.reserve(points.indices.size());
  for (int64_t i : points.indices) out.push_back(labels[static_cast<size_t>(i)]);
  return out;
}

}  // namespace kernellab::app
