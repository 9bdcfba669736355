// SPDX-License-Identifier: MIT
// The Clusters and Timing pages with clustering data: a k-centers results file opens on the same
// points (regenerated from its request) with its labels, sizes and numbered centers; live
// iterations recolour the points and extend the score chart as they arrive.
//
// The clustering kernels live in their own family; this suite computes a small k-centers on the
// CPU itself (farthest-point, exact) to have a result to show.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>

#include "chart_view.h"
#include "clusters_page.h"
#include "clusters_view.h"
#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"
#include "main_window.h"
#include "point_source.h"
#include "timing_page.h"
#include "timing_view.h"
#include "view_style.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

namespace {

ClusteringProblem demoProblem() {
  ClusteringProblem p;
  p.n = 20000;
  p.k = 6;
  p.d = 3;
  p.shape = DatasetShape::Blobs;
  p.noiseFraction = 0.02;
  return p;
}

// Farthest-point k-centers on the CPU: the first point, then each time the point farthest from
// every chosen center; labels go to the nearest center.
ClusteringOutput kcenters(const DatasetPoints& pts, int k, std::vector<IterationRecord>& records) {
  ClusteringOutput out;
  const int d = pts.d;
  const float* v = pts.values->data();
  std::vector<double> best(static_cast<size_t>(pts.n), INFINITY);
  out.labels.assign(static_cast<size_t>(pts.n), 0);
  int64_t next = 0;
  for (int c = 0; c < k; ++c) {
    out.centerIndices.push_back(next);
    for (int j = 0; j < d; ++j) out.centers.push_back(v[next * d + j]);
    double far = -1;
    int64_t farIndex = 0;
    for (int64_t i = 0; i < pts.n; ++i) {
      double s = 0;
      for (int j = 0; j < d; ++j) s += std::pow(double(v[i * d + j]) - v[next * d + j], 2);
      if (s < best[static_cast<size_t>(i)]) {
        best[static_cast<size_t>(i)] = s;
        out.labels[static_cast<size_t>(i)] = c;
      }
      if (best[static_cast<size_t>(i)] > far) {
        far = best[static_cast<size_t>(i)];
        farIndex = i;
      }
    }
    IterationRecord r;
    r.iteration = c;
    r.score = std::sqrt(far);
    r.chosenPoint = static_cast<int>(next);
    records.push_back(r);
    next = farIndex;
  }
  out.iterations = k;
  out.clusterSizes.assign(static_cast<size_t>(k), 0);
  for (size_t i = 0; i < out.labels.size(); ++i) {
    ++out.clusterSizes[static_cast<size_t>(out.labels[i])];
    out.inertia += best[i];
  }
  return out;
}

}  // namespace

class TstClustersPage : public QObject {
  Q_OBJECT
  QString resultsPath_;
  ClusteringOutput expected_;

 private slots:
  void initTestCase() {
    kltest::isolateAppDirs(QStringLiteral("tst_clusters_page"));
    const ClusteringProblem problem = demoProblem();
    const DatasetPoints pts = makeDatasetPoints(problem, 7);
    RunResult run;
    run.request.family = clustering::kKCenters;
    run.request.section<ClusteringProblem>() = problem;
    run.request.seed = 7;
    run.request.backend = BackendChoice::Cpu;
    run.backend = "cpu";
    run.device.name = "test suite reference";
    run.tool = "tst_clusters_page";
    run.createdAt = "2026-01-01T00:00:00Z";
    VariantResult v;
    v.variant = "shared-coalesced";
    expected_ = kcenters(pts, problem.k, v.iterations);
    v.details.set(expected_);
    run.variants.push_back(v);
    ResultsFile file;
    file.runs.push_back(run);
    resultsPath_ = kltest::tempPath(QStringLiteral("kcenters-demo.json"));
    writeResultsFile(resultsPath_.toStdString(), file);
  }

