// SPDX-License-Identifier: MIT
// Not a test: drives the window as a user would against a loopback sshd (loopback_sshd.h) and
// saves the pictures of docs/images/ for the user guide's "GPU server" section: the Targets
// dialog with an SSH host added and tested, a k-means run converging live there, the finished
// run, another run cancelled midway, and the exported charts. Run under Xvfb:
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/kl_targets_screenshots docs/images
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

#include "app_types.h"
#include "experiment_panel.h"
#include "history_store.h"
#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "loopback_sshd.h"
#include "main_window.h"
#include "point_cloud_view.h"
#include "published_baselines.h"
#include "run_coordinator.h"
#include "targets_control.h"
#include "targets_dialog.h"
#include "worker_runs.h"

using namespace kernellab;
using namespace kernellab::app;

namespace {

bool waitFor(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < ms) QTest::qWait(20);
  return done();
}

void save(QWidget* w, const QString& path) {
  QApplication::processEvents();
  const bool ok = widgets::PointCloudView::grabWithClouds(w).save(path);
  std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
}

void type(QLineEdit* e, const QString& text) {
  e->selectAll();
  QTest::keyClicks(e, text);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication::setOrganizationName(QStringLiteral("KernelLabScreenshots"));
  QApplication::setApplicationName(QStringLiteral("kernellab"));
  QApplication app(argc, argv);
  registerMetaTypes();
  publishedBaselines();
  const QString out = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("docs/images");
  QDir().mkpath(out);
  QStandardPaths::setTestModeEnabled(true);
  QSettings().clear();

  kltest::LoopbackSshd sshd;
  QString why;
  if (!sshd.start(&why)) {
    std::fprintf(stderr, "no loopback sshd: %s\n", qPrintable(why));
    return 1;
  }
  QTemporaryDir history;
  MainWindow w(history.path());
  w.resize(1500, 950);
  w.show();
  QTest::qWait(300);

  // Run > Targets...: add an SSH host, fill it in, test it, use it.
  auto* dialog = new TargetsDialog(w.targets(), &w);
  dialog->resize(900, 520);
  dialog->show();
  QTest::qWait(200);
  dialog->addTarget(Target::Kind::Ssh);
  type(dialog->field(QStringLiteral("name")), QStringLiteral("gpu-server"));
  type(dialog->field(QStringLiteral("host")), sshd.alias());
  type(dialog->field(QStringLiteral("cli")), QStringLiteral(KERNELLAB_CLI_PATH));
  type(dialog->field(QStringLiteral("sshOptions")), sshd.sshOptions());
  QTest::mouseClick(dialog->testButton(), Qt::LeftButton);
  waitFor([&] { return w.targets()->info(QStringLiteral("gpu-server")).ok; }, 60000);
  QTest::qWait(200);
  save(dialog, out + QStringLiteral("/targets_dialog.png"));
  QTest::mouseClick(dialog->useButton(), Qt::LeftButton);
  dialog->close();
  QTest::qWait(200);

  // A k-means experiment there, watched while it converges.
  RunRequest r;
  r.family = clustering::kKMeans;
  r.variants = {"shared-coalesced"};
  r.section<ClusteringProblem>().n = 400000;
  r.section<ClusteringProblem>().k = 8;
  r.section<ClusteringProblem>().d = 3;
  r.section<ClusteringProblem>().shape = DatasetShape::Blobs;
  r.section<ClusteringProblem>().noiseFraction = 0.02;
  r.section<ClusteringProblem>().init = InitMethod::Random;
  r.section<ClusteringProblem>().maxIterations = 60;
  r.repetitions = 1;
  r.warmup = 0;
  w.panel()->setRequest(r);
  w.showView(QStringLiteral("clusters"));
  int live = 0;
  QObject::connect(w.coordinator(), &RunCoordinator::iteration,
                   [&](const LiveIteration& it) { live += it.current ? 1 : 0; });
  bool settled = false, ok = false;
  QObject::connect(&w, &MainWindow::runSettled, [&](bool good, const QString&) {
    settled = true;
    ok = good;
  });
  w.startRun();
  waitFor([&] { return live >= 3 || settled; }, 120000);
  QTest::qWait(150);
  save(&w, out + QStringLiteral("/window_ssh_live.png"));
  waitFor([&] { return settled; }, 600000);
  std::printf("k-means on gpu-server: %s, %d live label updates\n", ok ? "done" : "failed", live);
  const bool finished = ok;  // the cancelled run below settles too, not ok
  QTest::qWait(500);
  save(&w, out + QStringLiteral("/window_ssh_done.png"));
  w.showChart(QStringLiteral("score"));
  QTest::qWait(300);
  save(&w, out + QStringLiteral("/window_ssh_score.png"));

  // Another one, cancelled midway: the worker on the server ends at once, the window goes on.
  settled = false;
  r.section<ClusteringProblem>().n = 1000000;
  r.section<ClusteringProblem>().maxIterations = 300;
  r.repetitions = 3;
  w.panel()->setRequest(r);
  w.showView(QStringLiteral("clusters"));
  live = 0;
  w.startRun();
  waitFor([&] { return live >= 2; }, 120000);
  const auto busy = w.coordinator()->workers()->workers();
  qint64 pid = 0;
  for (auto* worker : busy)
    if (worker->busy()) pid = worker->hello().pid;
  QElapsedTimer t;
  t.start();
  w.cancelRun();
  waitFor([&] { return settled; }, 10000);
  waitFor([&] { return pid == 0 || kltest::processGone(pid); }, 5000);
  std::printf("cancelled: remote worker %lld gone after %lld ms\n", static_cast<long long>(pid),
              static_cast<long long>(t.elapsed()));
  QTest::qWait(300);
  save(&w, out + QStringLiteral("/window_ssh_cancelled.png"));

  // The finished run's charts, exported.
  QTemporaryDir charts;
  QStringList written;
  w.selectEntries({w.history()->entries().front().id}, w.history()->entries().front().id);
  const bool exported = w.exportCharts(charts.path(), QSize(1000, 600), &written);
  std::printf("exported %d chart files (%s)\n", static_cast<int>(written.size()),
              exported ? "ok" : "failed");
  w.close();
  return finished && exported ? 0 : 1;
}
