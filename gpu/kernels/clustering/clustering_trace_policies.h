// SPDX-License-Identifier: MIT
// The clustering access tracer's policies for the block programs of clustering_phases.h: a
// recording Block (TraceBlock) that tells the recorder which thread, barrier phase and program
// segment runs, and a Mem (TraceMem) that keeps real values and records every access with its
// instruction key (Tracing). Used by clustering_access.cpp only.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernellab/access_trace.h"
#include "kernellab/clustering_phases.h"

namespace kernellab::access::detail::clustering_trace {

using kernellab::clustering::PointsView;

// The buffers a clustering kernel can touch, in the CUDA backend's allocation order (global
// memory), then the block's shared arrays.
enum Buf {
  kPoints,
  kLabels,
  kDist,
  kCenterIndex,
  kRadius,
  kCandValue,
  kCandIndex,
  kCentroids,
  kClusterScore,
  kClusterCount,
  kScratchF,  // the reductions' scratch: shared memory, or the block's slice of global memory
  kScratchD,
  kScratchI,
  kStage,  // always shared
  kBufCount
};

struct BufPlan {
  const char* name = "";
  Space space = Space::Global;
  int elementBytes = 4;
  uint64_t base = 0;
};

// ---- recording ------------------------------------------------------------------------------

// The state shared by the recording Block and Mem: which thread, barrier phase and program
// segment is running, and the instruction keys of its accesses.
//
// Key of an access (access_trace.h): segment, label reads so far, occurrence. A segment is one
// phase()/local() call, or the block-uniform code between two (which every CUDA thread runs).
// Inside a segment the n-th access of a thread to one array in one direction is one warp
// instruction, except around data-dependent branches: the centroid update reads a point only when
// the label it just read matches, the score skips points of other clusters. Every such branch
// hangs on a label read, so a label read starts a new loop iteration: its count is part of the
// key and the per-array occurrences restart after it.
class Tracing {
 public:
  Tracing(Recorder* rec, const std::array<BufPlan, kBufCount>& plan, int size)
      : rec_(rec), plan_(plan), size_(size) {
    ids_.fill(-1);
  }

  void beginSegment() {
    ++segment_;
    inThread_ = true;
  }
  void beginThread(int t) {
    rec_->beginThread(barrier_, t);
    kept_ = rec_->keeps(t);
    labelReads_ = 0;
    occurrences_.fill(0);
  }
  void endSegment() {
    ++segment_;
    inThread_ = false;
    labelReads_ = 0;
    occurrences_.fill(0);
  }
  void barrier() { ++barrier_; }

  void note(Kind kind, Buf buf, int64_t element) {
    if (inThread_ && !kept_) return;  // a thread this trace does not record
    const int id = bufferId(buf);
    if (kind == Kind::Load && buf == kLabels) {
      ++labelReads_;
      occurrences_.fill(0);
    }
    const int64_t occurrence = occurrences_[2 * int(buf) + int(kind)]++;
    const int64_t seq = pack(segment_, labelReads_, occurrence);
    if (inThread_) {
      rec_->recordAt(kind, id, element, seq);
      return;
    }
    // Block-uniform code (outside phase/local): on the GPU every thread runs it.
    for (int t = 0; t < size_; ++t) {
      rec_->beginThread(barrier_, t);
      rec_->recordAt(kind, id, element, seq);
    }
  }

 private:
  int bufferId(Buf buf) {
    int& id = ids_[size_t(buf)];
    if (id < 0) {
      const BufPlan& p = plan_[size_t(buf)];
      id = rec_->addBuffer(p.name, p.space, p.elementBytes, p.base);
    }
    return id;
  }

  static int64_t pack(int64_t segment, int64_t labels, int64_t occurrence) {
    constexpr int64_t kField = int64_t(1) << 20;
    if (segment >= 8 * kField || labels >= kField || occurrence >= kField)
      throw InputError("the block's program is too long for the access lens (over " +
                       std::to_string(kField) +
                       " iterations of one loop); choose a smaller problem or more threads");
    return (segment << 40) | (labels << 20) | occurrence;
  }

  Recorder* rec_;
  const std::array<BufPlan, kBufCount>& plan_;
  int size_;
  std::array<int, kBufCount> ids_{};
  int barrier_ = 0;
  int64_t segment_ = 0;
  bool inThread_ = false;
  bool kept_ = true;
  int64_t labelReads_ = 0;
  std::array<int64_t, 2 * kBufCount> occurrences_{};
};

// The block policy of clustering_phases.h, recording: the threads of the block run one after the
// other as in HostBlock, and the recorder learns the thread, the phase and the segment.
template <class State>
class TraceBlock {
 public:
  TraceBlock(int index, int size, int count, std::vector<State>& states, Tracing& tracing)
      : index_(index), size_(size), count_(count), states_(states), tracing_(tracing) {
    states_.assign(static_cast<size_t>(size), State{});
  }
  int size() const { return size_; }
  int index() const { return index_; }
  int count() const { return count_; }

  template <class F>
  void phase(F&& f) {
    local(f);
    tracing_.barrier();
  }
  template <class F>
  void local(F&& f) {
    tracing_.beginSegment();
    for (int t = 0; t < size_; ++t) {
      tracing_.beginThread(t);
      f(t, states_[static_cast<size_t>(t)]);
    }
    tracing_.endSegment();
  }