  void aResultsFileShowsOnItsOwnPoints() {
    MainWindow w;
    QString error;
    QVERIFY2(w.openPath(resultsPath_, &error), qPrintable(error));
    auto* page = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    QVERIFY(page);
    page->loader()->waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(page->view()->cloudGeometry() != nullptr, 30000);
    widgets::ClustersView* view = page->view();
    QCOMPARE(view->cloudGeometry()->n, int64_t(20000));
    QCOMPARE(view->labels(), expected_.labels);
    QVERIFY(view->captionText().contains(QStringLiteral("k-centers")));
    // k-centers' words: centers chosen and the covering radius, not k-means' iterations.
    QVERIFY2(view->captionText().contains(QStringLiteral("6 centers · covering radius² ")) &&
                 !view->captionText().contains(QStringLiteral("iterations")),
             qPrintable(view->captionText()));
    // The legend: one row per cluster with its size, the order each center was chosen in.
    QTreeWidget* legend = view->legend();
    QCOMPARE(legend->topLevelItemCount(), 6);
    for (int c = 0; c < 6; ++c) {
      QTreeWidgetItem* item = legend->topLevelItem(c);
      QVERIFY(item->text(0).contains(QStringLiteral("Cluster %1").arg(c)));
      QVERIFY(item->text(0).contains(QStringLiteral("center #%1").arg(c + 1)));
      QCOMPARE(item->text(1).remove(QRegularExpression(QStringLiteral("[^0-9]"))).toLongLong(), expected_.clusterSizes[static_cast<size_t>(c)]);
    }
    // Colouring by the generator's clusters instead.
    bool found = false;
    for (QComboBox* c : view->findChildren<QComboBox*>())
      if (c->findText(QStringLiteral("Generator clusters")) >= 0) {
        c->setCurrentIndex(c->findText(QStringLiteral("Generator clusters")));
        found = true;
      }
    QVERIFY(found);
    QVERIFY(view->labels() != expected_.labels);
    QCOMPARE(view->labels().size(), size_t(20000));
    QVERIFY(std::count(view->labels().begin(), view->labels().end(), -1) > 0);  // the noise points

    // The score chart: one point per chosen center.
    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    QVERIFY(timing->showChart(QStringLiteral("score")));
    const widgets::ChartSpec& score = timing->view()->chartView()->chart();
    QCOMPARE(score.series.size(), 1);
    QCOMPARE(score.series[0].y.size(), 6);
    // Farthest-point distances only shrink as centers are added.
    for (int i = 1; i < 6; ++i) QVERIFY(score.series[0].y[i] <= score.series[0].y[i - 1]);
  }

  void liveIterationsRecolourThePoints() {
    MainWindow w;
    auto* page = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    RunRequest r;
    r.family = clustering::kKMeans;
    r.section<ClusteringProblem>() = demoProblem();
    r.seed = 7;
    page->runStarted(r, {});
    timing->runStarted(r, {});
    page->loader()->waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(page->view()->cloudGeometry() != nullptr, 30000);
    for (int it = 0; it < 3; ++it) {
      auto out = std::make_shared<ClusteringOutput>();
      out->labels.assign(20000, it);  // every point in cluster `it`: easy to see it arrived
      out->centers.assign(6 * 3, 0.f);
      LiveIteration live;
      live.variant = QStringLiteral("shared-coalesced");
      live.record.iteration = it;
      live.record.score = 100.0 - it;
      live.current = out;
      page->showIteration(live);
      timing->showIteration(live);
      QCOMPARE(page->view()->labels(), std::vector<int32_t>(20000, it));
      QVERIFY(page->view()->captionText().contains(QStringLiteral("live")));
    }
    QVERIFY(timing->showChart(QStringLiteral("score")));
    const widgets::ChartSpec& score = timing->view()->chartView()->chart();
    QVERIFY(score.title.contains(QStringLiteral("live")));
    QCOMPARE(score.series.size(), 1);
    QCOMPARE(score.series[0].y, (QVector<double>{100, 99, 98}));
    page->runEnded();
  }


  // Issue 14, item 8: an empty cluster (a center no point is nearest to) has its row, said so.
  void anEmptyClusterIsInTheLegend() {
    widgets::ClustersView view;
    std::vector<int32_t> labels(100, 0);
    for (int i = 50; i < 100; ++i) labels[static_cast<size_t>(i)] = 2;  // nobody in cluster 1
    QCOMPARE(widgets::countClusters(labels, {}, 3).size(), size_t(3));
    QCOMPARE(widgets::countClusters(labels, {}, 3)[1].points, int64_t(0));
    // 100 points in one dimension, three centers.
    auto values = std::make_shared<std::vector<float>>(100);
    for (int i = 0; i < 100; ++i) (*values)[static_cast<size_t>(i)] = float(i);
    view.setCloud(widgets::cloud::makeCloudGeometry(values, 100, 1, false), true);
    view.setAssignment(labels, {0.f, 50.f, 99.f}, false, QStringLiteral("test"));
    QTreeWidget* legend = view.legend();
    QCOMPARE(legend->topLevelItemCount(), 3);
    QVERIFY(legend->topLevelItem(1)->text(0).contains(QStringLiteral("empty")));
    QCOMPARE(legend->topLevelItem(1)->text(1), QStringLiteral("0"));
    QVERIFY(!legend->topLevelItem(0)->text(0).contains(QStringLiteral("empty")));
  }

  // Shared memory has one unit everywhere, KiB.
  void sharedMemoryInKiB() {
    QCOMPARE(widgets::sharedMemoryText(4224), QStringLiteral("4.13 KiB"));
    QCOMPARE(widgets::sharedMemoryText(49152), QStringLiteral("48 KiB"));
    QCOMPARE(widgets::sharedMemoryText(512), QStringLiteral("512 B"));
  }

  void transposeShowsWhyThereIsNoCloud() {
    MainWindow w;
    w.selectEntries({}, {});
    auto* page = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    page->showRequest(kltest::smallTranspose());
    QTRY_VERIFY(page->view()->findChild<QLabel*>() != nullptr);
    QVERIFY(page->snapshot().isNull());
  }
};

QTEST_MAIN(TstClustersPage)
#include "tst_clusters_page.moc"
