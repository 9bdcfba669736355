// SPDX-License-Identifier: MIT
// Renders the model views with representative inputs into PNG files for docs/images:
//   kl_model_screenshots OUTPUT_DIR [RESULTS.json]
// Run under xvfb-run (or QT_QPA_PLATFORM=offscreen). Without a results file nothing here is a
// measurement: the Gantt image is the schedule model's own recording and says so in its
// captions. With a results file (e.g. `kernellab-cli run transpose --variant padded,diagonal
// --record-schedule --json r.json` on a GPU) it also renders gantt_view_recorded.png from the
// first run's recorded variants, with their measured recording overhead, and
// gantt_view_recorded_sms.png with the lanes of the first 16 SMs only.
#include <QApplication>
#include <QDir>
#include <QTableWidget>
#include <QTimer>
#include <cstdio>

#include "access_view.h"
#include "gantt_view.h"
#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/occupancy.h"
#include "kernellab/schedule_model.h"
#include "kernellab/transpose.h"
#include "occupancy_view.h"
#include "schedule_view.h"

using namespace kernellab;
using namespace kernellab::widgets;

namespace {

bool save(QWidget& w, const QDir& dir, const QString& name, QSize size) {
  w.resize(size);
  w.show();
  QApplication::processEvents();
  QApplication::processEvents();
  const QString path = dir.filePath(name);
  const bool ok = w.grab().save(path);
  std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
  return ok;
}

schedule::Config gt200(int gx, int gy) {
  schedule::Config c;
  c.gridX = gx;
  c.gridY = gy;
  const auto a = occupancy::archById("gt200");
  c.smCount = a.smCount;
  c.blocksPerSM = occupancy::calculate(a, {256, 16, 32 * 33 * 4}).activeBlocks;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: kl_model_screenshots OUTPUT_DIR [RESULTS.json]\n");
    return 2;
  }
  QDir dir(QString::fromLocal8Bit(argv[1]));
  if (!dir.mkpath(QStringLiteral("."))) return 2;
  bool ok = true;

  {
    ScheduleView v;
    v.setConfig(gt200(32, 32));
    v.setWave(2);
    ok &= save(v, dir, QStringLiteral("schedule_view.png"), {1400, 1000});
  }
  {
    schedule::Config c = gt200(64, 64);
    const auto cart = schedule::simulate(c);
    c.mapping = schedule::Mapping::Diagonal;
    const auto diag = schedule::simulate(c);
    GanttRun a, b;
    a.title = QStringLiteral("Cartesian order (padded kernel), GT200 model");
    a.records = schedule::simulatedRecords(cart, 2000);
    b.title = QStringLiteral("Diagonal order, GT200 model");
    b.records = schedule::simulatedRecords(diag, 2000);
    a.gridX = b.gridX = 64;
    a.gridY = b.gridY = 64;
    a.simulated = b.simulated = true;
    GanttView v;
    v.setRuns({a, b});
    ok &= save(v, dir, QStringLiteral("gantt_view_model.png"), {1400, 700});
  }
  RunRequest r;
  r.family = transpose::kFamily;
  r.section<TransposeProblem>().width = 2048;
  r.section<TransposeProblem>().height = 2048;
  r.section<TransposeProblem>().tile = 32;
  r.launch.threadsPerBlock = 256;
  {
    AccessView v;
    v.setRequest(r);
    v.waitForReport();
    v.setSelection(QStringLiteral("tiled"), {0, 0}, 0);
    v.waitForReport();
    v.selectRequest(8);  // the first column read from the shared tile
    ok &= save(v, dir, QStringLiteral("access_view_tiled.png"), {1300, 900});
    v.setSelection(QStringLiteral("naive"), {0, 0}, 0);
    v.waitForReport();
    v.selectRequest(1);  // the first strided store
    ok &= save(v, dir, QStringLiteral("access_view_naive.png"), {1300, 900});
  }
  {
    // k-means assign, interleaved points (D = 16): 32 sectors per warp read.
    RunRequest k;
    k.family = clustering::kKMeans;
    k.section<ClusteringProblem>().n = 100000;
    k.section<ClusteringProblem>().k = 16;
    k.section<ClusteringProblem>().d = 16;
    AccessView v;
    v.setRequest(k);
    v.waitForReport();
    v.setSelection(QStringLiteral("shared-interleaved"), {2, 0}, 1);
    v.waitForReport();
    v.selectRequest(1);  // the first point read
    ok &= save(v, dir, QStringLiteral("access_view_kmeans_interleaved.png"), {1300, 900});
    // KNN, one row at a time: a full row of the window is read by every lane at once.
    RunRequest n;
    n.family = knn::kFamily;
    AccessView w;
    w.setRequest(n);
    w.waitForReport();
    w.setSelection(QStringLiteral("shared-row"), {0, 20}, 0);
    w.waitForReport();
    w.selectRequest(400);  // a scan of a row wholly inside every lane's window: a broadcast
    ok &= save(w, dir, QStringLiteral("access_view_knn_shared_row.png"), {1300, 900});
  }
  {
    OccupancyView v;
    v.setArch(QStringLiteral("gt200"));
    v.setInputs(256, 9, 0);
    ok &= save(v, dir, QStringLiteral("occupancy_view_gt200.png"), {1400, 950});
    v.setArch(QStringLiteral("hopper"));
    v.setInputs(1024, 64, 0);
    ok &= save(v, dir, QStringLiteral("occupancy_view_hopper.png"), {1400, 950});
  }
  if (argc > 2) {
    const ResultsFile file = readResultsFile(argv[2]);
    GanttView v;
    if (!file.runs.empty()) v.setResult(file.runs.front());
    if (v.runCount() == 0) {
      std::fprintf(stderr, "%s: no variant with a recorded schedule\n", argv[2]);
      return 1;
    }
    ok &= save(v, dir, QStringLiteral("gantt_view_recorded.png"), {1400, 800});
    // The first 16 SMs: each lane's resident blocks side by side, block by block.
    v.setSmsShown(16);
    ok &= save(v, dir, QStringLiteral("gantt_view_recorded_sms.png"), {1400, 800});
  }
  return ok ? 0 : 1;
}
