// SPDX-License-Identifier: MIT
// A view of the window (a tab): what it is told and what it can give back for exports. The pages
// adapt kernellab results to their widgets; the widgets themselves never see RunResult.
#pragma once

#include <QImage>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <vector>

#include "app_types.h"
#include "chart_spec.h"

class QSettings;
class QWidget;

namespace kernellab::app {

// What a page may ask of the window: the hint of a page whose selected run does not fit it
// offers a button that puts a fitting request into the experiment panel (and runs it), or opens
// a results file. The window implements it; pages never see the window itself.
class PageHost {
 public:
  virtual ~PageHost() = default;
  virtual void usePreset(const kernellab::RunRequest& request, bool run) = 0;
  virtual bool openPath(const QString& path, QString* error = nullptr) = 0;
};

// A picture a page gives to exports and reports (the point cloud, a Gantt chart, a view).
struct ViewPicture {
  QString id;        // file-name friendly, unique within the page: "gantt"; empty = the page
  QString caption;
  QImage image;
};

class ViewPage {
 public:
  virtual ~ViewPage() = default;

  // Set once by the window, before the first showRuns.
  void setHost(PageHost* host) { host_ = host; }

  virtual QString id() const = 0;     // "clusters", "timing", "results": --view and settings
  virtual QString title() const = 0;  // the tab's text
  virtual QWidget* widget() = 0;

  // The runs to show (checked in the history); called after every change of the selection.
  virtual void showRuns(const RunSelection& selection) = 0;
  // The experiment panel's request, before it runs (previews).
  virtual void showRequest(const kernellab::RunRequest& request) { (void)request; }
  // What the machine offers (probed on the worker thread); again after a sticky CUDA error.
  virtual void showBackend(const kernellab::BackendStatus& status) { (void)status; }
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
  // Which run a chart of this view shows, for its caption in reports ("run #3 (...), NVIDIA
  // H200, 2026-11-29 20:07 UTC"); charts that carry their own caption keep it.
  virtual QString chartRun(const widgets::ChartSpec& chart) const {
    (void)chart;
    return {};
  }
  // The report section a chart of this view goes in: the view's title by default.
  virtual QString chartSection(const widgets::ChartSpec& chart) const {
    (void)chart;
    return title();
  }
  // The chart on screen, if this view shows one.
  virtual QString currentChartId() const { return {}; }
  // Makes `chartId` the chart on screen; false when this view has no such chart.
  virtual bool showChart(const QString& chartId) {
    (void)chartId;
    return false;
  }
  // A picture of the view for reports and exports, when it is not a chart (the point cloud).
  virtual QImage snapshot() { return {}; }
  // Every picture of the page; by default the snapshot. Taken while the page is on screen.
  virtual QVector<ViewPicture> pictures() {
    const QImage image = snapshot();
    if (image.isNull()) return {};
    return {ViewPicture{QString(), title(), image}};
  }
  // Parts of a page that --view can name ("gantt" in the Schedule page); showPart shows one.
  virtual QStringList parts() const { return {}; }
  virtual bool showPart(const QString& part) {
    (void)part;
    return false;
  }

  virtual void saveSettings(QSettings& settings) const { (void)settings; }
  virtual void restoreSettings(QSettings& settings) { (void)settings; }

 protected:
  PageHost* host() const { return host_; }

 private:
  PageHost* host_ = nullptr;
};

// The window owns its pages through these pointers (pages are not given a Qt parent); a page's
// widget is parented to the window's tab widget.
using ViewPages = std::vector<std::unique_ptr<ViewPage>>;

// Every view of the window, in tab order. view_pages.cpp is the one place to register a view.
ViewPages makeViewPages(QWidget* parent);

}  // namespace kernellab::app
