#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's main command: installs what is missing, builds, and starts the KernelLab window.
# Arguments go to the window, e.g. scripts/run.sh --open results.json
# Without a display the window runs under Xvfb, for its automation flags (--run, --export-report,
# --screenshot, --quit, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/kernellab "$@"
fi
if [ $# -eq 0 ]; then
  echo "run.sh: no display to show the window on (DISPLAY and WAYLAND_DISPLAY are unset)." >&2
  echo "run.sh: start it from a desktop session, or drive it headless, for example:" >&2
  echo "  scripts/run.sh --run --export-report report.html --screenshot window.png --quit" >&2
  exit 2
fi
exec xvfb-run -a -s "-screen 0 1600x1000x24" build/app/kernellab "$@"
