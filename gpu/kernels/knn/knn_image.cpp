// SPDX-License-Identifier: MIT
// KNN feature images: the seeded synthetic scene and the .npy reader and writer.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>

#include "kernellab/errors.h"
#include "kernellab/host_memory.h"
#include "kernellab/input_file.h"
#include "kernellab/knn.h"
#include "kernellab/npy_header.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"

namespace kernellab::knn {
namespace {

// Uniform in [0, 1) from a hash of (salt, a, b).
double unit(uint64_t salt, uint64_t a, uint64_t b) {
  return static_cast<double>(splitmix64(salt ^ splitmix64(a * 0x100000001B3ull + b)) >> 11) *
         (1.0 / 9007199254740992.0);
}

struct Region {
  double row = 0, col = 0;  // Voronoi site
  double base[kMaxComponents];
  double slopeRow[kMaxComponents];
  double slopeCol[kMaxComponents];
  double texture[kMaxComponents];
  double freqRow = 0, freqCol = 0, phase = 0;
};

}  // namespace

const char* toString(WindowShape w) {
  return w == WindowShape::Rectangular ? "rectangular" : "per-pixel";
}

Image makeImage(int rows, int cols, int components, uint64_t seed) {
  if (rows < 1 || cols < 1 || components < 1 || components > kMaxComponents)
    throw InputError("--image " + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
                     std::to_string(components) + ": rows and columns must be at least 1 and " +
                     "components 1.." + std::to_string(kMaxComponents));
  Image img;
  img.rows = rows;
  img.cols = cols;
  img.components = components;
  const int64_t n = img.pixels();
  img.planes.resize(static_cast<size_t>(n * components));
  const uint64_t salt = splitmix64(seed ^ 0x6B6E6E5F696D6167ull);  // "knn_imag"

  // About one region per 3000 pixels, 6 to 48 of them: large smooth areas, a few edges per window.
  const int nRegions = static_cast<int>(std::clamp<int64_t>(n / 3000, 6, 48));
  std::vector<Region> regions(static_cast<size_t>(nRegions));
  for (int s = 0; s < nRegions; ++s) {
    Region& g = regions[static_cast<size_t>(s)];
    g.row = unit(salt, 1, s) * rows;
    g.col = unit(salt, 2, s) * cols;
    g.freqRow = 1.0 + 5.0 * unit(salt, 3, s);
    g.freqCol = 1.0 + 5.0 * unit(salt, 4, s);
    g.phase = 6.283185307179586 * unit(salt, 5, s);
    for (int c = 0; c < components; ++c) {
      g.base[c] = 0.1 + 0.8 * unit(salt, 10 + c, s);
      g.slopeRow[c] = 0.3 * (unit(salt, 50 + c, s) - 0.5);
      g.slopeCol[c] = 0.3 * (unit(salt, 90 + c, s) - 0.5);
      g.texture[c] = 0.04 * unit(salt, 130 + c, s);
    }
  }
  parallelForEach(rows, [&](int64_t row) {
    const int r = static_cast<int>(row);
    for (int col = 0; col < cols; ++col) {
      // Nearest site, in coordinates scaled to the image so regions are blobs on any aspect ratio.
      int best = 0;
      double bestD = std::numeric_limits<double>::infinity();
      for (int s = 0; s < nRegions; ++s) {
        const double dr = (r - regions[static_cast<size_t>(s)].row) / rows;
        const double dc = (col - regions[static_cast<size_t>(s)].col) / cols;
        const double d = dr * dr + dc * dc;
        if (d < bestD) {
          bestD = d;
          best = s;
        }
      }
      const Region& g = regions[static_cast<size_t>(best)];
      const int64_t p = static_cast<int64_t>(r) * cols + col;
      const double wave =
          std::sin(6.283185307179586 * (g.freqRow * r / rows + g.freqCol * col / cols) + g.phase);
      for (int c = 0; c < components; ++c) {
        // Sum of three uniforms: a bell-shaped noise of standard deviation ~0.007.
        const double noise = 0.012 * (unit(salt, 1000 + p, 3 * c) + unit(salt, 1000 + p, 3 * c + 1) +
                                      unit(salt, 1000 + p, 3 * c + 2) - 1.5);
        double v = g.base[c] + g.slopeRow[c] * (r - g.row) / rows +
                   g.slopeCol[c] * (col - g.col) / cols + g.texture[c] * wave + noise;
        v = 0.5 + (v - 0.5) / (1.0 + c);  // PCA order: later components vary less
        img.planes[static_cast<size_t>(c * n + p)] =
            static_cast<float>(std::nearbyint(v * 4096.0) / 4096.0);
      }
    }
  });
  return img;
}

// ---- .npy -----------------------------------------------------------------------------------
// The header is read by readNpyHeader (npy_header.h): magic, version, dict, checked shape
// product and the data size against the file size, before anything else is allocated.

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  NpyHeader h;
  h.shape = shape;
  return h.shapeText();
}