 private:
  int index_;
  int size_;
  int count_;
  std::vector<State>& states_;
  Tracing& tracing_;
};

// ---- memory -----------------------------------------------------------------------------------

// The variant's global arrays with real values: host copies of the CUDA backend's buffers.
struct Arrays {
  std::vector<int32_t> labels, centerIndex, candIndex, clusterCount;
  std::vector<float> dist, radius, candValue, centroids;
  std::vector<double> clusterScore;
};

// One block's stage and scratch.
struct Workspace {
  std::vector<float> stage, scratchF;
  std::vector<double> scratchD;
  std::vector<int32_t> scratchI;
  void reset(int slots) {
    const size_t n = static_cast<size_t>(slots);
    stage.assign(n, 0.0f);
    scratchF.assign(n, 0.0f);
    scratchD.assign(n, 0.0);
    scratchI.assign(n, 0);
  }
};

// The Mem policy of clustering_phases.h: reads and writes `Arrays` and the block's workspace
// (every index checked), and records each access when `tracing` is set. Scratch elements are
// the global slice's (blockIdx * blockDim + t) in the global-scratch variants.
struct TraceMem {
  Arrays* a = nullptr;
  Workspace* ws = nullptr;
  Tracing* tracing = nullptr;
  int64_t scratchSlice = 0;

  void note(Kind kind, Buf buf, int64_t element) const {
    if (tracing) tracing->note(kind, buf, element);
  }
  int64_t scratchElement(int t) const { return scratchSlice + t; }

  template <class L>
  float loadPoint(const PointsView<L>& X, int64_t i, int j) const {
    if (i < 0 || i >= X.n() || j < 0 || j >= X.d())
      throw std::logic_error("access tracer: point " + std::to_string(i) + " dimension " +
                             std::to_string(j) + " is outside the points");
    const int64_t e = X.element(i, j);
    note(Kind::Load, kPoints, e);
    return X.values() ? X.values()[e] : 0.0f;  // assign traces without values (shapeOnly)
  }
  int32_t loadCenterIndex(int j) const {
    note(Kind::Load, kCenterIndex, j);
    return a->centerIndex.at(size_t(j));
  }
  void storeCenterIndex(int j, int32_t v) const {
    note(Kind::Store, kCenterIndex, j);
    a->centerIndex.at(size_t(j)) = v;
  }
  void storeRadius(int j, float v) const {
    note(Kind::Store, kRadius, j);
    a->radius.at(size_t(j)) = v;
  }
  int32_t loadLabel(int64_t i) const {
    note(Kind::Load, kLabels, i);
    return a->labels.at(size_t(i));
  }
  void storeLabel(int64_t i, int32_t v) const {
    note(Kind::Store, kLabels, i);
    a->labels.at(size_t(i)) = v;
  }
  float loadDist(int64_t i) const {
    note(Kind::Load, kDist, i);
    return a->dist.at(size_t(i));
  }
  void storeDist(int64_t i, float v) const {
    note(Kind::Store, kDist, i);
    a->dist.at(size_t(i)) = v;
  }
  void storeCandidate(int b, float v, int32_t i) const {
    note(Kind::Store, kCandValue, b);
    note(Kind::Store, kCandIndex, b);
    a->candValue.at(size_t(b)) = v;
    a->candIndex.at(size_t(b)) = i;
  }
  float loadCandidateValue(int b) const {
    note(Kind::Load, kCandValue, b);
    return a->candValue.at(size_t(b));
  }
  int32_t loadCandidateIndex(int b) const {
    note(Kind::Load, kCandIndex, b);
    return a->candIndex.at(size_t(b));
  }
  float loadCentroid(int64_t e) const {
    note(Kind::Load, kCentroids, e);
    return a->centroids.at(size_t(e));
  }
  void storeCentroid(int64_t e, float v) const {
    note(Kind::Store, kCentroids, e);
    a->centroids.at(size_t(e)) = v;
  }
  void storeClusterScore(int c, double v) const {
    note(Kind::Store, kClusterScore, c);
    a->clusterScore.at(size_t(c)) = v;
  }
  void storeClusterCount(int c, int32_t v) const {
    note(Kind::Store, kClusterCount, c);
    a->clusterCount.at(size_t(c)) = v;
  }
  float loadStage(int t) const {
    note(Kind::Load, kStage, t);
    return ws->stage.at(size_t(t));
  }
  void storeStage(int t, float v) const {
    note(Kind::Store, kStage, t);
    ws->stage.at(size_t(t)) = v;
  }
  float loadScratchF(int t) const {
    note(Kind::Load, kScratchF, scratchElement(t));
    return ws->scratchF.at(size_t(t));
  }
  void storeScratchF(int t, float v) const {
    note(Kind::Store, kScratchF, scratchElement(t));
    ws->scratchF.at(size_t(t)) = v;
  }
  double loadScratchD(int t) const {
    note(Kind::Load, kScratchD, scratchElement(t));
    return ws->scratchD.at(size_t(t));
  }
  void storeScratchD(int t, double v) const {
    note(Kind::Store, kScratchD, scratchElement(t));
    ws->scratchD.at(size_t(t)) = v;
  }
  int32_t loadScratchI(int t) const {
    note(Kind::Load, kScratchI, scratchElement(t));
    return ws->scratchI.at(size_t(t));
  }
  void storeScratchI(int t, int32_t v) const {
    note(Kind::Store, kScratchI, scratchElement(t));
    ws->scratchI.at(size_t(t)) = v;
  }
};

}  // namespace kernellab::access::detail::clustering_trace
