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
  return out;
}

}  // namespace kernellab
