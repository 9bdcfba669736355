// SPDX-License-Identifier: MIT
// The KNN tab.
#include "knn_page.h"

#include <QCoreApplication>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "kernellab/block_executor.h"
#include "kernellab/knn.h"
#include "knn_view.h"
#include "model_charts.h"
#include "page_hint.h"
#include "page_presets.h"
#include "results_validation.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

bool isKnn(const RunResult& r) { return r.request.family == knn::kFamily; }

QString imageKey(const RunRequest& r) {
  return QStringLiteral("%1x%2x%3 seed %4 %5")
      .arg(r.section<KnnProblem>().rows)
      .arg(r.section<KnnProblem>().cols)
      .arg(r.section<KnnProblem>().components)
      .arg(r.seed)
      .arg(fromStd(r.section<KnnProblem>().inputPath));
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
  connect(&watcher_, &QFutureWatcher<KnnImageJob>::finished, this, &KnnPage::imageMade);
}

QWidget* KnnPage::widget() { return root_; }

void KnnPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  refresh();
}

void KnnPage::showRequest(const RunRequest& request) {
  if (request.section<KnnProblem>().inputPath == panelImagePath_) return;
  panelImagePath_ = request.section<KnnProblem>().inputPath;
  // The shown run's image file may be readable now (or no longer).
  if (const RunRef* ref = selection_.pick(&isKnn);
      ref && !ref->run().request.section<KnnProblem>().inputPath.empty()) {
    imageKey_.clear();
    refresh();
  }
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
  const double values = double(run.request.section<KnnProblem>().rows) *
                        run.request.section<KnnProblem>().cols *
                        run.request.section<KnnProblem>().components;
  const QString key = imageKey(run.request);
  if (key != imageKey_) {
    imageKey_ = key;
    image_.reset();
    imageProblem_.clear();
    const QString refusal =
        namedFileRefusal(run.request.section<KnnProblem>().inputPath, panelImagePath_);
    if (!refusal.isEmpty())
      imageProblem_ = tr("The image is not drawn: %1; the charts show the variants.").arg(refusal);
    else if (values > kMaxImageValues)
      imageProblem_ = tr("The image (%1 x %2 x %3 = %L4 values) is too large to draw here; the "
                         "charts show the variants.")
                          .arg(run.request.section<KnnProblem>().rows)
                          .arg(run.request.section<KnnProblem>().cols)
                          .arg(run.request.section<KnnProblem>().components)
                          .arg(values, 0, 'f', 0);
    else
      startImage(run.request);
  }
  // The same run shown again keeps its clicked pixel; a new one starts in the middle, so its
  // window and neighbours show without a click (and in exports).
  const int row = view_->selectedRow(), col = view_->selectedCol();
  view_->showRun(run, image_ ? *image_ : knn::Image{});
  if (image_) {
    if (previous == runLabel_ && row >= 0) view_->selectPixel(row, col);
    else view_->selectPixel(image_->rows / 2, image_->cols / 2);
  }
  if (!imageProblem_.isEmpty()) hint_->showHint(imageProblem_);
  else if (!image_)
    hint_->showHint(tr("Making the image (%1 x %2 x %3)...")
                        .arg(run.request.section<KnnProblem>().rows)
                        .arg(run.request.section<KnnProblem>().cols)
                        .arg(run.request.section<KnnProblem>().components));
  else hint_->clearHint();
}

void KnnPage::startImage(const RunRequest& request) {
  if (watcher_.isRunning()) {
    pending_ = request;  // imageMade starts it
    return;
  }
  const QString key = imageKey(request);
  imageBusy_ = true;
  watcher_.setFuture(QtConcurrent::run([request, key] {
    clearUpperVectorState();  // a pool thread inherits the GUI thread's vector state
    KnnImageJob job;
    job.key = key;
    try {
      job.image = std::make_shared<const knn::Image>(knn::imageFor(request));
    } catch (const std::exception& e) {
      job.problem = QObject::tr("Cannot show the image: %1").arg(QString::fromStdString(e.what()));
    }
    return job;
  }));
}

void KnnPage::imageMade() {
  const KnnImageJob job = watcher_.result();
  imageBusy_ = false;
  if (pending_) {
    const RunRequest next = *pending_;
    pending_.reset();
    if (imageKey(next) == imageKey_) startImage(next);
  }
  if (job.key != imageKey_) return;  // the selection moved on meanwhile
  image_ = job.image;
  imageProblem_ = job.problem;
  refresh();
}

void KnnPage::waitForImage() {
  // Until imageMade has run: the watcher's finished event may be posted a moment after the
  // future reports itself finished.
  while (imageBusy_) {
    watcher_.waitForFinished();
    QCoreApplication::processEvents();
  }
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

QString KnnPage::chartRun(const widgets::ChartSpec&) const {
  const RunRef* ref = selection_.pick(&isKnn);
  return ref ? runStamp(ref->label, ref->run()) : QString();
}

QVector<ViewPicture> KnnPage::pictures() {
  const RunRef* ref = selection_.pick(&isKnn);
  const QImage image = snapshot();
  if (!ref || image.isNull()) return {};
  return {ViewPicture{QString(), tr("Window KNN of %1").arg(runStamp(ref->label, ref->run())), image}};
}

}  // namespace kernellab::app
