// SPDX-License-Identifier: MIT
// A view of the window (a tab): what it is told and what it can give back for exports. The pages
// adapt kernellab results to their widgets; the widgets themselves never see RunResult.
#pragma once

#include <QImage>
#include <QString>
#include <QVector>
#include <memory>
#include <vector>

#include "app_types.h"
#include "chart_spec.h"

class QSettings;
class QWidget;

namespace kernellab::app {

class ViewPage {
 public:
  virtual ~ViewPage() = default;

  virtual QString id() const = 0;     // "clusters", "timing", "results": --view and settings
  virtual QString title() const = 0;  // the tab's text
  virtual QWidget* widget() = 0;

  // The runs to show (checked in the history); called after every change of the selection.
  virtual void showRuns(const RunSelection& selection) = 0;
  // The experiment panel's request, before it runs (previews).
  virtual void showRequest(const kernellab::RunRequest& request) { (void)request; }
  // A run started; its iterations follow through showIteration.
  virtual void runStarted(const kernellab::RunRequest& request, const SweepAxes& axes) {
    (void)request;
    (void)axes;
  }
  virtual void showIteration(const LiveIteration& it) { (void)it; }
  // The run ended (finished, failed or cancelled); showRuns follows when it produced results.
  virtual void runEnded() {}

  // Charts this view can export (PNG/PDF/SVG/CSV/JSON) and put in a report.
  virtual QVector<widgets::ChartSpec> charts() const { return {}; }
  virtual bool chartsLogScale() const { return false; }
  // The chart on screen, if this view shows one.
  virtual QString currentChartId() const { return {}; }
  // Makes `chartId` the chart on screen; false when this view has no such chart.
  virtual bool showChart(const QString& chartId) {
    (void)chartId;
    return false;
  }
  // A picture of the view for reports and exports, when it is not a chart (the point cloud).
  virtual QImage snapshot() { return {}; }

  virtual void saveSettings(QSettings& settings) const { (void)settings; }
  virtual void restoreSettings(QSettings& settings) { (void)settings; }
};

// The window owns its pages through these pointers (pages are not given a Qt parent); a page's
// widget is parented to the window's tab widget.
using ViewPages = std::vector<std::unique_ptr<ViewPage>>;

// Every view of the window, in tab order. view_pages.cpp is the one place to register a view.
ViewPages makeViewPages(QWidget* parent);

}  // namespace kernellab::app
