// SPDX-License-Identifier: MIT
// KNN CPU reference and the checks of neighbour lists: exact comparison, consistency of every
// list, and the classification of the rectangular window's differences.
//
// The reference shares only the window definitions (pixelWindow, rectWindow) with the kernels.
// It walks every candidate with its own loop and keeps the k best in a bounded max-heap ordered
// by (distance, index), a different algorithm from the kernels' sorted insertion. Distances use
// the same documented arithmetic (float32 fmaf in component order), so lists match bit for bit.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "kernellab/knn.h"
#include "kernellab/parallel.h"
#include "kernellab/text.h"

namespace kernellab::knn {
namespace {

float squaredDistance(const Image& img, int64_t a, int64_t b) {
  float d = 0.0f;
  for (int c = 0; c < img.components; ++c) {
    const float diff = img.at(a, c) - img.at(b, c);
    d = std::fmaf(diff, diff, d);
  }
  return d;
}

struct Candidate {
  float d;
  int32_t i;
};
bool before(const Candidate& a, const Candidate& b) { return nearer(a.d, a.i, b.d, b.i); }

// The k best of pixel p, nearest first, using `heap` as scratch.
void nearestOf(const Image& img, const Geometry& g, WindowShape w, int64_t p,
               std::vector<Candidate>& heap) {
  heap.clear();
  auto consider = [&](int64_t q) {
    if (q == p) return;
    const Candidate c{squaredDistance(img, p, q), static_cast<int32_t>(q)};
    if (static_cast<int>(heap.size()) < g.k) {
      heap.push_back(c);
      std::push_heap(heap.begin(), heap.end(), before);  // max-heap: the worst kept on top
    } else if (before(c, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), before);
      heap.back() = c;
      std::push_heap(heap.begin(), heap.end(), before);
    }
  };
  if (w == WindowShape::Rectangular) {
    const RowSpan rows = rectWindow(g, static_cast<int>(p / g.cols));
    for (int64_t q = static_cast<int64_t>(rows.lo) * g.cols;
         q < static_cast<int64_t>(rows.hi + 1) * g.cols; ++q)
      consider(q);
  } else {
    const PixelRange r = pixelWindow(g, p);
    for (int64_t q = r.lo; q <= r.hi; ++q) consider(q);
  }
  std::sort_heap(heap.begin(), heap.end(), before);
}

std::vector<int> allRowsIfEmpty(const std::vector<int>& rows, int n) {
  if (!rows.empty()) return rows;
  std::vector<int> all(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) all[static_cast<size_t>(r)] = r;
  return all;
}

std::string pixelText(const Geometry& g, int64_t p) {
  return "(" + std::to_string(p / g.cols) + ", " + std::to_string(p % g.cols) + ")";
}

std::string slotText(int32_t i, float d) {
  if (i == -1 && std::isnan(d)) return "nothing (the poison: never written)";
  return "#" + std::to_string(i) + " d2=" + formatFixed(d, 6);
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

void referenceKnn(const Image& img, const Geometry& g, WindowShape w, Lists& out,
                  const std::vector<int>& rows) {
  if (out.k != g.k || static_cast<int64_t>(out.index.size()) != g.pixels * g.k)
    out.reset(g.pixels, g.k);
  const std::vector<int> list = allRowsIfEmpty(rows, g.rows);
  parallelForEach(static_cast<int64_t>(list.size()) * g.cols, [&](int64_t item) {
    thread_local std::vector<Candidate> heap;
    const int64_t p = static_cast<int64_t>(list[static_cast<size_t>(item / g.cols)]) * g.cols +
                      item % g.cols;
    nearestOf(img, g, w, p, heap);
    for (int j = 0; j < g.k; ++j) {
      out.index[static_cast<size_t>(p * g.k + j)] = heap[static_cast<size_t>(j)].i;
      out.squaredDistance[static_cast<size_t>(p * g.k + j)] = heap[static_cast<size_t>(j)].d;
    }
  });
}

std::vector<Neighbour> referenceNeighbours(const Image& img, const Geometry& g, WindowShape w,
                                           int64_t pixel) {
  std::vector<Candidate> heap;
  nearestOf(img, g, w, pixel, heap);
  std::vector<Neighbour> out;
  for (const auto& c : heap) out.push_back({c.i, c.d});
  return out;
}

std::vector<int> referenceRows(const Geometry& g, WindowShape w, double budgetTerms) {
  const double perRow = static_cast<double>(g.cols) * candidatesPerPixel(g, w) * g.components;
  if (perRow * g.rows <= budgetTerms) return allRowsIfEmpty({}, g.rows);
  // Where the window rule changes: it slides at the top until row `before`, at the bottom from
  // row rows - 1 - after; plus the first, last and middle rows.
  const int after = g.window - g.before;
  std::vector<int> rows = {0,
                           g.before - 1,
                           g.before,
                           g.before + 1,
                           g.rows / 2,
                           g.rows - 2 - after,
                           g.rows - 1 - after,
                           g.rows - after,
                           g.rows - 1};
  const int extra = std::max(0, static_cast<int>(budgetTerms / perRow) - static_cast<int>(rows.size()));
  for (int i = 1; i <= extra; ++i)
    rows.push_back(static_cast<int>(static_cast<int64_t>(i) * g.rows / (extra + 1)));
  rows.erase(std::remove_if(rows.begin(), rows.end(), [&](int r) { return r < 0 || r >= g.rows; }),
             rows.end());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

Verification compareLists(const Lists& expected, const Lists& actual, const Geometry& g,
                          const std::vector<int>& rows) {
  Verification v;
  v.performed = true;
  v.tolerance = 0;
  const std::vector<int> list = allRowsIfEmpty(rows, g.rows);
  uint64_t mismatches = 0, badPixels = 0;
  double maxErr = 0;
  int64_t firstSlot = -1;
  for (int r : list) {
    for (int64_t p = static_cast<int64_t>(r) * g.cols; p < static_cast<int64_t>(r + 1) * g.cols; ++p) {
      bool bad = false;
      for (int j = 0; j < g.k; ++j) {
        const size_t s = static_cast<size_t>(p * g.k + j);
        const float de = expected.squaredDistance[s], da = actual.squaredDistance[s];
        if (expected.index[s] != actual.index[s] || !sameBits(de, da)) {
          ++mismatches;
          bad = true;
          if (firstSlot < 0) firstSlot = static_cast<int64_t>(s);
          maxErr = std::max(maxErr, std::isnan(da) ? std::numeric_limits<double>::infinity()
                                                   : std::fabs(double(da) - de));
        }
      }
      if (bad) ++badPixels;
    }
  }
  v.compared = static_cast<uint64_t>(list.size()) * g.cols * g.k;
  v.mismatches = mismatches;
  v.maxError = maxErr;
  v.passed = mismatches == 0;
  if (firstSlot >= 0) {
    const size_t s = static_cast<size_t>(firstSlot);
    v.note = std::to_string(badPixels) + " of " + std::to_string(list.size() * g.cols) +
             " pixels differ; first at pixel " + pixelText(g, firstSlot / g.k) + " neighbour " +
             std::to_string(firstSlot % g.k) + ": expected " +
             slotText(expected.index[s], expected.squaredDistance[s]) + ", got " +
             slotText(actual.index[s], actual.squaredDistance[s]);
  } else {
    v.note = "bit-exact neighbour lists of " + std::to_string(list.size() * g.cols) + " pixels";
  }
  return v;
}

uint64_t checkConsistency(const Image& img, const Geometry& g, WindowShape w, const Lists& lists,
                          std::string& firstProblem) {
  std::atomic<uint64_t> bad{0};
  std::mutex firstMutex;
  int64_t firstPixel = std::numeric_limits<int64_t>::max();
  firstProblem.clear();
  parallelForEach(g.rows, [&](int64_t r) {
    for (int64_t p = r * g.cols; p < (r + 1) * g.cols; ++p) {
      std::string problem;
      int64_t lo, hi;
      if (w == WindowShape::Rectangular) {
        const RowSpan rs = rectWindow(g, static_cast<int>(r));
        lo = static_cast<int64_t>(rs.lo) * g.cols;
        hi = static_cast<int64_t>(rs.hi + 1) * g.cols - 1;
      } else {
        const PixelRange pr = pixelWindow(g, p);
        lo = pr.lo;
        hi = pr.hi;
      }
      for (int j = 0; j < g.k && problem.empty(); ++j) {
        const size_t s = static_cast<size_t>(p * g.k + j);
        const int32_t q = lists.index[s];
        const float d = lists.squaredDistance[s];
        if (q < lo || q > hi || q == p) {
          problem = "neighbour " + std::to_string(j) + " is " + slotText(q, d) +
                    ", not a candidate of its window";
        } else if (!sameBits(d, squaredDistance(img, p, q))) {
          problem = "neighbour " + std::to_string(j) + " (#" + std::to_string(q) +
                    ") has distance " + formatFixed(d, 6) + ", recomputed " +
                    formatFixed(squaredDistance(img, p, q), 6);
        } else if (j > 0 && !nearer(lists.squaredDistance[s - 1], lists.index[s - 1], d, q)) {
          problem = "neighbours " + std::to_string(j - 1) + " and " + std::to_string(j) +
                    " are out of (distance, index) order";
        }
      }
      if (!problem.empty()) {
        ++bad;
        std::lock_guard<std::mutex> lock(firstMutex);
        if (p < firstPixel) {
          firstPixel = p;
          firstProblem = "pixel " + pixelText(g, p) + ": " + problem;
        }
      }
    }
  });
  return bad.load();
}

KnnWindowMismatch classifyAgainstPerPixel(const Lists& perPixel, const Lists& rect,
                                          const Geometry& g, const std::vector<int>& rows) {
  KnnWindowMismatch m;
  m.reference = "CPU reference with the per-pixel window";
  const std::vector<int> list = allRowsIfEmpty(rows, g.rows);
  for (int r : list) {
    for (int64_t p = static_cast<int64_t>(r) * g.cols; p < static_cast<int64_t>(r + 1) * g.cols; ++p) {
      bool sameIndex = true, sameDistance = true;
      for (int j = 0; j < g.k; ++j) {
        const size_t s = static_cast<size_t>(p * g.k + j);
        const bool index = perPixel.index[s] == rect.index[s];
        const bool distance = sameBits(perPixel.squaredDistance[s], rect.squaredDistance[s]);
        ++m.slotsCompared;
        if (!index || !distance) {
          ++m.slotsMismatched;
          if (distance) ++m.slotTieSwaps;
        }
        sameIndex = sameIndex && index;
        sameDistance = sameDistance && distance;
      }
      ++m.pixels;
      if (sameIndex && sameDistance) continue;
      ++m.mismatched;
      if (sameDistance) ++m.tieSwaps;
      else ++m.differentNeighbours;
    }
  }
  m.mismatchPct = m.pixels ? 100.0 * double(m.mismatched) / double(m.pixels) : 0.0;
  m.slotMismatchPct = m.slotsCompared ? 100.0 * double(m.slotsMismatched) / double(m.slotsCompared) : 0.0;
  return m;
}

}  // namespace kernellab::knn
