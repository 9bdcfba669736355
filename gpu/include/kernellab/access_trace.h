// SPDX-License-Identifier: MIT
// Address traces for the access-pattern model. A family's KL_HD phase functions run on the CPU
// with a tracing `Mem` policy; instead of moving data it records, per thread, every access:
// global or shared, load or store, which buffer, which element, in program order.
//
// To trace a family: write a Mem adapter whose load/store methods call Recorder::record with the
// right buffer id (a few lines, see TransposeTraceMem in kernels/transpose/transpose_access.cpp),
// run the block's phases with runBlockPhases, calling Recorder::beginThread before each thread's
// phase, and add the family to traceBlock (gpu/src/access_families.cpp).
//
// Which accesses of a warp's lanes are one request: by default the n-th access of each thread in
// a phase (`seq`). That is right while the lanes of a warp issue the same accesses in the same
// order; a lane that skips an access inside a loop (k-means's centroid update reads a point only
// when its label matches, a KNN thread skips its own pixel) would shift its later accesses onto
// the wrong requests. Such tracers name the instruction themselves with recordAt: a key that is
// equal for the lanes executing the same access in the same loop iteration and increases in
// program order (kernels/clustering/clustering_access.cpp, kernels/knn/knn_access.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernellab/errors.h"
#include "kernellab/hd.h"

namespace kernellab::access {

// A block whose trace would exceed the recorder's limit. analyze() then records it warp by warp
// (the block's program runs once per warp, each run recording one warp's threads).
class TraceTooLarge : public InputError {
 public:
  using InputError::InputError;
};

// The threads of a block a trace records: [first, first + count), every thread when count < 0.
struct ThreadRange {
  int first = 0;
  int count = -1;
  bool contains(int t) const { return count < 0 || (t >= first && t < first + count); }
  // How many of a block's `threads` are recorded.
  int of(int threads) const {
    if (count < 0) return threads;
    const int end = first + count < threads ? first + count : threads;
    return end > first ? end - first : 0;
  }
};

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
  int64_t seq = 0;         // n-th access of this thread in this phase, or the tracer's key
                           // (recordAt): equal seq in one phase = the same warp instruction
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
  // Room for this many accesses (at most maxRecords), so a trace of known size never reallocates.
  void reserve(size_t records) { accesses_.reserve(records < maxRecords_ ? records : maxRecords_); }
  // Records only these threads' accesses from now on (the others run but leave no trace).
  void keepOnly(ThreadRange threads) { keep_ = threads; }
  bool keeps(int thread) const { return keep_.contains(thread); }
  const ThreadRange& kept() const { return keep_; }
  // Every access recorded until the next call belongs to this thread and phase.
  void beginThread(int phase, int thread) {
    phase_ = phase;
    thread_ = thread;
    seq_ = 0;
  }
  // Throws TraceTooLarge when the trace grows past maxRecords.
  void record(Kind kind, int buffer, int64_t element);
  // As record, with the instruction key given by the tracer (see the top of this file).
  void recordAt(Kind kind, int buffer, int64_t element, int64_t seq);
  int phase() const { return phase_; }
  int thread() const { return thread_; }
  size_t maxRecords() const { return maxRecords_; }

  const std::vector<BufferInfo>& buffers() const { return buffers_; }
  const std::vector<Access>& accesses() const { return accesses_; }

 private:
  std::vector<BufferInfo> buffers_;
  std::vector<Access> accesses_;
  size_t maxRecords_;
  ThreadRange keep_;
  int phase_ = 0;
  int thread_ = 0;
  int64_t seq_ = 0;
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
