// SPDX-License-Identifier: MIT
// The CPU executor's block policy for block programs written with phase()/local() (see
// clustering_phases.h): the threads of one block run one after the other, phase by phase, and a
// hazard tracker checks the block's shared slots the way compute-sanitizer's racecheck does: two
// different threads touching one slot between two barriers, at least one of them writing, is a
// race, reported with the slot, the threads and the phase.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kernellab {

// Tracks reads and writes of block-private slots (shared memory, or a block's slice of global
// scratch) between barriers. `space` names an array (stage, scratch, ...); slots are indices.
class HazardTracker {
 public:
  explicit HazardTracker(std::string kernel = {}) : kernel_(std::move(kernel)) {}

  void reset(int spaces, int slotCount, int block) {
    slots_.assign(static_cast<size_t>(spaces) * slotCount, Slot{});
    spaceSize_ = slotCount;
    epoch_ = 0;
    thread_ = 0;
    block_ = block;
  }
  void setKernel(const char* kernel) {
    if (kernel_ != kernel) kernel_ = kernel;
  }
  void setThread(int t) { thread_ = t; }
  void barrier() { ++epoch_; }

  void read(int space, int slot) {
    Slot& s = at(space, slot);
    if (s.writeEpoch == epoch_ && s.writer != thread_)
      fail("reads", space, slot, s.writer, "wrote");
    if (s.readEpoch == epoch_ && s.reader != thread_)
      s.reader = kMany;
    else if (s.readEpoch != epoch_)
      s.reader = thread_;
    s.readEpoch = epoch_;
  }

  void write(int space, int slot) {
    Slot& s = at(space, slot);
    if (s.writeEpoch == epoch_ && s.writer != thread_)
      fail("writes", space, slot, s.writer, "wrote");
    if (s.readEpoch == epoch_ && s.reader != thread_) fail("writes", space, slot, s.reader, "read");
    s.writer = thread_;
    s.writeEpoch = epoch_;
  }

 private:
  static constexpr int kMany = -2;  // several threads read the slot in this phase
  struct Slot {
    int64_t writeEpoch = -1;
    int64_t readEpoch = -1;
    int writer = -1;
    int reader = -1;
  };

  Slot& at(int space, int slot) {
    if (slot < 0 || slot >= spaceSize_)
      throw std::logic_error(kernel_ + ": block " + std::to_string(block_) + " thread " +
                             std::to_string(thread_) + " touches slot " + std::to_string(slot) +
                             " of a " + std::to_string(spaceSize_) + "-slot array");
    return slots_[static_cast<size_t>(space) * spaceSize_ + slot];
  }

  [[noreturn]] void fail(const char* what, int space, int slot, int other, const char* otherDid) {
    const std::string who =
        other == kMany ? std::string("other threads") : "thread " + std::to_string(other);
    throw std::logic_error(kernel_ + ": race in block " + std::to_string(block_) + ": thread " +
                           std::to_string(thread_) + " " + what + " slot " + std::to_string(slot) +
                           " of array " + std::to_string(space) + " that " + who + " " + otherDid +
                           " since the last barrier (phase " + std::to_string(epoch_) + ")");
  }

  std::string kernel_;
  std::vector<Slot> slots_;
  int spaceSize_ = 0;
  int64_t epoch_ = 0;
  int thread_ = 0;
  int block_ = 0;
};

// One block of `size` threads with per-thread state (the registers of a CUDA thread).
template <class State>
class HostBlock {
 public:
  HostBlock(int index, int size, int count, std::vector<State>& states, HazardTracker* tracker)
      : index_(index), size_(size), count_(count), states_(states), tracker_(tracker) {
    states_.assign(static_cast<size_t>(size), State{});
  }
  int size() const { return size_; }
  int index() const { return index_; }
  int count() const { return count_; }

  // Every thread runs f, then the barrier.
  template <class F>
  void phase(F&& f) {
    local(f);
    if (tracker_) tracker_->barrier();
  }
  // Every thread runs f; no barrier, so the tracker keeps counting this as the same phase.
  template <class F>
  void local(F&& f) {
    for (int t = 0; t < size_; ++t) {
      if (tracker_) tracker_->setThread(t);
      f(t, states_[static_cast<size_t>(t)]);
    }
  }

 private:
  int index_;
  int size_;
  int count_;
  std::vector<State>& states_;
  HazardTracker* tracker_;
};

}  // namespace kernellab
