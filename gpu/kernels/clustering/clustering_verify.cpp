// SPDX-License-Identifier: MIT
// Gold-result verification of clustering runs (thesis 4.3.2): every point is checked against the
// CPU reference, and the only differences accepted are ties that float32 rounding may order
// either way, counted in the note.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernellab/clustering.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"
#include "kernellab/text.h"

namespace kernellab::clustering {
namespace {

constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24, float32

// Collects failures: counts them and keeps the first one's description for the note.
struct Problems {
  uint64_t count = 0;
  std::string first;
  void add(const std::string& text) {
    if (count++ == 0) first = text;
  }
};

std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Squared distance of point i to a double center, and the first-order bound of what rounding the
// center to float32 can change in it: 2 u sum |c_j| |c_j - x_j|.
void distanceAndRounding(const PointSet& s, int64_t i, const double* c, double& dist,
                         double& rounding) {
  const float* x = &s.values[static_cast<size_t>(i) * s.d];
  dist = 0;
  rounding = 0;
  for (int j = 0; j < s.d; ++j) {
    const double diff = c[j] - x[j];
    dist += diff * diff;
    rounding += std::fabs(c[j]) * std::fabs(diff);
  }
  rounding *= 2.0 * kUnitRoundoff;
}

std::string neverWritten(int64_t i) {
  return "point " + std::to_string(i) +
         " was never processed (its label or distance is still "
         "the poison written before the run)";
}

}  // namespace

double tieTolerance(int d) { return std::max(1e-6, 4.0 * (d + 2) * kUnitRoundoff); }

double scoreTolerance(int64_t n, int d) {
  // gamma_m = m u / (1 - m u) bounds m roundings of non-negative terms (Higham, "Accuracy and
  // Stability of Numerical Algorithms", 3.1): m = D + 2 in float32 for one distance (difference,
  // square, D - 1 additions), then N additions in double for the score. kMaxDimensions keeps
  // m u far below 1.
  const double m = double(d) + 2.0;
  const double perDistance = m * kUnitRoundoff / std::max(1e-3, 1.0 - m * kUnitRoundoff);
  const double overPoints = double(n) * std::ldexp(1.0, -53);
  return std::max(kInertiaTolerance, perDistance + overPoints);
}

namespace {
bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

Verification comparePrunedKCenters(const KCentersOutputs& p, const KCentersOutputs& t) {
  Verification v;
  v.performed = true;
  v.reference = t.variant + " (the unpruned computation), bit for bit";
  v.compared = p.labels.size();
  Problems problems;
  if (p.centers.size() != t.centers.size() || p.radii.size() != t.radii.size() ||
      p.distances.size() != t.distances.size() || p.labels.size() != t.labels.size()) {
    problems.add("the outputs' sizes differ (" + std::to_string(p.centers.size()) +
                 " centers and " + std::to_string(p.distances.size()) + " points, " + t.variant +
                 ": " + std::to_string(t.centers.size()) + " and " +
                 std::to_string(t.distances.size()) + ")");
  } else {
    for (size_t j = 0; j < p.centers.size(); ++j)
      if (p.centers[j] != t.centers[j])
        problems.add("center " + std::to_string(j + 1) + " is point " +
                     std::to_string(p.centers[j]) + ", " + t.variant + " chose " +
                     std::to_string(t.centers[j]));
    for (size_t j = 0; j < p.radii.size(); ++j)
      if (!sameBits(p.radii[j], t.radii[j]))
        problems.add("the radius after center " + std::to_string(j + 1) + " is " + num(p.radii[j]) +
                     ", " + t.variant + "'s " + num(t.radii[j]));
    for (size_t i = 0; i < p.distances.size(); ++i)
      if (!sameBits(p.distances[i], t.distances[i]) || p.labels[i] != t.labels[i])
        problems.add("point " + std::to_string(i) + " has label " + std::to_string(p.labels[i]) +
                     " at squared distance " + num(p.distances[i]) + ", " + t.variant + "'s " +
                     std::to_string(t.labels[i]) + " at " + num(t.distances[i]));
  }
  v.mismatches = problems.count;
  v.passed = problems.count == 0;
  v.note = v.passed ? "the same centers, radii, labels and distances as " + t.variant +
                          " bit for bit (the unpruned computation)"
                    : std::to_string(problems.count) + " difference(s) from " + t.variant +
                          " (the unpruned computation, which the pruned run must equal bit for "
                          "bit); first: " +
                          problems.first;
  return v;
}

Verification verifyKCenters(const PointSet& s, const KCentersReference& reference,
                            const ClusteringOutput& run, const std::vector<float>& distances,
                            const std::vector<float>& radius) {
  Verification v;
  v.performed = true;
  v.reference =
      "CPU k-centers in double (farthest point; ties: lowest point index, earlier center)";
  const double tol = tieTolerance(s.d);
  v.tolerance = tol;
  const int k = static_cast<int>(reference.centers.size());
  const int64_t n = s.n;
  Problems p;

  const std::vector<int64_t>& got = run.centerIndices;
  bool usable = static_cast<int>(got.size()) == k && !got.empty() && got[0] == reference.centers[0];
  for (size_t j = 0; usable && j < got.size(); ++j) usable = got[j] >= 0 && got[j] < n;
  if (!usable || static_cast<int64_t>(run.labels.size()) != n ||
      static_cast<int64_t>(distances.size()) != n) {
    std::string what =
        "the run's center sequence is not K valid point indices from the same first center";
    for (size_t j = 0; j < got.size(); ++j)
      if (got[j] < 0 || got[j] >= n) {
        what = "center " + std::to_string(j + 1) + " is point index " + std::to_string(got[j]) +
               ", outside 0.." + std::to_string(n - 1) + " (never written?)";
        break;
      }
    p.add(what);
    v.mismatches = p.count;
    v.note = p.first;
    v.passed = false;
    return v;
  }

  // The reference along the run's own sequence: identical to `reference` unless the run took a
  // near tie, in which case each later step is judged from where the run actually was.
  const bool same = got == reference.centers;
  const KCentersReference along = same ? reference : referenceKCentersAlong(s, got);
  int centerTies = 0;
  for (int j = 0; j + 1 < k; ++j) {
    const int64_t chose = got[static_cast<size_t>(j) + 1];
    const int64_t farthest = along.farthest[static_cast<size_t>(j)];
    if (chose == farthest) continue;
    const double a = along.chosenDist[static_cast<size_t>(j)],
                 b = along.radius[static_cast<size_t>(j)];
    if (a >= b * (1.0 - tol))
      ++centerTies;
    else
      p.add("center " + std::to_string(j + 2) + ": the run chose point " + std::to_string(chose) +
            " at squared distance " + num(a) + "; the farthest is point " +
            std::to_string(farthest) + " at " + num(b));
  }
  for (int j = 0; j < k && j < static_cast<int>(radius.size()); ++j) {
    const double r = radius[static_cast<size_t>(j)], ref = along.radius[static_cast<size_t>(j)];
    if (!(std::fabs(r - ref) <= tol * ref))
      p.add("covering radius after center " + std::to_string(j + 1) + ": " + num(r) +
            ", reference " + num(ref));
  }

  int64_t labelTies = 0;
  double maxRel = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double gd = distances[static_cast<size_t>(i)];
    const int32_t gl = run.labels[static_cast<size_t>(i)];
    if (std::isnan(gd) || gl < 0 || gl >= k) {
      p.add(neverWritten(i));
      continue;
    }
    const double rd = along.minDist[static_cast<size_t>(i)];
    const double err = std::fabs(gd - rd);
    if (rd > 0) maxRel = std::max(maxRel, err / rd);
    if (!(err <= tol * rd)) {
      p.add("point " + std::to_string(i) + ": squared distance " + num(gd) + ", reference " +
            num(rd));
      continue;
    }
    const int32_t rl = along.labels[static_cast<size_t>(i)];
    if (gl != rl) {
      const double alt = squaredDistance(s, i, &s.values[static_cast<size_t>(got[gl]) * s.d]);
      if (std::fabs(alt - rd) <= tol * std::max(alt, rd))
        ++labelTies;
      else
        p.add("point " + std::to_string(i) + ": nearest center " + std::to_string(gl) +
              ", reference " + std::to_string(rl));
    }
  }

