// SPDX-License-Identifier: MIT
// The reduction's cases of `kernellab-cli verify`: N of one element, one under a warp, a prime
// above a million, every block size, both operations, and a grid-stride grid of three blocks
// (many loop steps per thread) beside the one that fills the device.
#include "kernellab/reduction.h"
#include "reduction_parts.h"

namespace kernellab::reduction {

std::vector<VerifyCase> verifyCases(bool quick) {
  std::vector<int64_t> sizes = {1, 31, 4099, 1000003};
  std::vector<int> tpbs = {32, 64, 128, 256, 512, 1024};
  if (!quick) {
    sizes = {1, 2, 31, 32, 33, 1000, 4099, 65537, 1000003, 16777217};
  } else {
    tpbs = {32, 256, 1024};
  }
  std::vector<VerifyCase> out;
  for (Operation op : {Operation::Sum, Operation::MaxIndex})
    for (int64_t n : sizes)
      for (int tpb : tpbs)
        for (int blocks : {0, 3}) {
          if (blocks == 3 && (quick ? tpb != 256 : n < 1000)) continue;
          VerifyCase c;
          c.request.family = kFamily;
          c.request.variants = {"all"};
          ReductionProblem& p = c.request.section<ReductionProblem>();
          p.n = n;
          p.op = op;
          p.blocks = blocks;
          c.request.launch.threadsPerBlock = tpb;
          c.request.warmup = 0;
          c.request.repetitions = 1;
          c.request.measureCeilings = false;
          c.label = std::string("reduction ") + toString(op) + " N=" + std::to_string(n) + " tpb " +
                    std::to_string(tpb) +
                    (blocks > 0 ? " blocks " + std::to_string(blocks) : std::string());
          out.push_back(std::move(c));
        }
  return out;
}

}  // namespace kernellab::reduction
