// SPDX-License-Identifier: MIT
// Address traces for the access-pattern model. A family's KL_HD phase functions run on the CPU
// with a tracing `Mem` policy; instead of moving data it records, per thread, every access:
// global or shared, load or store, which buffer, which element, in program order.
//
// To trace a family: write a Mem adapter whose load/store methods call Recorder::record with the
// right buffer id (a few lines, see TransposeTraceMem in kernels/transpose/transpose_access.cpp),
// run the block's phases with runBlockPhases, calling Recorder::beginThread before each thread's
// phase, and add the family to traceBlock (gpu/src/access_families.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernellab/hd.h"

namespace kernellab::access {

enum class Space : uint8_t { Global, Shared };
enum class Kind : uint8_t { Load, Store };
const char* toString(Space s);  // "global", "shared"
const char* toString(Kind k);   // "load", "store"

// A named array the kernel touches: global buffers get a byte base address (cudaMalloc-like
// alignment), shared arrays start at 0 in their block's shared window.
struct BufferInfo {
  std::string name;        // "in", "out", "tile"
  Space space = Space::Global;
  int elementBytes = 4;
  uint64_t base = 0;       // byte address of element 0
};

struct Access {
  int thread = 0;          // linear thread index in the block: tx + blockDim.x * ty
  int phase = 0;           // barrier-separated phase
  int seq = 0;             // n-th access of this thread in this phase (its "instruction")
  Space space = Space::Global;
  Kind kind = Kind::Load;
  int buffer = 0;          // index into the trace's buffers
  int64_t element = 0;     // element index within the buffer
  uint64_t address = 0;    // byte address: base + element * elementBytes
};

class Recorder {
 public:
  // `maxRecords` guards against tracing a block that loops over a huge input.
  explicit Recorder(size_t maxRecords = size_t(1) << 22) : maxRecords_(maxRecords) {}

  int addBuffer(std::string name, Space space, int elementBytes, uint64_t base = 0);
  // Every access recorded until the next call belongs to this thread and phase.
  void beginThread(int phase, int thread) {
    phase_ = phase;
    thread_ = thread;
    seq_ = 0;
  }
  // Throws InputError when the trace grows past maxRecords.
  void record(Kind kind, int buffer, int64_t element);

  const std::vector<BufferInfo>& buffers() const { return buffers_; }
  const std::vector<Access>& accesses() const { return accesses_; }

 private:
  std::vector<BufferInfo> buffers_;
  std::vector<Access> accesses_;
  size_t maxRecords_;
  int phase_ = 0;
  int thread_ = 0;
  int seq_ = 0;
};

// One block's trace and the launch shape it came from.
struct BlockTrace {
  Dim2 blockDim;
  Dim2 gridDim;
  BlockCoord blockIdx;
  std::string kernel;        // CUDA kernel name
  std::string description;   // one line: what the block does (its tile, its mapping)
  Recorder recorder;
};

}  // namespace kernellab::access
