// SPDX-License-Identifier: MIT
// CUDA error reporting.
#include "cuda/cuda_check.h"

#include <string>

#include "kernellab/backend.h"

namespace kernellab::cuda {

bool isStickyError(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

void throwCudaError(cudaError_t e, const char* expr, const char* file, int line) {
  const bool sticky = isStickyError(e);
  CudaError err(static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e), expr, file, line,
                sticky);
  if (sticky) markCudaUnusable(err.what());
  throw err;
}

}  // namespace kernellab::cuda