  v.compared = static_cast<uint64_t>(n);
  v.mismatches = p.count;
  v.maxError = maxRel;
  v.passed = p.count == 0;
  if (!v.passed) {
    v.note = p.first;
  } else {
    v.note =
        same ? "same " + std::to_string(k) + " centers" : "center sequence checked step by step";
    v.note += "; every point's label and distance checked";
    if (centerTies) v.note += "; " + std::to_string(centerTies) + " center choice(s) at a near tie";
    if (labelTies)
      v.note += "; " + std::to_string(labelTies) + " point(s) equidistant from two centers";
  }
  return v;
}

Verification verifyKMeans(const PointSet& s, const KMeansReference& reference,
                          const ClusteringOutput& run, const std::vector<double>& scores) {
  Verification v;
  v.performed = true;
  v.reference = "CPU k-means in double from the same initial centers, " +
                std::to_string(reference.iterations) + " iteration(s)";
  const double tol = tieTolerance(s.d);
  const double scoreTol = scoreTolerance(s.n, s.d);
  v.tolerance = scoreTol;
  const int k = static_cast<int>(reference.sizes.size());
  const int64_t n = s.n;
  Problems p;
  if (static_cast<int64_t>(run.labels.size()) != n) {
    p.add("the run returned " + std::to_string(run.labels.size()) + " labels for " +
          std::to_string(n) + " points");
    v.mismatches = p.count;
    v.note = p.first;
    return v;
  }

  int64_t ties = 0;
  std::vector<int64_t> histogram(static_cast<size_t>(k), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int32_t gl = run.labels[static_cast<size_t>(i)];
    if (gl < 0 || gl >= k) {
      p.add(neverWritten(i));
      continue;
    }
    ++histogram[static_cast<size_t>(gl)];
    const int32_t rl = reference.labels[static_cast<size_t>(i)];
    if (gl == rl) continue;
    double da, ra, db, rb;
    distanceAndRounding(s, i, &reference.centers[static_cast<size_t>(gl) * s.d], da, ra);
    distanceAndRounding(s, i, &reference.centers[static_cast<size_t>(rl) * s.d], db, rb);
    if (std::fabs(da - db) <= tol * std::max(da, db) + ra + rb)
      ++ties;
    else
      p.add("point " + std::to_string(i) + ": cluster " + std::to_string(gl) + " at " + num(da) +
            ", reference cluster " + std::to_string(rl) + " at " + num(db));
  }

  double maxRel = 0;
  auto relative = [](double a, double b) {
    const double err = std::fabs(a - b);
    return b > 0 ? err / b : (err > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  };
  const double inertiaErr = relative(run.inertia, reference.inertia);
  maxRel = std::max(maxRel, inertiaErr);
  if (!(inertiaErr <= scoreTol))
    p.add("inertia " + num(run.inertia) + ", reference " + num(reference.inertia) +
          " (relative error " + num(inertiaErr) + ")");
  if (scores.size() != reference.scores.size()) {
    p.add(std::to_string(scores.size()) + " iteration scores, reference " +
          std::to_string(reference.scores.size()));
  } else {
    for (size_t it = 0; it < scores.size(); ++it) {
      const double e = relative(scores[it], reference.scores[it]);
      maxRel = std::max(maxRel, e);
      if (!(e <= scoreTol)) {
        p.add("score of iteration " + std::to_string(it + 1) + ": " + num(scores[it]) +
              ", reference " + num(reference.scores[it]));
        break;
      }
    }
  }
  if (run.clusterSizes.size() != static_cast<size_t>(k)) {
    p.add("the run reported " + std::to_string(run.clusterSizes.size()) +
          " cluster sizes for K = " + std::to_string(k));
  } else {
    for (int c = 0; c < k; ++c)
      if (run.clusterSizes[static_cast<size_t>(c)] != histogram[static_cast<size_t>(c)]) {
        p.add("cluster " + std::to_string(c) + " size " + std::to_string(run.clusterSizes[c]) +
              " but " + std::to_string(histogram[c]) + " points carry its label");
        break;
      }
  }
  // Centers: a tie that flipped a label moves a mean by one point's share, so they are compared
  // only when no tie occurred, against the data's scale.
  double scale = 0, centerErr = 0;
  for (float x : s.values) scale = std::max(scale, double(std::fabs(x)));
  if (run.centers.size() == reference.centers.size())
    for (size_t e = 0; e < run.centers.size(); ++e)
      centerErr = std::max(centerErr, std::fabs(run.centers[e] - reference.centers[e]));
  else
    p.add("the run returned " + std::to_string(run.centers.size()) +
          " center components, expected " + std::to_string(reference.centers.size()));
  if (ties == 0 && !(centerErr <= 1e-5 * std::max(scale, 1e-30)))
    p.add("centers differ by up to " + num(centerErr) + " (data scale " + num(scale) + ")");

  v.compared = static_cast<uint64_t>(n);
  v.mismatches = p.count;
  v.maxError = maxRel;
  v.passed = p.count == 0;
  if (!v.passed) {
    v.note = p.first;
  } else {
    v.note = "every label checked; inertia and " + std::to_string(scores.size()) +
             " iteration score(s) within " + num(scoreTol) + " relative";
    if (ties) v.note += "; " + std::to_string(ties) + " point(s) at a tie between two clusters";
  }
  return v;
}

KMeansStepCheck::KMeansStepCheck(const PointSet& s, std::vector<float> initial, int k,
                                 bool approximateLabels)
    : s_(s), k_(k), previousCenters_(std::move(initial)), approximate_(approximateLabels) {}

void KMeansStepCheck::problem(const std::string& text) {
  if (problems_++ == 0) firstProblem_ = text;
}

void KMeansStepCheck::iteration(const std::vector<float>& centers,
                                const std::vector<int32_t>& labels, double score,
                                const std::vector<int32_t>& counts) {
  const int d = s_.d;
  const int64_t n = s_.n;
  const std::string it = "iteration " + std::to_string(iterations_ + 1) + ": ";
  ++iterations_;
  if (centers.size() != static_cast<size_t>(k_) * d || labels.size() != static_cast<size_t>(n) ||
      counts.size() != static_cast<size_t>(k_)) {
    problem(it + "the run returned arrays of the wrong size");
    return;
  }
  // The centers this iteration used: the initial ones, or the means of the previous labels.
  if (previousLabels_.empty()) {
    if (centers != previousCenters_) problem(it + "the centers are not the initial centers");
  } else {
    std::vector<double> sum(static_cast<size_t>(k_) * d, 0.0);
    std::vector<int64_t> count(static_cast<size_t>(k_), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int32_t l = previousLabels_[static_cast<size_t>(i)];
      if (l < 0 || l >= k_) continue;  // reported by the previous iteration
      ++count[static_cast<size_t>(l)];
      for (int j = 0; j < d; ++j)
        sum[static_cast<size_t>(l) * d + j] += s_.values[static_cast<size_t>(i) * d + j];
    }
    for (int c = 0; c < k_ && problems_ == 0; ++c)
      for (int j = 0; j < d; ++j) {
        const size_t e = static_cast<size_t>(c) * d + j;
        const double expected = count[c] ? sum[e] / double(count[c]) : double(previousCenters_[e]);
        // The kernel rounds a double mean to float once; its sum order differs: one ulp at most.
        if (!(std::fabs(centers[e] - expected) <=
              3.0 * kUnitRoundoff * std::fabs(expected) + 1e-30)) {
          problem(it + "center " + std::to_string(c) + " component " + std::to_string(j) + " is " +
                  num(centers[e]) + ", the mean of its points is " + num(expected));
          break;
        }
      }
  }

  // Every label the nearest center in double (or a tie), and the score recomputed.
  const double tol = tieTolerance(d);
  constexpr int64_t kChunks = 256;
  std::vector<double> chunkScore(kChunks, 0.0);
  std::vector<int64_t> chunkTies(kChunks, 0), chunkBad(kChunks, 0), firstBad(kChunks, -1);
  std::vector<int64_t> chunkFar(kChunks, 0);  // approximate labels: not the nearest center
  std::vector<std::string> badText(kChunks), farText(kChunks);
  parallelChunks(n, kChunks, [&](int64_t chunk, int64_t b, int64_t e) {
    double score = 0;
    for (int64_t i = b; i < e; ++i) {
      const int32_t l = labels[static_cast<size_t>(i)];
      if (l < 0 || l >= k_) {
        if (chunkBad[chunk]++ == 0) badText[chunk] = neverWritten(i);
        continue;
      }
      double best = 0;
      int bestC = -1;
      double own = 0;
      for (int c = 0; c < k_; ++c) {
        const double dc = squaredDistance(s_, i, &centers[static_cast<size_t>(c) * d]);
        if (c == l) own = dc;
        if (bestC < 0 || dc < best) {
          best = dc;
          bestC = c;
        }
      }
      score += own;
      if (bestC == l) continue;
      const std::string what = "point " + std::to_string(i) + " is in cluster " +
                               std::to_string(l) + " at " + num(own) + "; cluster " +
                               std::to_string(bestC) + " is at " + num(best);
      if (own - best <= tol * own)
        ++chunkTies[chunk];
      else if (approximate_) {
        if (chunkFar[chunk]++ == 0) farText[chunk] = what;
      } else if (chunkBad[chunk]++ == 0)
        badText[chunk] = what;
    }
    chunkScore[static_cast<size_t>(chunk)] = score;
  });
  double expectedScore = 0;
  for (int64_t c = 0; c < kChunks; ++c) {
    expectedScore += chunkScore[c];
    ties_ += chunkTies[c];
    if (chunkFar[c] && notNearest_ == 0) firstNotNearest_ = it + farText[c];
    notNearest_ += static_cast<uint64_t>(chunkFar[c]);
    if (chunkBad[c]) {
      problems_ += static_cast<uint64_t>(chunkBad[c]) - 1;
      problem(it + badText[c]);
    }
  }
  const double err = expectedScore > 0 ? std::fabs(score - expectedScore) / expectedScore
                                       : std::fabs(score - expectedScore);
  maxError_ = std::max(maxError_, err);
  if (!(err <= scoreTolerance(n, d)))
    problem(it + "score " + num(score) + ", the labels' squared distances sum to " +
            num(expectedScore));
  std::vector<int64_t> hist(static_cast<size_t>(k_), 0);
  for (int32_t l : labels)
    if (l >= 0 && l < k_) ++hist[static_cast<size_t>(l)];
  for (int c = 0; c < k_; ++c)
    if (hist[c] != counts[c]) {
      problem(it + "cluster " + std::to_string(c) + " counted " + std::to_string(counts[c]) +
              " points; " + std::to_string(hist[c]) + " carry its label");
      break;
    }
  previousCenters_ = centers;
  previousLabels_ = labels;
  lastCenters_ = centers;
  lastScore_ = score;
}

Verification KMeansStepCheck::finish(const ClusteringOutput& run) const {
  Verification v;
  v.performed = true;
  v.reference = "CPU in double, iteration by iteration from the run's own centers and labels";
  v.tolerance = scoreTolerance(s_.n, s_.d);
  v.compared = static_cast<uint64_t>(s_.n) * static_cast<uint64_t>(std::max(1, iterations_));
  uint64_t problems = problems_;
  std::string first = firstProblem_;
  auto add = [&](const std::string& text, uint64_t count = 1) {
    if (problems == 0) first = text;
    problems += count;
  };
  if (run.iterations != iterations_)
    add("the run reported " + std::to_string(run.iterations) + " iterations; " +
        std::to_string(iterations_) + " were checked");
  // The reported result must be the last iteration's (deterministic kernels give the same bits).
  if (run.labels.size() == previousLabels_.size()) {
    uint64_t differ = 0;
    int64_t at = -1;
    for (size_t i = 0; i < run.labels.size(); ++i)
      if (run.labels[i] != previousLabels_[i]) {
        if (at < 0) at = static_cast<int64_t>(i);
        ++differ;
      }
    if (differ)
      add("point " + std::to_string(at) + ": reported label " + std::to_string(run.labels[at]) +
              ", its last iteration gave " + std::to_string(previousLabels_[at]),
          differ);
  } else {
    add("the run reported " + std::to_string(run.labels.size()) + " labels for " +
        std::to_string(s_.n) + " points");
  }
  if (run.centers != lastCenters_) add("the reported centers are not the last iteration's");
  if (!(std::fabs(run.inertia - lastScore_) <= v.tolerance * std::fabs(lastScore_)))
    add("reported inertia " + num(run.inertia) + ", the last iteration's score is " +
        num(lastScore_));
  v.mismatches = problems;
  v.maxError = maxError_;
  v.passed = problems == 0;
  v.approximate = approximate_;
  v.approximateMismatches = notNearest_;
  if (!v.passed)
    v.note = first;
  else if (approximate_)
    v.note = "approximate labels (GEMM form): " + std::to_string(notNearest_) + " of " +
             std::to_string(v.compared) + " label(s) over " + std::to_string(iterations_) +
             " iteration(s) are not the nearest center" +
             (notNearest_ ? " (first: " + firstNotNearest_ + ")" : std::string()) +
             "; centers, scores and counts exact for its labels" +
             (ties_ ? "; " + std::to_string(ties_) + " label(s) at a tie" : std::string());
  else
    v.note = "every label, center and score of " + std::to_string(iterations_) +
             " iteration(s) checked from the run's own state" +
             (ties_ ? "; " + std::to_string(ties_) + " label(s) at a tie" : std::string());
  return v;
}

}  // namespace kernellab::clustering
