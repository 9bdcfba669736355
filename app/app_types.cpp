// SPDX-License-Identifier: MIT
// Metatype registration for queued signals between the window and the run controller.
#include "app_types.h"

namespace kernellab::app {

void registerMetaTypes() {
  qRegisterMetaType<kernellab::RunRequest>("kernellab::RunRequest");
  qRegisterMetaType<ResultsPtr>("kernellab::app::ResultsPtr");
  qRegisterMetaType<SweepAxes>("kernellab::app::SweepAxes");
  qRegisterMetaType<LiveIteration>("kernellab::app::LiveIteration");
}

}  // namespace kernellab::app
