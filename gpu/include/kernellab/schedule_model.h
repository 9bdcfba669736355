// SPDX-License-Identifier: MIT
// Block-schedule model (seed 000, "partition camping"): blocks are dispatched in launch order
// (blockIdx.x fastest) as waves of resident blocks; each block reads one tile of the input and
// writes the transposed tile of the output; those addresses fall in memory partitions. The
// blockIdx interpretation (Cartesian or diagonal) is the kernels' own (transpose_phases.h).
//
// The memory layout is GT200's by default: 8 partitions of 256 bytes, address / 256 mod 8.
// Since compute capability 2.0 GPUs hash addresses over partitions, so the "hashed" layout is
// offered to show the contrast; NVIDIA does not publish its hash, and this one (an XOR fold of
// the higher address bits) only illustrates the effect.
//
// Also here: a summary of a schedule recorded on a GPU (BlockRecord per block), and a simulated
// recording of the model (for previews without a GPU, always labelled as a model).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernellab/hd.h"
#include "kernellab/occupancy.h"
#include "kernellab/result.h"

namespace kernellab::schedule {

enum class Mapping { Cartesian, Diagonal };
const char* toString(Mapping m);                 // "cartesian", "diagonal"
Mapping mappingFromString(const std::string& s); // throws InputError

enum class PartitionMapping { Linear, Hashed };

struct PartitionLayout {
  int count = 8;          // partitions
  int widthBytes = 256;   // consecutive bytes in one partition
  PartitionMapping mapping = PartitionMapping::Linear;
};

// The partition that holds a byte address.
int partitionOf(uint64_t byteAddress, const PartitionLayout& layout);

// Which tile a block moves: the transpose kernels' own functions (cartesianTile, diagonalTile).
BlockCoord tileOf(Mapping m, int bx, int by, int gridX, int gridY);

struct Config {
  int gridX = 16;          // blocks across (tiles across the input's width)
  int gridY = 16;          // blocks down
  int tile = 32;           // tile edge in elements
  int elementBytes = 4;    // float
  Mapping mapping = Mapping::Cartesian;
  int smCount = 30;        // GT200 (GTX 280)
  int blocksPerSM = 1;     // resident blocks per SM: from the occupancy model
  PartitionLayout partitions;
  // Byte address of the output matrix (the input starts at 0). -1: right after the input,
  // rounded up to 2 MiB as cudaMalloc aligns large allocations.
  int64_t outputBase = -1;
};

// Where one block went in the model: launch order, its tile, its wave and SM.
struct BlockPlacement {
  int blockId = 0;         // blockIdx.x + gridDim.x * blockIdx.y: the dispatch order
  BlockCoord blockIdx;
  BlockCoord tile;         // input tile (t.x, t.y) after the mapping; output tile is (t.y, t.x)
  int wave = 0;
  int sm = 0;              // round-robin over SMs within a wave
};

struct WaveLoad {
  int wave = 0;
  int firstBlock = 0;
  int blockCount = 0;
  std::vector<uint64_t> readBytes;   // per partition: input tiles read by this wave's blocks
  std::vector<uint64_t> writeBytes;  // per partition: output tiles written
  int partitionsRead = 0;            // partitions that receive any read
  int partitionsWritten = 0;
  // The busiest partition's share of the wave's bytes: 1/count is perfectly even, 1 means every
  // request of the wave queues at one partition.
  double worstReadShare = 0;
  double worstWriteShare = 0;
};

struct Model {
  Config config;
  int64_t width = 0;       // input matrix columns (gridX * tile)
  int64_t height = 0;      // input matrix rows (gridY * tile)
  uint64_t outputBase = 0;
  int residentBlocks = 0;  // smCount * blocksPerSM: the width of a wave
  std::vector<BlockPlacement> blocks;  // in dispatch order
  std::vector<WaveLoad> waves;
  double meanWorstWriteShare = 0;      // over waves
  double meanWorstReadShare = 0;
  double maxWorstWriteShare = 0;
  double meanPartitionsWritten = 0;
};

// The padded transpose kernel of a request as the occupancy model sees it: its threads per block,
// `registersPerThread` (0 = not known, not limiting) and its tile of tile x (tile + 1) floats of
// shared memory. The schedule model and the Occupancy view both take it, so they agree.
occupancy::Input transposeOccupancyInput(const RunRequest& request, int registersPerThread);

// The configuration of a transpose request on an architecture: the grid of tiles (a partial edge
// tile counts as a whole one), SMs from the architecture, resident blocks from the occupancy
// model for the padded kernel (threads per block, tile*(tile+1) floats of shared memory and
// `registersPerThread`, 0 = not limiting). Throws InputError when the kernel cannot launch there.
Config transposeConfig(const RunRequest& request, const occupancy::ArchSpec& arch,
                       int registersPerThread = 0);

// Throws InputError for an empty or oversized grid (more than 4M blocks), a tile outside 1..64,
// no SMs, no resident blocks, or a partition layout with no partitions or width.
Model simulate(const Config& config);

// A recording of the model in the GPU's format: every block of a wave runs `blockNs` nanoseconds
// starting at wave * blockNs, on its SM. For previews; never presented as a measurement.
std::vector<BlockRecord> simulatedRecords(const Model& model, uint64_t blockNs = 1000);

// What a recorded schedule (VariantResult::schedule) says.
struct RecordedSummary {
  int blocks = 0;
  int smsUsed = 0;
  int maxSmId = -1;
  uint64_t startNs = 0;        // earliest block start
  uint64_t endNs = 0;          // latest block end
  double spanUs = 0;           // end - start
  double meanBlockUs = 0;
  int maxConcurrentPerSM = 0;  // most blocks seen running at once on one SM
  int maxConcurrent = 0;       // most blocks running at once on the whole GPU
  bool tilesComplete = false;  // every tile of the grid appears exactly once
};
RecordedSummary summarizeRecorded(const std::vector<BlockRecord>& records, int gridX = 0,
                                  int gridY = 0);

}  // namespace kernellab::schedule