ImageShape checkHeader(const NpyHeader& h, const std::string& path) {
  if (h.fortranOrder)
    throw InputError(path + ": fortran_order is True; save a C-ordered array "
                     "(np.ascontiguousarray)");
  if (h.shape.size() != 2 && h.shape.size() != 3)
    throw InputError(path + ": shape " + shapeText(h.shape) + " has " +
                     std::to_string(h.shape.size()) +
                     " dimensions; a feature image is (rows, cols) or (rows, cols, components)");
  const int64_t rows = h.shape[0], cols = h.shape[1], comps = h.shape.size() == 3 ? h.shape[2] : 1;
  if (rows < 1 || cols < 1 || comps < 1)
    throw InputError(path + ": shape " + shapeText(h.shape) + " has an empty dimension");
  if (comps > kMaxComponents)
    throw InputError(path + ": shape " + shapeText(h.shape) + " has " + std::to_string(comps) +
                     " components; at most " + std::to_string(kMaxComponents) +
                     " are supported (reduce with PCA first)");
  // h.elements is the checked product (readNpyHeader refuses one beyond 64 bits).
  if (h.elements > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    throw InputError(path + ": shape " + shapeText(h.shape) + " holds " +
                     std::to_string(h.elements) + " values; at most 2147483647 " +
                     "(32-bit indices) are supported");
  return {static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(comps)};
}

// The image of a checked header: values decoded a chunk at a time (never a second copy of the
// file in memory), interleaved (rows, cols, C) in the file, component-major planes in memory.
Image decodeImage(const ByteSource& src, const NpyHeader& h, const ImageShape& s) {
  const std::string& path = src.name();
  const size_t item = static_cast<size_t>(h.itemBytes);
  const int64_t n = static_cast<int64_t>(s.rows) * s.cols;
  const size_t values = static_cast<size_t>(h.elements);
  requireHostMemory(4.0 * double(values),
                    path + " (" + std::to_string(values) + " float32 values)");
  Image img;
  img.rows = s.rows;
  img.cols = s.cols;
  img.components = s.components;
  try {
    img.planes.resize(values);
  } catch (const std::bad_alloc&) {
    throw InputError(path + ": not enough memory for its " + std::to_string(values) + " values");
  }
  constexpr size_t kChunkValues = 1 << 16;
  std::vector<char> raw(kChunkValues * item);
  for (size_t first = 0; first < values; first += kChunkValues) {
    const size_t count = std::min(kChunkValues, values - first);
    src.readExactly(h.dataOffset + first * item, raw.data(), count * item, "the image data");
    for (size_t j = 0; j < count; ++j) {
      const size_t i = first + j;
      double v;
      if (item == 8) {
        std::memcpy(&v, raw.data() + j * 8, 8);
      } else {
        float f;
        std::memcpy(&f, raw.data() + j * 4, 4);
        v = f;
      }
      const int64_t p = static_cast<int64_t>(i) / s.components;
      const int c = static_cast<int>(static_cast<int64_t>(i) % s.components);
      // A float64 beyond float32's range: refused before the conversion (it would be UB).
      const bool fits = std::isfinite(v) && std::fabs(v) <= std::numeric_limits<float>::max();
      if (!fits)
        throw InputError(
            path + ": value at (" + std::to_string(p / s.cols) + ", " + std::to_string(p % s.cols) +
            ", " + std::to_string(c) + ") is " +
            (std::isnan(v) ? "NaN" : (std::isfinite(v) ? "beyond float32's range" : "Inf")) +
            "; KNN needs finite features");
      img.planes[static_cast<size_t>(c * n + p)] = static_cast<float>(v);
    }
  }
  return img;
}

// The loaders name the option a bad path came from.
template <class Fn>
auto forInput(const std::string& path, Fn&& fn) {
  try {
    return fn();
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind("cannot open", 0) == 0)  // "cannot open '<path>' for reading: <reason>"
      throw InputError("--input " + path +
                       ": cannot open the file for reading: " + what.substr(what.rfind(": ") + 2));
    throw;
  }
}

}  // namespace

ImageShape readNpyShape(const std::string& path) {
  return forInput(path, [&] {
    const InputFile file(path);
    return checkHeader(readNpyHeader(file), path);
  });
}

Image loadNpyImage(const std::string& path) {
  return forInput(path, [&] {
    const InputFile file(path);
    const NpyHeader h = readNpyHeader(file);
    return decodeImage(file, h, checkHeader(h, path));
  });
}

Image parseNpyImage(std::string_view bytes, const std::string& source) {
  const MemoryBytes src(bytes, source);
  const NpyHeader h = readNpyHeader(src);
  return decodeImage(src, h, checkHeader(h, source));
}

void saveNpyImage(const std::string& path, const Image& image) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                       std::to_string(image.rows) + ", " + std::to_string(image.cols) +
                       (image.components == 1 ? "" : ", " + std::to_string(image.components)) +
                       "), }";
  // Pad with spaces so the data starts on a 64-byte boundary, ending in a newline.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError("cannot open '" + path + "' for writing");
  out.write("\x93NUMPY\x01\x00", 8);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  const int64_t n = image.pixels();
  std::vector<float> row(static_cast<size_t>(image.cols) * image.components);
  for (int r = 0; r < image.rows; ++r) {
    for (int col = 0; col < image.cols; ++col)
      for (int c = 0; c < image.components; ++c)
        row[static_cast<size_t>(col * image.components + c)] =
            image.planes[static_cast<size_t>(c * n + static_cast<int64_t>(r) * image.cols + col)];
    out.write(reinterpret_cast<const char*>(row.data()),
              static_cast<std::streamsize>(row.size() * sizeof(float)));
  }
  if (!out) throw InputError("failed writing '" + path + "'");
}

Image imageFor(const RunRequest& r) {
  if (!r.section<KnnProblem>().inputPath.empty())
    return loadNpyImage(r.section<KnnProblem>().inputPath);
  return makeImage(r.section<KnnProblem>().rows, r.section<KnnProblem>().cols,
                   r.section<KnnProblem>().components, r.seed);
}

ImageShape shapeFor(const RunRequest& r) {
  if (!r.section<KnnProblem>().inputPath.empty())
    return readNpyShape(r.section<KnnProblem>().inputPath);
  return {r.section<KnnProblem>().rows, r.section<KnnProblem>().cols,
          r.section<KnnProblem>().components};
}

}  // namespace kernellab::knn
