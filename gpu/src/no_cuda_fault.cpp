// SPDX-License-Identifier: MIT
// A build without CUDA has no device to trap (device_fault.h).
#include "kernellab/device_fault.h"

namespace kernellab {

bool trapOnDevice() { return false; }

}  // namespace kernellab
