// SPDX-License-Identifier: MIT
// The KNN tab.
#include "knn_page.h"

#include <QVBoxLayout>

#include "knn_view.h"
#include "model_charts.h"
#include "page_hint.h"
#include "page_presets.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

bool isKnn(const RunResult& r) { return r.request.family == Family::Knn; }

QString imageKey(const RunRequest& r) {
  return QStringLiteral("%1x%2x%3 seed %4 %5")
      .arg(r.knn.rows).arg(r.knn.cols).arg(r.knn.components).arg(r.seed).arg(fromStd(r.knn.inputPath));
}

}  // namespace

KnnPage::KnnPage(QWidget* parent) {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(4, 4, 4, 4);
  hint_ = new PageHint(content);
  layout->addWidget(hint_, 0, Qt::AlignTop);
  view_ = new widgets::KnnView(content);
  layout->addWidget(view_, 1);
  refresh();
  root_ = makePageRoot(content, parent);
}

QWidget* KnnPage::widget() { return root_; }

void KnnPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  refresh();
}

void KnnPage::refresh() {
  const RunRef* ref = selection_.pick(&isKnn);
  const QString previous = runLabel_;
  runLabel_.clear();
  if (!ref) {
    view_->hide();
    const RunRef* primary = selection_.primaryRun();
    const QString text =
        primary ? tr("The selected run %1 is a %2 run. The KNN view shows window-KNN runs: the image, a "
                     "pixel's search window and neighbours, and the variants' time and occupancy.")
                      .arg(primary->label, familyTitle(primary->run().request.family))
                : tr("No KNN run selected. The KNN view shows window-KNN runs (seed 002): the image, a "
                     "pixel's search window and neighbours, and the variants' time and occupancy.");
    hint_->showHint(text + QLatin1Char(' ') + tr("Select one in the Runs list, or set one up on the seed's 377 x 329 image."),
                    {{tr("Set up a KNN run"), tr("Window KNN on the seed's 377 x 329 image, window 14, k 8, every variant"),
                      [this] {
                        if (host()) host()->usePreset(knnPreset(), false);
                      }},
                     {tr("Run it"), tr("Run every KNN variant on the seed's image now"), [this] {
                        if (host()) host()->usePreset(knnPreset(), true);
                      }}});
    return;
  }
  const RunResult& run = ref->run();
  runLabel_ = ref->label;
  view_->show();
  const double values = double(run.request.knn.rows) * run.request.knn.cols * run.request.knn.components;
  const QString key = imageKey(run.request);
  if (key != imageKey_) {
    imageKey_ = key;
    image_.reset();
    imageProblem_.clear();
    if (values > kMaxImageValues) {
      imageProblem_ = tr("The image (%1 x %2 x %3 = %L4 values) is too large to draw here; the charts show the variants.")
                          .arg(run.request.knn.rows).arg(run.request.knn.cols).arg(run.request.knn.components)
                          .arg(values, 0, 'f', 0);
    } else {
      try {
        image_ = std::make_shared<const knn::Image>(knn::imageFor(run.request));
      } catch (const std::exception& e) {
        imageProblem_ = tr("Cannot show the image: %1").arg(QString::fromStdString(e.what()));
      }
    }
  }
  // The same run shown again keeps its clicked pixel; a new one starts in the middle, so its
  // window and neighbours show without a click (and in exports).
  const int row = view_->selectedRow(), col = view_->selectedCol();
  view_->showRun(run, image_ ? *image_ : knn::Image{});
  if (image_) {
    if (previous == runLabel_ && row >= 0) view_->selectPixel(row, col);
    else view_->selectPixel(image_->rows / 2, image_->cols / 2);
  }
  if (imageProblem_.isEmpty()) hint_->clearHint();
  else hint_->showHint(imageProblem_);
}

QVector<widgets::ChartSpec> KnnPage::charts() const {
  const RunRef* ref = selection_.pick(&isKnn);
  if (!ref) return {};
  return knnCharts(ref->run());
}

QImage KnnPage::snapshot() {
  if (runLabel_.isEmpty()) return {};
  return view_->grab().toImage();
}

}  // namespace kernellab::app
