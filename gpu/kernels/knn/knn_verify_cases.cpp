// SPDX-License-Identifier: MIT
// KNN's cases of `kernellab-cli verify`: small images that cross every border, partial blocks,
// 2-D blocks, many components and neighbours, the seed's own launch.
#include "kernellab/knn.h"
#include "knn_parts.h"

namespace kernellab::knn {

std::vector<VerifyCase> verifyCases(bool quick) {
  struct Case {
    int rows, cols, components, window, k, blockX, blockY;
    const char* why;
  };
  // Every case runs the four variants against the CPU reference (the rectangular one against the
  // rectangular reference). Sizes are small so compute-sanitizer's memcheck and racecheck, which
  // run the quick list, stay fast; each still crosses the top and bottom borders, where windows
  // slide, and most leave partial blocks at the right and bottom edges.
  std::vector<Case> cases = {
      {1, 2, 1, 1, 1, 32, 1, "two pixels, k = 1"},
      {23, 17, 1, 4, 8, 64, 1, "odd sizes, block wider than the image"},
      {37, 41, 3, 14, 8, 32, 8, "2-D blocks, partial on both edges, C = 3"},
      {6, 9, 2, 14, 8, 16, 4, "window larger than the image: the whole image"},
      {40, 1, 1, 14, 8, 32, 1, "a single column: windows are W pixels"},
      {1, 300, 1, 14, 8, 128, 1, "a single row: windows are the whole row"},
      {29, 31, 32, 3, 32, 16, 16, "C = 32, k = 32, warps span image rows"},
      {50, 45, 5, 5, 1, 33, 3, "k = 1, block of 99 threads (not a warp multiple)"},
  };
  if (!quick) {
    cases.push_back({377, 329, 1, 14, 8, 256, 1, "the seed's image"});
    cases.push_back({377, 329, 1, 14, 8, 329, 1, "the seed's launch: one block per image row"});
    cases.push_back({200, 257, 8, 14, 8, 32, 8, "C = 8, 2-D blocks"});
    cases.push_back({128, 1000, 1, 14, 8, 1024, 1, "1024 threads, shared window above 48 KB"});
    cases.push_back({64, 90, 4, 6, 16, 64, 4, "k = 16 (32 list slots), C = 4"});
    cases.push_back({97, 130, 1, 7, 8, 1, 128, "column blocks: 1 x 128"});
  }
  std::vector<VerifyCase> out;
  for (const auto& c : cases) {
    VerifyCase v;
    v.request.family = knn::kFamily;
    v.request.variants = {"all"};
    KnnProblem& knnProblem = v.request.section<KnnProblem>();
    knnProblem.rows = c.rows;
    knnProblem.cols = c.cols;
    knnProblem.components = c.components;
    knnProblem.window = c.window;
    knnProblem.k = c.k;
    knnProblem.blockX = c.blockX;
    knnProblem.blockY = c.blockY;
    v.request.launch.threadsPerBlock = c.blockX * c.blockY;
    v.request.warmup = 0;
    v.request.repetitions = 1;
    v.request.measureCeilings = false;
    v.label = "knn " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + "x" +
              std::to_string(c.components) + " window " + std::to_string(c.window) + " k " +
              std::to_string(c.k) + " block " + std::to_string(c.blockX) + "x" +
              std::to_string(c.blockY) + " (" + c.why + ")";
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace kernellab::knn
