// SPDX-License-Identifier: MIT
// The experiment panel: every switch and field changes the request it hands out.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QWheelEvent>
#include <QtTest>
#include <cmath>

#include "experiment_panel.h"
#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"

using namespace kernellab;
using kernellab::widgets::ExperimentPanel;

namespace {

QVector<widgets::VariantSwitch> catalog(Family f) {
  QVector<widgets::VariantSwitch> out;
  for (const auto& v : describeVariants(f))
    out.push_back({QString::fromStdString(v.id), QString::fromStdString(v.title), QString::fromStdString(v.explanation), v.cudaOnly});
  return out;
}

QSpinBox* spinWithTooltip(ExperimentPanel& p, const QString& start) {
  for (QSpinBox* s : p.findChildren<QSpinBox*>())
    if (s->toolTip().startsWith(start)) return s;
  return nullptr;
}

QComboBox* comboWithItem(ExperimentPanel& p, const QString& text) {
  for (QComboBox* c : p.findChildren<QComboBox*>())
    if (c->findText(text) >= 0) return c;
  return nullptr;
}

}  // namespace

class TstExperimentPanel : public QObject {
  Q_OBJECT
 private slots:
  void switchesComeFromTheCatalogWithExplanations() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    RunRequest r;
    r.family = transpose::kFamily;
    p.setRequest(r);
    QStringList expected;
    for (const auto& v : describeVariants(transpose::kFamily))
      expected << QString::fromStdString(v.id);
    QCOMPARE(p.variantIds(), expected);
    for (const auto& v : describeVariants(transpose::kFamily)) {
      QCheckBox* box = p.variantSwitch(QString::fromStdString(v.id));
      QVERIFY(box);
      QVERIFY(box->isChecked());  // an empty variant list means "every variant"
      QVERIFY(box->toolTip().contains(QString::fromStdString(v.explanation)));
    }
  }

  void togglingASwitchChangesTheVariants() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    p.setRequest(RunRequest{});
    QSignalSpy edited(&p, &ExperimentPanel::edited);
    p.variantSwitch(QStringLiteral("naive"))->setChecked(false);
    QCOMPARE(edited.count(), 1);
    const RunRequest r = p.request();
    QCOMPARE(r.variants, (std::vector<std::string>{"copy", "tiled", "padded", "diagonal", "best"}));
    // The unchecked switch stays unchecked through a round trip of the request.
    ExperimentPanel q;
    q.setVariantCatalog(&catalog);
    q.setRequest(r);
    QVERIFY(!q.variantSwitch(QStringLiteral("naive"))->isChecked());
    QVERIFY(q.variantSwitch(QStringLiteral("padded"))->isChecked());
  }

  void noVariantIsAProblemNotAnEmptyList() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    p.setRequest(RunRequest{});
    QVERIFY(p.problem().isEmpty());
    for (const QString& id : p.variantIds()) p.variantSwitch(id)->setChecked(false);
    // An empty list would mean "all variants" to runExperiment: the panel must refuse instead.
    QVERIFY(!p.problem().isEmpty());
  }

  void launchAndSizeFieldsChangeTheRequest() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    p.setRequest(RunRequest{});
    QComboBox* tpb = comboWithItem(p, QStringLiteral("1024"));
    QVERIFY(tpb);
    tpb->setCurrentIndex(tpb->findText(QStringLiteral("128")));
    QCOMPARE(p.request().launch.threadsPerBlock, 128);
    QCOMPARE(p.request().section<TransposeProblem>().rowsPerThread,
             8);  // tile 32: 32 x 4 threads, 8 rows each
    QComboBox* tile = nullptr;
    for (QComboBox* c : p.findChildren<QComboBox*>())
      if (c->count() == 2 && c->itemText(0) == QLatin1String("16")) tile = c;
    QVERIFY(tile);
    tile->setCurrentIndex(0);
    QCOMPARE(p.request().section<TransposeProblem>().tile, 16);
    RunRequest r = p.request();
    r.section<TransposeProblem>().width = 1000;
    r.section<TransposeProblem>().height = 37;
    r.repetitions = 7;
    r.seed = 42;
    r.backend = BackendChoice::Cpu;
    p.setRequest(r);
    const RunRequest back = p.request();
    QCOMPARE(back.section<TransposeProblem>().width, int64_t(1000));
    QCOMPARE(back.section<TransposeProblem>().height, int64_t(37));
    QCOMPARE(back.repetitions, 7);
    QCOMPARE(back.seed, uint64_t(42));
    QCOMPARE(back.backend, BackendChoice::Cpu);
  }

  void clusteringFieldsRoundTrip() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    RunRequest r;
    r.family = clustering::kKMeans;
    r.section<ClusteringProblem>().n = 123456;
    r.section<ClusteringProblem>().k = 12;
    r.section<ClusteringProblem>().d = 7;
    r.section<ClusteringProblem>().shape = DatasetShape::Blobs;
    r.section<ClusteringProblem>().noiseFraction = 0.05;
    r.section<ClusteringProblem>().init = InitMethod::KMeansPlusPlus;
    r.section<ClusteringProblem>().maxIterations = 33;
    r.launch.threadsPerBlock = 512;
    p.setRequest(r);
    const RunRequest back = p.request();
    QCOMPARE(back.section<ClusteringProblem>().n, int64_t(123456));
    QCOMPARE(back.family, clustering::kKMeans);
    QCOMPARE(back.section<ClusteringProblem>().k, 12);
    QCOMPARE(back.section<ClusteringProblem>().d, 7);
    QCOMPARE(back.section<ClusteringProblem>().shape, DatasetShape::Blobs);
    QCOMPARE(back.section<ClusteringProblem>().noiseFraction, 0.05);
    QCOMPARE(back.section<ClusteringProblem>().init, InitMethod::KMeansPlusPlus);
    QCOMPARE(back.section<ClusteringProblem>().maxIterations, 33);
    QCOMPARE(back.launch.threadsPerBlock, 512);
    // A share of noise above 90 % (one broad cloud: issue 15's data) comes back as it went in;
    // the field used to clamp it to 90 % without a word.
    r.section<ClusteringProblem>().noiseFraction = 0.99999;
    p.setRequest(r);
    QVERIFY(std::abs(p.request().section<ClusteringProblem>().noiseFraction - 0.99999) < 1e-12);
    r.section<ClusteringProblem>().noiseFraction = 0.05;
    p.setRequest(r);
    // Editing N through its field reaches the request.
    QSpinBox* n = nullptr;
    for (QSpinBox* s : p.findChildren<QSpinBox*>())
      if (s->value() == 123456) n = s;
    QVERIFY(n);
    n->setValue(5000);
    QCOMPARE(p.request().section<ClusteringProblem>().n, int64_t(5000));
  }

  void familyChangeRebuildsSwitchesAndSweepAxes() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    p.setRequest(RunRequest{});
    QComboBox* family = comboWithItem(p, QStringLiteral("k-means"));
    QVERIFY(family);
    family->setCurrentIndex(family->findText(QStringLiteral("k-centers")));
    QCOMPARE(p.request().family, clustering::kKCenters);
    QCOMPARE(p.variantIds().size(),
             static_cast<int>(describeVariants(clustering::kKCenters).size()));
    p.setSweep(QStringLiteral("n"), QStringLiteral("1000, 10000,100000"));
    const auto axes = p.sweepAxes();
    QCOMPARE(axes.size(), size_t(1));
    QCOMPARE(axes.front().name, std::string("n"));
    QCOMPARE(axes.front().values, (std::vector<std::string>{"1000", "10000", "100000"}));
    p.setSweep(QString(), QString());
    QVERIFY(p.sweepAxes().empty());
  }

  void cudaOnlyVariantsAreDisabledWithTheReason() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    RunRequest r;
    r.family = clustering::kKMeans;
    p.setRequest(r);
    QVERIFY(p.variantIds().contains(QStringLiteral("best")));
    QVERIFY(p.variantIds().contains(QStringLiteral("cublas")));
    const QString why = QStringLiteral("cudaErrorInsufficientDriver: CUDA driver version is insufficient");
    p.setCudaAvailability(false, why);
    for (const QString& id :
         {QStringLiteral("best"), QStringLiteral("cublas"), QStringLiteral("cublas-tf32")}) {
      QCheckBox* box = p.variantSwitch(id);
      QVERIFY(!box->isEnabled());
      QVERIFY(!box->isChecked());  // it will not run: it does not look as if it would
      QVERIFY2(p.unavailableReason(id).contains(why), qPrintable(p.unavailableReason(id)));
    }
    QVERIFY(p.variantSwitch(QStringLiteral("shared-coalesced"))->isEnabled());
    QVERIFY(p.unavailableReason(QStringLiteral("shared-coalesced")).isEmpty());
    const RunRequest cpu = p.request();
    // The pruned variant runs on the CPU too: it stays enabled.
    QVERIFY(p.variantSwitch(QStringLiteral("pruned"))->isEnabled());
    QCOMPARE(cpu.variants, (std::vector<std::string>{"shared-coalesced", "global-coalesced",
                                                     "shared-interleaved", "global-interleaved",
                                                     "pruned"}));
    QVERIFY(p.problem().isEmpty());
    // Only the disabled ones checked: nothing would run.
    for (const QString& id : p.variantIds()) p.variantSwitch(id)->setChecked(false);
    QVERIFY(!p.problem().isEmpty());
    for (const QString& id : p.variantIds()) p.variantSwitch(id)->setChecked(true);

    // CUDA works: they come back as they were; the CPU chosen as backend disables them again.
    p.setCudaAvailability(true, QString());
    QVERIFY(p.variantSwitch(QStringLiteral("best"))->isEnabled());
    QVERIFY(p.variantSwitch(QStringLiteral("best"))->isChecked());
    QCOMPARE(p.request().variants.size(), size_t(8));  // the seed's four, best, both peers, pruned
    RunRequest onCpu = p.request();
    onCpu.backend = BackendChoice::Cpu;
    p.setRequest(onCpu);
    QVERIFY(!p.variantSwitch(QStringLiteral("cublas"))->isEnabled());
    QVERIFY(p.unavailableReason(QStringLiteral("cublas")).contains(QStringLiteral("CPU")));
    QCOMPARE(p.request().variants.size(), size_t(5));
  }

  // The window's "run again" (history: Load its settings into the panel, then Run) must run the
  // stored request: a file-input k-means from a centers file under either stop rule comes back
  // from the panel exactly as it was stored.
  void storedFileRequestComesBackUnchanged() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    RunRequest r;
    r.family = clustering::kKMeans;
    r.variants = {"shared-coalesced"};
    r.section<ClusteringProblem>().inputPath = "/data/iris.csv";
    r.section<ClusteringProblem>().n = 150;  // as a run records them: the file's size
    r.section<ClusteringProblem>().d = 4;
    r.section<ClusteringProblem>().k = 3;
    r.section<ClusteringProblem>().init = InitMethod::Given;
    r.section<ClusteringProblem>().centersPath = "/data/iris_centers_k3.csv";
    r.section<ClusteringProblem>().maxIterations = 40;
    for (StopRule rule : {StopRule::FixedPoint, StopRule::ScoreChange}) {
      r.section<ClusteringProblem>().stopRule = rule;
      r.section<ClusteringProblem>().epsilon = rule == StopRule::ScoreChange ? 0.001 : 1e-4;
      p.setRequest(r);
      QCOMPARE(nlohmann::json(p.request()).dump(), nlohmann::json(r).dump());
    }
    // The stop rule is a choice of the panel; epsilon only matters for the score rule.
    QComboBox* stop = nullptr;
    for (QComboBox* c : p.findChildren<QComboBox*>())
      if (c->toolTip().contains(QStringLiteral("Lloyd's fixed point"))) stop = c;
    QVERIFY(stop);
    stop->setCurrentIndex(stop->findData(int(StopRule::FixedPoint)));
    QCOMPARE(p.request().section<ClusteringProblem>().stopRule, StopRule::FixedPoint);
    QCOMPARE(p.request().section<ClusteringProblem>().init, InitMethod::Given);
  }

  // Issue 14, item 7: the transpose Tile field comes back after KNN -> k-means -> transpose.
  void tileFieldFollowsTheFamily() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    p.setRequest(RunRequest{});
    p.resize(400, 1400);
    p.show();
    QComboBox* family = comboWithItem(p, QStringLiteral("k-means"));
    QComboBox* tile = nullptr;
    for (QComboBox* c : p.findChildren<QComboBox*>())
      if (c->toolTip().startsWith(QStringLiteral("Edge of the square tile"))) tile = c;
    QVERIFY(family && tile);
    QVERIFY(tile->isVisible());
    for (Family f : {knn::kFamily, clustering::kKMeans, transpose::kFamily}) {
      family->setCurrentIndex(family->findData(QString::fromLatin1((f).id())));
      QCoreApplication::processEvents();
      QCOMPARE(tile->isVisible(), f == transpose::kFamily);
    }
    // And through setRequest, as loading a request does.
    for (Family f : {knn::kFamily, clustering::kKMeans, transpose::kFamily}) {
      RunRequest r;
      r.family = f;
      p.setRequest(r);
      QCoreApplication::processEvents();
      QCOMPARE(tile->isVisible(), f == transpose::kFamily);
    }
  }

  // Issue 14, item 7: block sizes that can never move the chosen tile are not offered.
  void onlyValidBlockSizesAreOffered() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    RunRequest r;
    r.family = transpose::kFamily;
    r.section<TransposeProblem>().tile = 32;
    r.launch.threadsPerBlock = 256;
    p.setRequest(r);
    QComboBox* tpb = comboWithItem(p, QStringLiteral("1024"));
    QVERIFY(tpb);
    QCOMPARE(tpb->findText(QStringLiteral("16")), -1);  // 16 threads cannot cover a 32-wide tile row
    QVERIFY(tpb->findText(QStringLiteral("32")) >= 0);
    QComboBox* tile = nullptr;
    for (QComboBox* c : p.findChildren<QComboBox*>())
      if (c->toolTip().startsWith(QStringLiteral("Edge of the square tile"))) tile = c;
    QVERIFY(tile);
    tpb->setCurrentIndex(tpb->findText(QStringLiteral("1024")));
    tile->setCurrentIndex(tile->findData(16));
    // Tile 16 takes at most 16 x 16 = 256 threads: 512 and 1024 go, the choice moves to 256.
    QCOMPARE(tpb->findText(QStringLiteral("1024")), -1);
    QCOMPARE(tpb->findText(QStringLiteral("512")), -1);
    QVERIFY(tpb->findText(QStringLiteral("16")) >= 0);
    QCOMPARE(p.request().launch.threadsPerBlock, 256);
    // Every block size offered makes a valid launch for the tile.
    for (int i = 0; i < tpb->count(); ++i) {
      tpb->setCurrentIndex(i);
      const RunRequest q = p.request();
      QCOMPARE(q.section<TransposeProblem>().tile * q.section<TransposeProblem>().tile %
                   q.launch.threadsPerBlock,
               0);
      QCOMPARE(q.launch.threadsPerBlock % q.section<TransposeProblem>().tile, 0);
    }
    // Other families are offered every size.
    QComboBox* family = comboWithItem(p, QStringLiteral("k-means"));
    family->setCurrentIndex(family->findData(QString::fromLatin1((clustering::kKMeans).id())));
    QVERIFY(tpb->findText(QStringLiteral("1024")) >= 0);
  }

  // Issue 14, item 7: the mouse wheel scrolls the panel; it changes a combo or spin box only
  // once that field has the focus.
  void theWheelScrollsPastUnfocusedFields() {
    QScrollArea area;
    auto* p = new ExperimentPanel;
    p->setVariantCatalog(&catalog);
    p->setRequest(RunRequest{});
    area.setWidget(p);
    area.setWidgetResizable(true);
    area.resize(360, 300);
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    QComboBox* tpb = comboWithItem(*p, QStringLiteral("1024"));
    QVERIFY(tpb);
    tpb->setCurrentIndex(tpb->findText(QStringLiteral("256")));
    area.ensureWidgetVisible(tpb);
    const int scrolled = area.verticalScrollBar()->value();
    QVERIFY(!tpb->hasFocus());
    const QPoint at(tpb->width() / 2, tpb->height() / 2);
    QWheelEvent wheel(at, tpb->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(tpb, &wheel);
    QCOMPARE(tpb->currentText(), QStringLiteral("256"));
    // Left unaccepted: Qt hands a real (spontaneous) wheel event on to the scroll area.
    QVERIFY(!wheel.isAccepted());
    QCOMPARE(area.verticalScrollBar()->value(), scrolled);
    // Focused (clicked or tabbed into), the field takes the wheel as usual.
    tpb->setFocus();
    QTRY_VERIFY(tpb->hasFocus());
    QWheelEvent again(at, tpb->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(tpb, &again);
    QVERIFY(tpb->currentText() != QStringLiteral("256"));
  }

  // Issue 14, item 8: the seed's generator is named for what it draws.
  void theSeedGeneratorIsNamedForItsCubes() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    QComboBox* shape = comboWithItem(p, QStringLiteral("Gaussian blobs with noise"));
    QVERIFY(shape);
    const QString seed = shape->itemText(shape->findData(int(DatasetShape::SeedGenerator)));
    QVERIFY2(seed.contains(QStringLiteral("cube")) && !seed.contains(QStringLiteral("sphere")), qPrintable(seed));
  }

  void knnKnobsRoundTrip() {
    ExperimentPanel p;
    p.setVariantCatalog(&catalog);
    RunRequest r;
    r.family = knn::kFamily;
    r.section<KnnProblem>().rows = 120;
    r.section<KnnProblem>().cols = 90;
    r.section<KnnProblem>().components = 4;
    r.section<KnnProblem>().window = 6;
    r.section<KnnProblem>().k = 5;
    r.section<KnnProblem>().inputPath = "/data/scene.npy";
    r.section<KnnProblem>().blockX = 32;
    r.section<KnnProblem>().blockY = 8;
    r.recordSchedule = true;  // KNN records no schedules: the panel does not ask for them
    p.setRequest(r);
    const RunRequest back = p.request();
    QCOMPARE(back.family, knn::kFamily);
    QCOMPARE(back.section<KnnProblem>().rows, 120);
    QCOMPARE(back.section<KnnProblem>().cols, 90);
    QCOMPARE(back.section<KnnProblem>().components, 4);
    QCOMPARE(back.section<KnnProblem>().window, 6);
    QCOMPARE(back.section<KnnProblem>().k, 5);
    QCOMPARE(back.section<KnnProblem>().inputPath, std::string("/data/scene.npy"));
    QCOMPARE(back.section<KnnProblem>().blockX, 32);
    QCOMPARE(back.section<KnnProblem>().blockY, 8);
    QVERIFY(!back.recordSchedule);
    QSpinBox* width = spinWithTooltip(p, QStringLiteral("Block width"));
    QVERIFY(width);
    width->setValue(64);
    QCOMPARE(p.request().section<KnnProblem>().blockX, 64);
    width->setValue(0);  // auto: from threads per block
    QCOMPARE(p.request().section<KnnProblem>().blockX, 0);
    // Transpose again: the schedule switch is offered and remembered.
    r.family = transpose::kFamily;
    p.setRequest(r);
    QVERIFY(p.request().recordSchedule);
  }
};

QTEST_MAIN(TstExperimentPanel)
#include "tst_experiment_panel.moc"
