// SPDX-License-Identifier: MIT
// The GPU-fault test hook of the worker (KERNELLAB_GPU_FAULT, worker_protocol.h): a real fault
// on the device, so tests and users can see what the window does when a kernel traps.
#pragma once

namespace kernellab {

// Launches a kernel that executes a trap instruction on the current device and waits for it:
// throws the sticky CudaError CUDA reports (the context is lost for the rest of the process, as
// after an illegal address). Returns false, doing nothing, in a build without CUDA.
bool trapOnDevice();

}  // namespace kernellab
