#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures and builds KernelLab into build/ (Release). Extra arguments go to CMake's configure,
# e.g. -DCMAKE_CUDA_ARCHITECTURES=90 or -DKERNELLAB_GUI=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
# nvcc lives outside PATH in a standard CUDA install; CMake finds it through CUDACXX.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build --parallel "$(nproc)"
