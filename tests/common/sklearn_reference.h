// SPDX-License-Identifier: MIT
// scikit-learn's k-means on real data (tests/data/README.md), computed once
// with scikit-learn 1.2.1 by tests/data/sklearn_reference.py, so the tests need
// no scikit-learn: the CPU suite (tests/model/tst_kmeans_real_data.cpp) and the
// CUDA suite (tests/gpu/tst_clustering_cuda.cpp) check every k-means path
// against the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernellab/clustering_request.h"
#include "kernellab/request.h"

namespace kltest {

// KernelLab sums float32 distances; scikit-learn sums double ones over the same
// float32 points.
inline constexpr double kInertiaRel = 1e-6;

struct RealCase {
  const char *points;
  const char *centers;
  int64_t n;
  int d;
  int k;
  // KMeans(n_clusters=k, init=centers, n_init=1, algorithm="lloyd", tol=0,
  // max_iter=300)
  int sklearnIterations;
  double sklearnInertia;
  const char *sklearnLabels;  // one digit per point
  // Campaign's rule with epsilon 1e-4 from the same centers (computed in
  // double, numpy)
  int scoreRuleIterations;
  double scoreRuleScore;
};

// example-begin sklearn-reference
inline const RealCase kIris{
    "iris.csv",
    "iris_centers_k3.csv",
    150,
    4,
    3,
    12,
    78.855664476958381,
    "00000000000000000000000000000000000000000000000000121222222222222222222222"
    "2221222222222222"
    "222222222212111121111112211112121211221111121111211121112112",
    13,
    78.855664476958367};
inline const RealCase kBreastCancer{
    "breast_cancer.csv",
    "breast_cancer_centers_k2.csv",
    569,
    30,
    2,
    9,
    77943100.072807252,
    "00010101111001111001111000100001000011111101101111111011011111111111110101"
    "1010011100101011"
    "11111011111111111101111111110010011110101111011111101111111111111101111001"
    "0110011111111111"
    "00011101111111111001100111101101011111001111111111011011001011110111110100"
    "0101010001001111"
    "11010110110101111111111111111101011111111111111011101011111111111010101110"
    "1111111101111111"
    "11111001001100111111111111111011001111110111111101111111101111111111111100"
    "1111111011010110"
    "10111111110011111101111111111111111110111001111100111011111111111100111011"
    "1111111110101111"
    "11111111111111111111111000101",
    8,
    77947639.366048664};
// example-end sklearn-reference

inline std::string dataPath(const char *name) {
  return std::string(KERNELLAB_TEST_DATA_DIR "/") + name;
}

// The default k-means from the case's centers file, every variant, one
// repetition.
inline kernellab::RunRequest realDataRequest(const RealCase &c, kernellab::BackendChoice backend) {
  using namespace kernellab;
  RunRequest r;
  r.family = clustering::kKMeans;
  r.variants = {"all"};  // the CPU: the seed's four and pruned; CUDA: also best and the cuBLAS peers
  r.section<ClusteringProblem>().inputPath = dataPath(c.points);
  r.section<ClusteringProblem>().centersPath = dataPath(c.centers);
  r.section<ClusteringProblem>().init = InitMethod::Given;
  r.section<ClusteringProblem>().k = c.k;
  r.launch.threadsPerBlock = 64;
  r.backend = backend;
  r.warmup = 0;
  r.repetitions = 1;
  r.measureCeilings = false;
  return r;
}

inline std::string labelText(const std::vector<int32_t> &labels) {
  std::string s;
  for (int32_t l : labels) s += std::to_string(l);
  return s;
}

}  // namespace kltest
