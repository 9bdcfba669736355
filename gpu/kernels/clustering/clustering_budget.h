// SPDX-License-Identifier: MIT
// What a clustering run needs before it starts: the memory of every per-point, per-dimension and
// per-cluster buffer of the chosen backend (host and device), compared with what is available
// now, and coordinates whose squared distances fit float32. A run that cannot finish is refused
// up front with the numbers instead of failing (or thrashing) half-way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernellab/clustering.h"

namespace kernellab::clustering {

// One buffer of the estimate, for the message: "reference sums 4.00 GB".
struct MemoryPart {
  std::string name;
  double bytes = 0;
};

struct MemoryNeed {
  std::vector<MemoryPart> host, device;  // peak: the largest variant, not their sum
  double hostBytes() const;
  double deviceBytes() const;
};

struct BudgetInput {
  Family family = clustering::kKMeans;
  int64_t n = 0;
  int d = 0;
  int k = 0;
  int tpb = 256;
  std::vector<VariantInfo> variants;
  bool measureCeilings = true;
  bool useCuda = false;
  bool pointsLoaded = false;  // the dataset is already in memory (a cached or loaded file)
  bool generated = true;      // generated points also carry their generator labels
  bool fixedPointStop = false;  // k-means under the fixed-point rule (labels kept on the host)
};

MemoryNeed estimateMemory(const BudgetInput& in);

// The largest buffers first, "reference sums 4.00 GB, points 1.20 GB, ..." (at most four).
std::string describeParts(const std::vector<MemoryPart>& parts);

}  // namespace kernellab::clustering
