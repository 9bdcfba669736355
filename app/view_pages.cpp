// SPDX-License-Identifier: MIT
// The views of the window, in tab order. Adding a view is one line here (plus its page class,
// which adapts results to the view's widget: see clusters_page.h for an example).
#include "access_page.h"
#include "clusters_page.h"
#include "knn_page.h"
#include "occupancy_page.h"
#include "results_page.h"
#include "schedule_page.h"
#include "timing_page.h"
#include "view_page.h"

namespace kernellab::app {

ViewPages makeViewPages(QWidget* parent) {
  ViewPages pages;
  pages.push_back(std::make_unique<ClustersPage>(parent));
  pages.push_back(std::make_unique<TimingPage>(parent));
  pages.push_back(std::make_unique<ResultsPage>(parent));
  pages.push_back(std::make_unique<SchedulePage>(parent));
  pages.push_back(std::make_unique<AccessPage>(parent));
  pages.push_back(std::make_unique<OccupancyPage>(parent));
  pages.push_back(std::make_unique<KnnPage>(parent));
  return pages;
}

}  // namespace kernellab::app
