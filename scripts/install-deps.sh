#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what KernelLab needs on Debian 12 and is missing; does nothing when all is there.
# The CUDA toolkit is not installed here: with nvcc in /usr/local/cuda the CUDA backend is built,
# without it the build is CPU-only.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-svg-dev libqcustomplot-dev
  nlohmann-json3-dev libcli11-dev libeigen3-dev libglm-dev libgl-dev liblzma-dev
  xvfb xauth libgl1-mesa-dri libglx-mesa0 libegl-mesa0 fonts-dejavu-core
  clang libclang-rt-14-dev llvm   # scripts/sanitize.sh and scripts/fuzz.sh (libFuzzer, ASan)
  openssh-client openssh-server   # SSH targets; tst_ssh_target starts its own sshd on 127.0.0.1
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
