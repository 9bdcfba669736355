// SPDX-License-Identifier: MIT
// The KNN tab (seed 002): the shown KNN run's image (regenerated from its request, or read from
// its input file when the experiment panel names the same file: a results file never makes the
// window read a file) with a pixel's window and neighbours, and the variants' time and occupancy
// side by side.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "kernellab/knn.h"
#include "view_page.h"

namespace kernellab::widgets {
class KnnView;
}

namespace kernellab::app {

class PageHint;

// An image made on a worker thread (a 4096 x 4096 image takes seconds to generate).
struct KnnImageJob {
  QString key;
  std::shared_ptr<const kernellab::knn::Image> image;
  QString problem;
};

class KnnPage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit KnnPage(QWidget* parent);

  QString id() const override { return QStringLiteral("knn"); }
  QString title() const override { return tr("KNN"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;
  void showRequest(const kernellab::RunRequest& request) override;
  QVector<widgets::ChartSpec> charts() const override;
  QImage snapshot() override;
  QVector<ViewPicture> pictures() override;
  QString chartRun(const widgets::ChartSpec& chart) const override;

  widgets::KnnView* view() const { return view_; }
  PageHint* hint() const { return hint_; }
  QString runLabel() const { return runLabel_; }
  // Until the shown run's image is made (tests, automation before a screenshot).
  void waitForImage();
  // Images above this many values (rows x cols x C) are not regenerated to be drawn.
  static constexpr double kMaxImageValues = 2e7;

 private:
  void refresh();
  void startImage(const kernellab::RunRequest& request);
  void imageMade();

  QWidget* root_ = nullptr;
  PageHint* hint_ = nullptr;
  widgets::KnnView* view_ = nullptr;
  RunSelection selection_;
  QString runLabel_;
  std::string panelImagePath_;  // the image file the experiment panel names (the user's choice)
  QString imageKey_;       // the request fields the wanted image comes from
  QString imageProblem_;   // why that image is not drawn
  std::shared_ptr<const kernellab::knn::Image> image_;
  QFutureWatcher<KnnImageJob> watcher_;
  std::optional<kernellab::RunRequest> pending_;  // wanted while another image was being made
  bool imageBusy_ = false;                        // a job started and imageMade not yet run
};

}  // namespace kernellab::app
