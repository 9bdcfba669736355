// SPDX-License-Identifier: MIT
// The NumPy .npy header, read once for the clustering points loader and the KNN image loader:
// "\x93NUMPY", version, header length, then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (r, c), }. The shape is parsed in checked
// 64-bit arithmetic (a product that overflows is refused, never wrapped), and every malformed
// header gets a message that says what is wrong. Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernellab/input_file.h"

namespace kernellab {

struct NpyHeader {
  std::string descr;  // as written, e.g. "<f4"
  int itemBytes = 0;  // 4 (float32) or 8 (float64): the only dtypes the loaders take
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  uint64_t elements = 0;          // product of the shape (1 for a 0-d array)
  uint64_t dataOffset = 0;        // first data byte
  uint64_t dataBytes = 0;         // elements * itemBytes
  std::string shapeText() const;  // "(377, 329, 8)"
};

// Reads and checks the header: the magic string, a truncated preamble or header ("truncated
// header"), the dict's syntax, dtype float32/float64 little-endian, the shape's product, and that
// the data the header claims is exactly what follows it in `bytes` (no truncated or padded file).
// Fortran order is reported in the header, for the caller to refuse with its own words.
NpyHeader readNpyHeader(const ByteSource& bytes);

}  // namespace kernellab
