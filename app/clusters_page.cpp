// SPDX-License-Identifier: MIT
// The Clusters tab.
#include "clusters_page.h"

#include <QSettings>

#include "clusters_view.h"
#include "kernellab/clustering_request.h"
#include "point_cloud_view.h"
#include "results_validation.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

bool isClustering(Family f) { return f == clustering::kKMeans || f == clustering::kKCenters; }

// The colouring choice of the generator's own clusters (variant ids never start with '#').
const QString kGenerator = QStringLiteral("#generator");

}  // namespace

ClustersPage::ClustersPage(QWidget* parent) {
  view_ = new widgets::ClustersView(parent);
  previewDelay_.setSingleShot(true);
  previewDelay_.setInterval(350);
  connect(&previewDelay_, &QTimer::timeout, this, &ClustersPage::refresh);
  connect(&loader_, &DatasetLoader::loaded, this, [this](const LoadedDataset& d) {
    if (d.key != wantedKey_) return;
    if (!d.error.isEmpty()) {
      shownPointsKey_.clear();
      view_->setMessage(tr("Cannot show the points: %1").arg(d.error));
      return;
    }
    apply();
  });
  connect(view_, &widgets::ClustersView::twoDChanged, this, &ClustersPage::refresh);
  connect(view_, &widgets::ClustersView::colorChoiceChanged, this, [this](int index) {
    chosen_ = choiceVariants_.value(index);
    apply();
  });
  refresh();
}

QWidget* ClustersPage::widget() { return view_; }

const RunResult* ClustersPage::shownRun() const {
  const RunRef* p = selection_.primaryRun();
  if (p && isClustering(p->run().request.family)) return &p->run();
  // The primary run is of another family: the newest clustering run of the selection, if any.
  for (int i = static_cast<int>(selection_.runs.size()) - 1; i >= 0; --i)
    if (isClustering(selection_.runs[i].run().request.family)) return &selection_.runs[i].run();
  return nullptr;
}

void ClustersPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  refresh();
}

void ClustersPage::showRequest(const RunRequest& request) {
  request_ = request;
  if (!liveActive_ && !shownRun()) previewDelay_.start();
}

void ClustersPage::runStarted(const RunRequest& request, const SweepAxes&) {
  liveOutputs_.clear();
  liveVariant_.clear();
  liveIteration_ = 0;
  liveActive_ = isClustering(request.family);
  liveRequest_ = request;
  if (liveActive_) refresh();
}

void ClustersPage::showIteration(const LiveIteration& it) {
  if (!liveActive_) return;
  liveIteration_ = it.record.iteration;
  if (!it.current) return;
  liveOutputs_[it.variant] = it.current;
  liveVariant_ = it.variant;
  if (mode_ == Mode::Live) apply();
}

void ClustersPage::runEnded() {
  if (!liveActive_) return;
  liveActive_ = false;
  refresh();
}

void ClustersPage::refresh() {
  previewDelay_.stop();
  ClusteringProblem problem;
  uint64_t seed = 0;
  const RunResult* run = shownRun();
  if (liveActive_) {
    mode_ = Mode::Live;
    problem = liveRequest_.section<ClusteringProblem>();
    seed = liveRequest_.seed;
  } else if (run) {
    mode_ = Mode::Result;
    problem = run->request.section<ClusteringProblem>();
    seed = run->request.seed;
  } else if (isClustering(request_.family)) {
    mode_ = Mode::Preview;
    problem = request_.section<ClusteringProblem>();
    seed = request_.seed;
    if (problem.inputPath.empty() && double(problem.n) * problem.d > kPreviewValues) {
      mode_ = Mode::None;
      wantedKey_.clear();
      view_->setMessage(tr("No preview for N x D = %L1 x %2 values: the points appear with the "
                           "results once the run finishes.")
                            .arg(problem.n)
                            .arg(problem.d));
      return;
    }
  } else {
    mode_ = Mode::None;
    wantedKey_.clear();
    view_->setMessage(
        tr("The Clusters view shows k-means and k-centers runs.\n\nChoose k-means or k-centers as "
           "the kernel family to preview its points, run it to see the clusters form, or open a "
           "clustering results file."));
    return;
  }
  if (mode_ != Mode::Preview) {
    // A run's request is data: a points file it names is read only when the panel names it too.
    const QString refusal =
        namedFileRefusal(problem.inputPath, request_.section<ClusteringProblem>().inputPath);
    if (!refusal.isEmpty()) {
      wantedKey_.clear();
      shownPointsKey_.clear();
      view_->setMessage(tr("The points of this run are not shown: %1.").arg(refusal));
      return;
    }
  }
  wantedKey_ = DatasetLoader::key(problem, seed, view_->twoD());
  if (loader_.currentKey() == wantedKey_ && !loader_.busy()) {
    apply();
    return;
  }
  if (shownPointsKey_ != DatasetLoader::pointsKey(problem, seed))
    view_->setMessage(tr("Making the points (N = %L1, D = %2)...").arg(problem.n).arg(problem.d));
  loader_.load(problem, seed, view_->twoD());
}

