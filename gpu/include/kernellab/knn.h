// SPDX-License-Identifier: MIT
// The window-KNN family (seed 002): variants, feature images (generated or .npy), launch
// geometry, the CPU reference, the CPU executor and the verification of neighbour lists.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernellab/knn_phases.h"
#include "kernellab/request.h"
#include "kernellab/result.h"
#include "kernellab/variant_table.h"

namespace kernellab {

// KNN's part of a request: RunRequest::section<KnnProblem>(); JSON "knn" and "launch" (the
// block shape, since schema 1).
struct KnnProblem {
  int rows = 377;
  int cols = 329;
  int components = 1;
  int window = 14;  // rows of the search window around each pixel
  int k = 8;
  std::string inputPath;        // .npy (rows, cols[, C]); empty = generate
  bool keepNeighbours = false;  // carry every variant's neighbour lists in the result (large)
  int blockX = 0;               // block shape in pixels; 0 = derive from threads per block
  int blockY = 0;
};

// KNN: the rectangular-window variant against the per-pixel window reference. Seed 002 counted
// differing lines of its neighbour file, one line per neighbour (9822 of 377 x 329 x 8: "under
// 1%"): the slot counts below. The pixel counts say how many whole lists differ.
struct KnnWindowMismatch {
  std::string reference;             // what it was compared against
  uint64_t pixels = 0;               // neighbour lists compared
  uint64_t mismatched = 0;           // lists that differ in any slot
  uint64_t tieSwaps = 0;             // lists with the same distances: other pixels (or another
                                     // order) among equal distances
  uint64_t differentNeighbours = 0;  // lists with a strictly nearer pixel from outside the
                                     // per-pixel window
  double mismatchPct = 0;            // mismatched / pixels, in percent
  uint64_t slotsCompared = 0;        // neighbours compared (pixels x k): the seed's lines
  uint64_t slotsMismatched = 0;      // neighbours whose index or distance differs
  uint64_t slotTieSwaps = 0;         // ... with the same distance (another pixel at a tie)
  double slotMismatchPct = 0;        // slotsMismatched / slots, in percent
};

// KNN facts of one variant, known on every backend.
struct KnnDetails {
  std::string window;                // "per-pixel" or "rectangular"
  uint64_t sharedBytesPerBlock = 0;  // dynamic shared memory the variant asks for per block
  bool sharedOptIn = false;          // above CUDA's 48 KiB default: needs cudaFuncSetAttribute
  int64_t candidatesPerPixel = 0;    // pixels each neighbour list is chosen from
  uint64_t referencePixels = 0;      // pixels compared with the CPU reference
  bool referenceSampled = false;     // true: a sample of rows (every pixel is still checked for
                                     // consistency: valid, in its window, exact distances, sorted)
  std::optional<KnnWindowMismatch> versusPerPixel;  // the rectangular variant only
  int k = 0;                     // kept neighbour lists (request knn.keepNeighbours)
  std::vector<int32_t> indices;  // rows * cols * k, pixel-major, nearest first
  std::vector<float> squaredDistances;
};

// JSON (knn_descriptor.cpp): a variant's "knn" object.
void to_json(nlohmann::json& j, const KnnWindowMismatch& v);
void from_json(const nlohmann::json& j, KnnWindowMismatch& v);
void to_json(nlohmann::json& j, const KnnDetails& v);
void from_json(const nlohmann::json& j, KnnDetails& v);

}  // namespace kernellab

