// SPDX-License-Identifier: MIT
#include "cuda/copy_ceiling.h"

#include "cuda/cuda_check.h"

namespace kernellab::cuda {

Ceiling deviceCopyCeiling(void* to, const void* from, size_t bytes, cudaStream_t stream,
                          int warmup, int reps, const RunHooks& hooks) {
  EventPair ev;
  return measureCopyCeiling("cudaMemcpy D2D", 2.0 * static_cast<double>(bytes), "cuda-events",
                            warmup, reps, hooks, [&] {
                              ev.start(stream);
                              KL_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes,
                                                            cudaMemcpyDeviceToDevice, stream));
                              ev.stop(stream);
                              return ev.elapsedMs();
                            });
}

}  // namespace kernellab::cuda