void ClustersPage::apply() {
  const LoadedDataset& d = loader_.current();
  if (d.key != wantedKey_ || !d.geometry || mode_ == Mode::None) return;
  const bool newPoints = d.pointsKey != shownPointsKey_;
  if (view_->cloudGeometry() != d.geometry) view_->setCloud(d.geometry, newPoints);
  shownPointsKey_ = d.pointsKey;

  // Colouring choices: each variant's labels, then the generator's clusters.
  QStringList choices;
  choiceVariants_.clear();
  const RunResult* run = mode_ == Mode::Result ? shownRun() : nullptr;
  const Family family = mode_ == Mode::Live ? liveRequest_.family : run ? run->request.family : request_.family;
  if (mode_ == Mode::Live) {
    for (auto it = liveOutputs_.begin(); it != liveOutputs_.end(); ++it) {
      choices << tr("%1 (live)").arg(variantTitle(family, it.key().toStdString()));
      choiceVariants_ << it.key();
    }
  } else if (run) {
    for (const VariantResult& v : run->variants) {
      if (!v.ok || !v.detail<ClusteringOutput>()) continue;
      choices << tr("%1 · %2").arg(familyTitle(family), variantTitle(family, v.variant));
      choiceVariants_ << fromStd(v.variant);
    }
  }
  if (!d.points->truth.empty()) {
    choices << tr("Generator clusters");
    choiceVariants_ << kGenerator;
  }
  // The user's last choice when it is still offered; live runs follow the variant running.
  int current = static_cast<int>(choiceVariants_.indexOf(mode_ == Mode::Live ? liveVariant_ : chosen_));
  if (current < 0) current = 0;
  view_->setColorChoices(choices, choices.isEmpty() ? -1 : current);

  const QString chosen = choiceVariants_.value(current);
  const int64_t n = d.points->total;  // the data set's points; the view may hold a sample of them
  const QString sample = d.points->sampleNote.empty()
                             ? QString()
                             : QStringLiteral("\n") + QString::fromStdString(d.points->sampleNote);
  if (chosen == kGenerator || chosen.isEmpty()) {
    const QString what = mode_ == Mode::Preview ? tr("Preview of the data the next run uses") : tr("Generator clusters");
    view_->setAssignment(
        d.points->truth, {}, false,
        tr("%1: N = %L2, K = %3, D = %4\n%5")
                .arg(what)
                .arg(n)
                .arg(mode_ == Mode::Preview ? request_.section<ClusteringProblem>().k
                                            : (run ? run->request.section<ClusteringProblem>().k
                                                   : liveRequest_.section<ClusteringProblem>().k))
                .arg(d.points->d)
                .arg(QString::fromStdString(d.points->source)) +
            sample);
    return;
  }
  const ClusteringOutput* out = nullptr;
  QString caption;
  if (mode_ == Mode::Live) {
    out = liveOutputs_.value(chosen).get();
    caption = tr("%1 · %2 · %3 %4 (live)")
                  .arg(familyTitle(family), variantTitle(family, chosen.toStdString()),
                       family == clustering::kKCenters ? tr("center") : tr("iteration"))
                  .arg(liveIteration_);
  } else if (run) {
    const VariantResult* shown = nullptr;
    for (const VariantResult& v : run->variants)
      if (fromStd(v.variant) == chosen && v.detail<ClusteringOutput>()) {
        out = v.detail<ClusteringOutput>();
        shown = &v;
      }
    // k-centers chooses centers (its `iterations`) and ends on a covering radius, the last
    // record's score; k-means iterates.
    if (out && family == clustering::kKCenters)
      caption = (out->iterations == 1 ? tr("%1 · %2\n%3 center") : tr("%1 · %2\n%3 centers"))
                    .arg(familyTitle(family), variantTitle(family, chosen.toStdString()))
                    .arg(out->iterations) +
                (shown->iterations.empty()
                     ? QString()
                     : tr(" · covering radius² %1").arg(shown->iterations.back().score, 0, 'g', 6)) +
                tr(" · inertia %1").arg(out->inertia, 0, 'g', 6);
    else if (out)
      caption = tr("%1 · %2\n%3 iterations · inertia %4 · %5 centers")
                    .arg(familyTitle(family), variantTitle(family, chosen.toStdString()))
                    .arg(out->iterations)
                    .arg(out->inertia, 0, 'g', 6)
                    .arg(out->centers.size() / std::max(1, d.points->d));
  }
  if (!out) return;
  std::vector<int32_t> labels;
  const bool whole = static_cast<int64_t>(out->labels.size()) == n;
  if (!out->labels.empty() && !whole) {
    caption +=
        tr("\n%L1 labels for %L2 points: the points differ from the run's; labels not shown.")
            .arg(out->labels.size())
            .arg(n);
  } else if (out->labels.empty()) {
    caption += tr("\nThe run did not keep labels (keep_labels = false): centers only.");
  } else {
    labels = labelsOfSample(*d.points, out->labels);  // the labels of the points shown
  }
  caption += sample;
  view_->setAssignment(std::move(labels), out->centers, family == clustering::kKCenters, caption,
                       whole && !d.points->indices.empty() ? out->labels : std::vector<int32_t>());
}

QImage ClustersPage::snapshot() {
  // Only a run's points go into exports and reports; a preview of the panel's next data does not.
  if (mode_ != Mode::Result || !view_->cloudGeometry()) return {};
  return view_->reportPicture();
}

QVector<ViewPicture> ClustersPage::pictures() {
  const QImage image = snapshot();
  const RunRef* ref = selection_.pick([](const RunResult& r) { return isClustering(r.request.family); });
  if (image.isNull() || !ref) return {};
  const RunResult& run = ref->run();
  const QString when = fromStd(run.createdAt).replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z')).left(16);
  return {ViewPicture{QString(),
                      tr("Clusters of run %1 (%2), %3, %4 UTC: %5")
                          .arg(ref->label, requestSummary(run.request), deviceShort(run), when, view_->captionText().section(QLatin1Char('\n'), 0, 0)),
                      image}};
}

void ClustersPage::saveSettings(QSettings& s) const { s.setValue(QStringLiteral("clusters/twoD"), view_->twoD()); }

void ClustersPage::restoreSettings(QSettings& s) {
  view_->setTwoD(s.value(QStringLiteral("clusters/twoD"), false).toBool());
}

}  // namespace kernellab::app
