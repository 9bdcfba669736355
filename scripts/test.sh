#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: installs what is missing, builds, runs every CTest suite.
# OpenGL suites run under Xvfb with Mesa's software renderer; GPU suites skip (with CUDA's reason)
# where no device works. With KERNELLAB_HARDENING=1 (CI sets it) it then builds the loaders'
# suites with ASan/UBSan and runs them (scripts/sanitize.sh), and fuzzes every loader and parser
# for KERNELLAB_FUZZ_SECONDS (default 60) each (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh "$@"
cd build
xvfb-run -a -s "-screen 0 1920x1080x24" ctest --output-on-failure --timeout 900
cd ..
if [ "${KERNELLAB_HARDENING:-0}" = 1 ]; then
  scripts/sanitize.sh
  scripts/fuzz.sh
fi
