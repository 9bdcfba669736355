// SPDX-License-Identifier: MIT
// The transpose's cases of `kernellab-cli verify`: awkward sizes (1x1, thin, non-multiples of the
// tile), every launch shape, and the best variant's strategies past one block.
#include "kernellab/transpose.h"
#include "transpose_parts.h"

namespace kernellab::transpose {

std::vector<VerifyCase> verifyCases(bool quick) {
  struct Size {
    int64_t w, h;
  };
  // 1x1 and thin shapes exercise the bounds checks; 33x65 and 1000x37 leave partial tiles on
  // both edges; 2048x512 and 512x2048 are non-square grids (the general diagonal formula);
  // 1024x1024 a square grid (the square formula).
  std::vector<Size> sizes = {{1, 1},   {1000, 37},   {37, 1000},  {33, 65},    {1, 777},
                             {777, 1}, {1024, 1024}, {2048, 512}, {512, 2048}, {4097, 3}};
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
      c.request.family = transpose::kFamily;
      c.request.variants = {"all"};
      TransposeProblem& matrix = c.request.section<TransposeProblem>();
      matrix.width = s.w;
      matrix.height = s.h;
      matrix.tile = sh.tile;
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
  // sector-aligned output rows at an odd size, bulk rows (on cc 9.0+) with a partial last group.
  const Size strategyShapes[] = {{16, 100003}, {100003, 16}, {3, 65537}, {200, 20011},
                                 {20011, 200}, {1025, 1031}, {200, 20008}, {120, 4104}};
  for (const auto& s : strategyShapes) {
    VerifyCase c;
    c.request.family = transpose::kFamily;
    c.request.variants = {"copy", "best"};
    c.request.section<TransposeProblem>().width = s.w;
    c.request.section<TransposeProblem>().height = s.h;
    c.request.warmup = 0;
    c.request.repetitions = 1;
    c.request.measureCeilings = false;
    c.label = "transpose best " + std::to_string(s.w) + "x" + std::to_string(s.h);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kernellab::transpose