namespace kernellab::knn {

inline constexpr Family kFamily{"knn"};

using VariantInfo = EnumVariantInfo<Variant>;

const std::vector<VariantInfo>& variants();
const VariantInfo& info(Variant v);
std::optional<Variant> variantFromString(const std::string& id);
// "all" or ids; throws InputError naming the unknown id and listing the known ones.
std::vector<Variant> parseVariants(const std::vector<std::string>& ids);

enum class WindowShape { PerPixel, Rectangular };
inline WindowShape windowOf(Variant v) {
  return v == Variant::SharedRowRect ? WindowShape::Rectangular : WindowShape::PerPixel;
}
const char* toString(WindowShape w);

// ---- images ---------------------------------------------------------------------------------

// A feature image, component-major: planes[c * rows * cols + r * cols + col].
struct Image {
  int rows = 0;
  int cols = 0;
  int components = 0;
  std::vector<float> planes;
  int64_t pixels() const { return static_cast<int64_t>(rows) * cols; }
  float at(int64_t pixel, int c) const { return planes[static_cast<size_t>(c * pixels() + pixel)]; }
};

// Seeded synthetic image, like a hyperspectral scene after PCA: smooth regions (a Voronoi
// partition, each region a gently sloped, slightly textured surface) with sharp edges between
// them, plus noise. Component c has 1 / (1 + c) of the first one's contrast (PCA orders
// components by variance). Values are quantised to multiples of 2^-12, as a 12-bit sensor
// would give, so exact distance ties occur and the tie rule is exercised.
Image makeImage(int rows, int cols, int components, uint64_t seed);

// Dimensions of a .npy file without reading its data: {rows, cols, components}.
struct ImageShape {
  int rows = 0;
  int cols = 0;
  int components = 0;
};
// Reads the header: float32 or float64, C order, shape (rows, cols) or (rows, cols, C) with
// C <= 32. Throws InputError naming the file, the value and the limit.
ImageShape readNpyShape(const std::string& path);
// Reads the whole file (a regular file, its data size checked against the header and the memory
// available first); also refuses NaN and Inf (naming the first one's position).
Image loadNpyImage(const std::string& path);
// The same from bytes already in memory (the fuzz target and tests); `source` names them.
Image parseNpyImage(std::string_view bytes, const std::string& source);
// Writes float32 (rows, cols, C) in C order (rows, cols when C == 1): for tests and exports.
void saveNpyImage(const std::string& path, const Image& image);

// The request's image: loaded from knn.inputPath, or generated from its size and the seed.
Image imageFor(const RunRequest& r);
// The request's image size (reads only the header of an input file).
ImageShape shapeFor(const RunRequest& r);

// ---- geometry and validation ----------------------------------------------------------------

// The CPU executor refuses the same shared memory per block as the reference GPU (H200: 227 KiB
// with opt-in), so a configuration that runs on the CPU also runs there.
inline constexpr uint64_t kEmulatedSharedOptinBytes = 232448;
// CUDA's default limit without cudaFuncSetAttribute (48 KiB).
inline constexpr uint64_t kDefaultSharedBytes = 49152;
// The largest window accepted (a larger window than the image is clamped to the image).
inline constexpr int kMaxWindow = 65535;

// Window, list and image facts only (no launch shape): what the reference needs.
Geometry windowGeometry(ImageShape shape, int window, int k);
// Launch geometry of a variant: block shape from the request (0 = derive from threadsPerBlock),
// grid, shared memory. Throws InputError with the value and the limit.
Geometry makeGeometry(ImageShape shape, const RunRequest& r, Variant v, int maxThreadsPerBlock = 1024);
// Dynamic shared memory a variant asks for per block, in bytes.
inline uint64_t sharedBytes(const Geometry& g) { return 4ull * static_cast<uint64_t>(g.sharedFloats); }
// Candidates of every pixel: min(W * cols, pixels - 1) per-pixel, (rect rows * cols) - 1 rectangular.
int64_t candidatesPerPixel(const Geometry& g, WindowShape w);
// Squared-distance terms (pixels x candidates x components) of one launch.
double distanceTerms(const Geometry& g, WindowShape w);

// Checks sizes, window, k, launch shape, repetitions and memory; throws InputError.
void validate(const RunRequest& r, ImageShape shape, const DeviceInfo& device,
              uint64_t availableBytes);

// ---- reference, executor, verification ------------------------------------------------------

// Neighbour lists, pixel-major: slot p * k + j is the j-th nearest of pixel p.
struct Lists {
  int k = 0;
  std::vector<int32_t> index;
  std::vector<float> squaredDistance;
  void reset(int64_t pixels, int kk);  // poison: index -1, distance NaN
};

// Multithreaded CPU reference, written independently of the phase functions (all candidates,
// then a partial sort by (distance, index)); same window and distance definitions. Computes the
// listed rows only (all rows when `rows` is empty); other slots are left as they are.
void referenceKnn(const Image& img, const Geometry& g, WindowShape w, Lists& out,
                  const std::vector<int>& rows = {});
// The k nearest of one pixel (for the view), nearest first.
struct Neighbour {
  int32_t index = -1;
  float squaredDistance = 0;
};
std::vector<Neighbour> referenceNeighbours(const Image& img, const Geometry& g, WindowShape w,
                                           int64_t pixel);

// Runs a variant's shared phase functions block by block and thread by thread, phases split at
// the barriers, on CPU threads. Each block gets its own NaN-filled shared array; every global and
// shared index is bounds-checked (std::logic_error names the index).
void executeOnCpu(Variant v, const Geometry& g, const Image& img, Lists& out);

// Rows the reference computes: all of them when pixels x candidates x C is at most
// `budgetTerms`; otherwise the rows where the window rule changes (first, last, where the window
// stops sliding) and evenly spaced rows up to the budget.
std::vector<int> referenceRows(const Geometry& g, WindowShape w, double budgetTerms);
inline constexpr double kReferenceBudgetTerms = 2e10;

// Exact comparison (index and distance bits) over the given rows (all when empty).
Verification compareLists(const Lists& expected, const Lists& actual, const Geometry& g,
                          const std::vector<int>& rows = {});
// Every pixel's list is a valid answer shape: k distinct indices inside the pixel's window, not
// the pixel itself, distances recomputed bit-exactly, sorted by (distance, index). Returns the
// number of bad lists and describes the first in `firstProblem`.
uint64_t checkConsistency(const Image& img, const Geometry& g, WindowShape w, const Lists& lists,
                          std::string& firstProblem);
// The rectangular variant against the per-pixel reference: identical lists, tie swaps (the same
// distances, other pixels or another order among equal distances) and different neighbours (a
// strictly nearer pixel found outside the per-pixel window).
KnnWindowMismatch classifyAgainstPerPixel(const Lists& perPixel, const Lists& rect,
                                          const Geometry& g, const std::vector<int>& rows = {});

}  // namespace kernellab::knn
