// SPDX-License-Identifier: MIT
// The Clusters tab: the points of the shown clustering run (regenerated or reloaded from its
// request, so a results file from another machine shows on the same points), coloured by the
// labels of a chosen variant, live during k-means; before a run, a preview of the data.
#pragma once

#include <QHash>
#include <QObject>
#include <QTimer>

#include "dataset_loader.h"
#include "view_page.h"

namespace kernellab::widgets {
class ClustersView;
}

namespace kernellab::app {

class ClustersPage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit ClustersPage(QWidget* parent);

  QString id() const override { return QStringLiteral("clusters"); }
  QString title() const override { return tr("Clusters"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;
  void showRequest(const kernellab::RunRequest& request) override;
  void runStarted(const kernellab::RunRequest& request, const SweepAxes& axes) override;
  void showIteration(const LiveIteration& it) override;
  void runEnded() override;
  QImage snapshot() override;
  QVector<ViewPicture> pictures() override;
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(QSettings& settings) override;

  widgets::ClustersView* view() const { return view_; }
  DatasetLoader* loader() { return &loader_; }
  // Points larger than this (N x D values) are not previewed before a run.
  static constexpr double kPreviewValues = 5e7;

 private:
  enum class Mode { None, Preview, Result, Live };
  void refresh();
  void apply();
  const kernellab::RunResult* shownRun() const;

  widgets::ClustersView* view_ = nullptr;
  DatasetLoader loader_;
  QTimer previewDelay_;   // typing N = 1000000 should not generate 1, 10, 100, ... on the way
  RunSelection selection_;
  kernellab::RunRequest request_;
  kernellab::RunRequest liveRequest_;
  bool liveActive_ = false;
  QHash<QString, ClusteringPtr> liveOutputs_;
  QString liveVariant_;
  int liveIteration_ = 0;
  Mode mode_ = Mode::None;
  QString wantedKey_;
  QString shownPointsKey_;
  QStringList choiceVariants_;   // variant id per colour choice, or the generator's clusters
  QString chosen_;               // what the user picked last
};

}  // namespace kernellab::app
