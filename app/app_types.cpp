// SPDX-License-Identifier: MIT
// Metatype registration for queued signals between the window and the run controller.
#include "app_types.h"

namespace kernellab::app {

const RunRef* RunSelection::pick(const std::function<bool(const kernellab::RunResult&)>& fits) const {
  if (const RunRef* p = primaryRun(); p && fits(p->run())) return p;
  for (int i = static_cast<int>(runs.size()) - 1; i >= 0; --i)
    if (fits(runs[i].run())) return &runs[i];
  return nullptr;
}

void registerMetaTypes() {
  qRegisterMetaType<kernellab::RunRequest>("kernellab::RunRequest");
  qRegisterMetaType<ResultsPtr>("kernellab::app::ResultsPtr");
  qRegisterMetaType<SweepAxes>("kernellab::app::SweepAxes");
  qRegisterMetaType<LiveIteration>("kernellab::app::LiveIteration");
  qRegisterMetaType<kernellab::BackendStatus>("kernellab::BackendStatus");
}

}  // namespace kernellab::app
