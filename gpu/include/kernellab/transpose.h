// SPDX-License-Identifier: MIT
// The transpose family (seed 000): variants, geometry, CPU reference and CPU executor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernellab/request.h"
#include "kernellab/result.h"
#include "kernellab/transpose_best_phases.h"
#include "kernellab/variant_table.h"

namespace kernellab {

// The transpose's part of a request: RunRequest::section<TransposeProblem>(); JSON "transpose"
// (the size) and "launch" (the tile and rows per thread, since schema 1).
struct TransposeProblem {
  int64_t width = 2048;   // columns of the input matrix (the transpose paper's size)
  int64_t height = 2048;  // rows of the input matrix
  int tile = 32;          // tile edge in elements (16 or 32)
  int rowsPerThread = 4;  // elements each thread moves per tile column (derived: tile^2 / tpb)
};

}  // namespace kernellab

namespace kernellab::transpose {

inline constexpr Family kFamily{"transpose"};

using VariantInfo = EnumVariantInfo<Variant>;

const std::vector<VariantInfo>& variants();
const VariantInfo& info(Variant v);
std::optional<Variant> variantFromString(const std::string& id);
// "all" or a comma list; throws InputError naming the unknown id and listing the known ones.
std::vector<Variant> parseVariants(const std::vector<std::string>& ids);

// Launch shape from the request: block = tile x (threadsPerBlock / tile). Throws InputError with
// the value and the limit when the tile, threads per block or size are out of range.
// `maxThreadsPerBlock` is the device's limit (1024 on every CUDA GPU since Fermi).
Geometry makeGeometry(const RunRequest& r, Variant v, int maxThreadsPerBlock = 1024);
// The best variant's strategies: id ("tile", "aligned-tile", ...), parsing,
// one-line description.
const char* toString(Strategy s);
std::optional<Strategy> strategyFromString(const std::string& id);
std::string strategyDescription(Strategy s);

// Validates the whole request's launch and size against a device; throws InputError.
void validate(const RunRequest& r, const DeviceInfo& device, uint64_t availableBytes);

// Bytes a variant moves once: each input element read once and each output element written once.
double effectiveBytes(int64_t width, int64_t height);

// Seeded input: random floats (never zeros, which would hide unwritten outputs).
std::vector<float> makeInput(int64_t width, int64_t height, uint64_t seed);

// Multithreaded CPU reference, cache-blocked: out[x * height + y] = in[y * width + x].
void referenceTranspose(const float* in, int64_t width, int64_t height, float* out);

// Runs a variant's shared index functions block by block and thread by thread, phases split at
// its barriers, on CPU threads. Each block gets its own shared tile.
void executeOnCpu(Variant v, const Geometry& g, const float* in, float* out);

// Compares bit patterns element by element (transpose moves bits: tolerance 0). NaN never passes.
Verification verifyTranspose(const float* expected, const float* actual, int64_t count);

}  // namespace kernellab::transpose
