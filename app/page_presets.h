// SPDX-License-Identifier: MIT
// Requests the pages' hints offer when the selected run does not fit them, and the recorded
// example that ships with the sources.
#pragma once

#include <QString>

#include "kernellab/request.h"

namespace kernellab::app {

// Every transpose variant on the transpose paper's 2048 x 2048 matrix.
kernellab::RunRequest transposePreset();
// Padded vs diagonal on 4096 x 4096 with per-block schedules recorded (CUDA only records them).
kernellab::RunRequest recordedSchedulePreset();
// The seed's KNN image: 377 x 329, one component, a 14-row window, 8 neighbours, every variant.
kernellab::RunRequest knnPreset();

// docs/data/h200-transpose-4096-schedule.json (padded and diagonal recorded on an H200), or an
// empty string when this installation has no source tree next to it.
QString recordedScheduleExample();

}  // namespace kernellab::app
