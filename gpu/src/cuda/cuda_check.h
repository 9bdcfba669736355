// SPDX-License-Identifier: MIT
// KL_CUDA_CHECK and RAII owners for device memory and events (CUDA translation units only).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernellab/errors.h"

namespace kernellab::cuda {

// Errors after which the context cannot be used again in this process (driver_types.h).
bool isStickyError(cudaError_t e);

// Throws CudaError with the expression, file, line and CUDA's own error text.
void throwCudaError(cudaError_t e, const char* expr, const char* file, int line);

inline void check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) throwCudaError(e, expr, file, line);
}

}  // namespace kernellab::cuda

#define KL_CUDA_CHECK(expr) ::kernellab::cuda::check((expr), #expr, __FILE__, __LINE__)

// After a launch: report (and clear) a bad launch, never time it. With KERNELLAB_DEBUG_SYNC the
// stream is synchronised too, so faults point at the kernel that caused them (CUB's idea).
#ifdef KERNELLAB_DEBUG_SYNC
#define KL_CUDA_CHECK_LAUNCH(stream)          \
  do {                                        \
    KL_CUDA_CHECK(cudaGetLastError());        \
    KL_CUDA_CHECK(cudaStreamSynchronize(stream)); \
  } while (0)
#else
#define KL_CUDA_CHECK_LAUNCH(stream) KL_CUDA_CHECK(cudaGetLastError())
#endif

namespace kernellab::cuda {

// Owns a device allocation; frees without throwing.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { allocate(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(o.count_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = o.count_;
    }
    return *this;
  }
  void allocate(size_t count) {
    release();
    if (count == 0) return;
    KL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);  // errors here are reported by the next checked call
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// A start/stop pair of CUDA events for timing one region on a stream.
class EventPair {
 public:
  EventPair() {
    KL_CUDA_CHECK(cudaEventCreate(&start_));
    KL_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s) { KL_CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { KL_CUDA_CHECK(cudaEventRecord(stop_, s)); }
  // Waits for the stop event and returns the elapsed milliseconds.
  double elapsedMs() {
    KL_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    KL_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Owns a non-blocking stream.
class Stream {
 public:
  Stream() { KL_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace kernellab::cuda
