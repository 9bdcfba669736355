// SPDX-License-Identifier: MIT
// The verify suite: awkward sizes (1x1, thin, non-multiples of the tile) and every launch shape.
#include "kernellab/verify_suite.h"

#include <algorithm>

namespace kernellab {

std::vector<VerifyCase> transposeVerifyCases(bool quick) {
  struct Size {
    int64_t w, h;
  };
  // 1x1 and thin shapes exercise the bounds checks; 33x65 and 1000x37 leave partial tiles on
  // both edges; 2048x512 and 512x2048 are non-square grids (the general diagonal formula);
  // 1024x1024 a square grid (the square formula).
  std::vector<Size> sizes = {{1, 1},       {1000, 37},  {37, 1000}, {33, 65},   {1, 777},
                             {777, 1},     {1024, 1024}, {2048, 512}, {512, 2048}, {4097, 3}};
  if (!quick) sizes.push_back({3000, 2001});
  struct Shape {
    int tile, tpb;
  };
  std::vector<Shape> shapes = {{32, 256}, {16, 256}, {32, 1024}, {32, 32}, {16, 64}};
  if (!quick) shapes.push_back({16, 16});
  std::vector<VerifyCase> out;
  for (const auto& s : sizes) {
    for (const auto& sh : shapes) {
      VerifyCase c;
      c.request.family = Family::Transpose;
      c.request.variants = {"all"};
      c.request.transpose.width = s.w;
      c.request.transpose.height = s.h;
      c.request.launch.tile = sh.tile;
      c.request.launch.threadsPerBlock = sh.tpb;
      c.request.warmup = 0;
      c.request.repetitions = 1;
      c.request.measureCeilings = false;
      c.label = "transpose " + std::to_string(s.w) + "x" + std::to_string(s.h) + " tile " +
                std::to_string(sh.tile) + " tpb " + std::to_string(sh.tpb);
      out.push_back(std::move(c));
    }
  }
  // The best variant's strategies by shape (issue 18) past one block, with their tails: narrow
  // widths and heights with a count of points not a multiple of 4, staged rows and columns,
  // sector-aligned output rows at an odd size.
  const Size strategyShapes[] = {{16, 100003}, {100003, 16}, {3, 65537},
                                 {200, 20011}, {20011, 200}, {1025, 1031}};
  for (const auto& s : strategyShapes) {
    VerifyCase c;
    c.request.family = Family::Transpose;
    c.request.variants = {"copy", "best"};
    c.request.transpose.width = s.w;
    c.request.transpose.height = s.h;
    c.request.warmup = 0;
    c.request.repetitions = 1;
    c.request.measureCeilings = false;
    c.label = "transpose best " + std::to_string(s.w) + "x" + std::to_string(s.h);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<VerifyCase> clusteringVerifyCases(bool quick) {
  struct Size {
    int64_t n;
    int k, d;
    const char* shape;
  };
  // 10x2x2: the thesis's gold-file size. 1000x7x3 and 4099x10x17: N a multiple of neither the
  // block nor K. 517x3x70 and 3001x5x300: D above small blocks (the center is staged in several
  // chunks). 64x64x4: K = N. 777x1x1: one cluster, one dimension. 30011x16x40 blobs: a larger
  // random set with interleaved clusters. 5003x150x12 blobs: K above the 128 centers the best
  // k-means engine's tensor-core assign keeps on chip (its cuBLAS path).
  std::vector<Size> sizes = {{10, 2, 2, "seed"}, {1000, 7, 3, "seed"}, {517, 3, 70, "seed"},
                             {64, 64, 4, "seed"}, {777, 1, 1, "seed"}};
  if (!quick) {
    sizes.push_back({4099, 10, 17, "seed"});
    sizes.push_back({3001, 5, 300, "blobs"});
    sizes.push_back({30011, 16, 40, "blobs"});
    sizes.push_back({5003, 150, 12, "blobs"});
  }
  std::vector<int> tpbs = quick ? std::vector<int>{64, 96, 1000}
                                : std::vector<int>{64, 96, 128, 256, 512, 1000, 1024};
  std::vector<VerifyCase> out;
  for (Family f : {Family::KCenters, Family::KMeans}) {
    for (const auto& s : sizes) {
      std::vector<int> list = tpbs;
      if (!quick && s.n <= 1000) {  // tiny blocks: one thread, and a partial warp
        list.push_back(1);
        list.push_back(33);
      }
      for (int tpb : list) {
        VerifyCase c;
        RunRequest& r = c.request;
        r.family = f;
        r.variants = {"all"};
        r.clustering.n = s.n;
        r.clustering.k = s.k;
        r.clustering.d = s.d;
        r.clustering.shape = *shapeFromString(s.shape);
        r.clustering.maxIterations = 10;
        r.clustering.init = f == Family::KMeans && s.k > 2 ? InitMethod::KMeansPlusPlus : InitMethod::First;
        r.clustering.keepLabels = false;
        r.launch.threadsPerBlock = tpb;
        r.warmup = 0;
        r.repetitions = 1;
        r.measureCeilings = false;
        c.label = std::string(toString(f)) + " N=" + std::to_string(s.n) + " K=" +
                  std::to_string(s.k) + " D=" + std::to_string(s.d) + " " + s.shape + " tpb " +
                  std::to_string(tpb);
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

std::vector<VerifyCase> knnVerifyCases(bool quick) {
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
    v.request.family = Family::Knn;
    v.request.variants = {"all"};
    v.request.knn.rows = c.rows;
    v.request.knn.cols = c.cols;
    v.request.knn.components = c.components;
    v.request.knn.window = c.window;
    v.request.knn.k = c.k;
    v.request.launch.blockX = c.blockX;
    v.request.launch.blockY = c.blockY;
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

std::vector<VerifyCase> verifySuite(bool quick, const std::vector<Family>& families) {
  auto wanted = [&](Family f) {
    return families.empty() || std::find(families.begin(), families.end(), f) != families.end();
  };
  std::vector<VerifyCase> out;
  if (wanted(Family::Transpose)) {
    auto t = transposeVerifyCases(quick);
    out.insert(out.end(), t.begin(), t.end());
  }
  for (auto& c : clusteringVerifyCases(quick))
    if (wanted(c.request.family)) out.push_back(std::move(c));
  if (wanted(Family::Knn)) {
    auto t = knnVerifyCases(quick);
    out.insert(out.end(), t.begin(), t.end());
  }
  return out;
}

}  // namespace kernellab
