// SPDX-License-Identifier: MIT
// The window from the command line (offscreen): --config --run --export-charts --export-report
// --screenshot --quit regenerate a report; --open of a malformed file exits 2 with the reason.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QtTest>

#include "crafted_results.h"
#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"
#include "test_support.h"
#include "window_test_support.h"

namespace {

struct AppRun {
  int exitCode = -1;
  QString out, err;
};

AppRun runApp(const QStringList& args, const QString& home, int timeoutMs = 300000);

// KERNELLAB_TEST_APP runs these tests against another build of the window (an older one, to see
// a regression test fail).
QString appPath() {
  return qEnvironmentVariable("KERNELLAB_TEST_APP", QStringLiteral(KERNELLAB_APP_PATH));
}

AppRun runApp(const QStringList& args, const QString& home, int timeoutMs) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  // Settings and history of the child go to a private home.
  env.insert(QStringLiteral("HOME"), home);
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
  env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
  p.setProcessEnvironment(env);
  p.start(appPath(), args);
  AppRun r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

}  // namespace

class TstAutomation : public QObject {
  Q_OBJECT
  QString dir_, home_;

 private slots:
  void initTestCase() {
    dir_ = kltest::tempPath(QStringLiteral("automation"));
    QDir(dir_).removeRecursively();
    QDir().mkpath(dir_);
    home_ = QDir(dir_).filePath(QStringLiteral("home"));
    QDir().mkpath(home_);
  }

  void reportFromTheCommandLine() {
    const QString request = QDir(dir_).filePath(QStringLiteral("request.json"));
    kernellab::writeRequestFile(request.toStdString(), kltest::smallTranspose(192));
    const QString charts = QDir(dir_).filePath(QStringLiteral("charts"));
    const QString report = QDir(dir_).filePath(QStringLiteral("report.html"));
    const QString shot = QDir(dir_).filePath(QStringLiteral("window.png"));
    const AppRun r = runApp({QStringLiteral("--config"), request, QStringLiteral("--run"), QStringLiteral("--export-charts"), charts,
                             QStringLiteral("--chart-size"), QStringLiteral("800x500"), QStringLiteral("--export-report"), report,
                             QStringLiteral("--view"), QStringLiteral("timing"), QStringLiteral("--window-size"),
                             QStringLiteral("1280x800"), QStringLiteral("--screenshot"), shot, QStringLiteral("--quit")},
                            home_);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    for (const char* f : {"timing-time.png", "timing-time.svg", "timing-time.pdf", "timing-time.csv", "timing-time.json",
                          "timing-bandwidth.png", "timing-fraction.csv", "results-table.csv"})
      QVERIFY2(QFile::exists(QDir(charts).filePath(QLatin1String(f))), f);
    QCOMPARE(QImage(QDir(charts).filePath(QStringLiteral("timing-time.png"))).size(), QSize(800, 500));
    QFile html(report);
    QVERIFY(html.open(QIODevice::ReadOnly));
    const QByteArray text = html.readAll();
    QVERIFY(text.contains("transpose 192x192"));
    QVERIFY(text.contains("data:image/png;base64,"));
    const QImage window(shot);
    QCOMPARE(window.size(), QSize(1280, 800));
    // The run went into the child's history as a results file.
    const QStringList kept = QDir(home_ + QStringLiteral("/data/KernelLab/kernellab/history"))
                                 .entryList({QStringLiteral("run-*.json")}, QDir::Files);
    QCOMPARE(kept.size(), 1);
  }

  void aMalformedFileExitsWithTheReason() {
    const QString bad = QDir(dir_).filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{ not json");
    f.close();
    const AppRun r = runApp({QStringLiteral("--open"), bad, QStringLiteral("--quit")}, home_);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("not valid JSON")), qPrintable(r.err));
  }

  void badOptionsExitTwo() {
    const AppRun r = runApp({QStringLiteral("--chart-size"), QStringLiteral("huge"), QStringLiteral("--quit")}, home_);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains(QStringLiteral("--chart-size")));
    const AppRun lanes = runApp({QStringLiteral("--gantt-sms"), QStringLiteral("-3"), QStringLiteral("--quit")}, home_);
    QCOMPARE(lanes.exitCode, 2);
    QVERIFY(lanes.err.contains(QStringLiteral("--gantt-sms -3")));
    const AppRun view = runApp({QStringLiteral("--view"), QStringLiteral("nowhere"), QStringLiteral("--quit")}, home_);
    QCOMPARE(view.exitCode, 2);
    QVERIFY(view.err.contains(QStringLiteral("gantt")));  // the message lists the views
  }

  // --export-report twice writes both reports (the HTML and the PDF in one go); an option that
  // takes one value and is given twice is refused, never replaced by its last value without a
  // word (two --export-report used to write the last one only, and say nothing of the first).
  void repeatedOptionsAreKeptOrRefused() {
    const QString results = QDir(dir_).filePath(QStringLiteral("two-reports.json"));
    QVERIFY(kltest::writeResults(results, kltest::smallKMeans(500, 3, 2)));
    const QString html = QDir(dir_).filePath(QStringLiteral("twice.html"));
    const QString pdf = QDir(dir_).filePath(QStringLiteral("twice.pdf"));
    const AppRun both =
        runApp({QStringLiteral("--open"), results, QStringLiteral("--export-report"), html,
                QStringLiteral("--export-report"), pdf, QStringLiteral("--quit")},
               home_);
    QVERIFY2(both.exitCode == 0, qPrintable(both.err + both.out));
    QVERIFY2(QFileInfo(html).size() > 0, qPrintable(both.out));
    QVERIFY2(QFileInfo(pdf).size() > 0, qPrintable(both.out));
    const AppRun twice =
        runApp({QStringLiteral("--view"), QStringLiteral("timing"), QStringLiteral("--view"),
                QStringLiteral("clusters"), QStringLiteral("--quit")},
               home_);
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains(QStringLiteral("--view is given 2 times")), qPrintable(twice.err));
  }

  // A k-means request of every variant on the automatic backend, run at once from the command
  // line on a machine without a GPU: the run waits for its worker to say what it runs, so the
  // GPU-only engines are left out as on the CPU they must be. It used to start before the
  // worker's hello, with `best` still switched on, and fail: "--variant best runs only on the
  // CUDA backend" (scripts/screenshots.sh then wrote an empty k-means sample report).
  void anImmediateRunWaitsForItsTarget() {
    kernellab::RunRequest r;
    r.family = kernellab::clustering::kKMeans;
    r.variants = {"all"};
    r.backend = kernellab::BackendChoice::Auto;
    r.section<kernellab::ClusteringProblem>().n = 2000;
    r.section<kernellab::ClusteringProblem>().k = 4;
    r.repetitions = 1;
    r.warmup = 0;
    const QString request = QDir(dir_).filePath(QStringLiteral("kmeans-all.json"));
    kernellab::writeRequestFile(request.toStdString(), r);
    const QString home = QDir(dir_).filePath(QStringLiteral("home-all"));
    QDir(home).removeRecursively();
    QDir().mkpath(home);
    const AppRun run = runApp(
        {QStringLiteral("--config"), request, QStringLiteral("--run"), QStringLiteral("--quit")},
        home);
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    const QStringList kept = QDir(home + QStringLiteral("/data/KernelLab/kernellab/history"))
                                 .entryList({QStringLiteral("run-*.json")}, QDir::Files);
    QCOMPARE(kept.size(), 1);
    const kernellab::ResultsFile file =
        kernellab::readResultsFile(QDir(home + QStringLiteral("/data/KernelLab/kernellab/history"))
                                       .filePath(kept.front())
                                       .toStdString());
    QCOMPARE(file.runs.size(), size_t(1));
    QVERIFY(file.runs.front().ok);
    QVERIFY(!file.runs.front().variants.empty());
  }

  void theH200RecordingScreenshotsAsAGantt() {
    const QString png = QDir(dir_).filePath(QStringLiteral("gantt.png"));
    const AppRun r =
        runApp({QStringLiteral("--open"),
                QStringLiteral(KERNELLAB_SOURCE_DIR "/docs/data/h200-transpose-4096-schedule.json"),
                QStringLiteral("--view"), QStringLiteral("gantt"), QStringLiteral("--gantt-sms"),
                QStringLiteral("16"), QStringLiteral("--window-size"), QStringLiteral("1400x900"),
                QStringLiteral("--screenshot"), png, QStringLiteral("--quit")},
               home_);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1400, 900));
  }

  void cliResultsBecomeAPdfReport() {
    const QString results = QDir(dir_).filePath(QStringLiteral("cli.json"));
    const kltest::CliRun cli = kltest::runCli({QStringLiteral("run"), QStringLiteral("transpose"), QStringLiteral("--size"),
                                               QStringLiteral("100x60"), QStringLiteral("--reps"), QStringLiteral("2"),
                                               QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--json"), results});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
    const QString pdf = QDir(dir_).filePath(QStringLiteral("cli-report.pdf"));
    const AppRun r = runApp({QStringLiteral("--open"), results, QStringLiteral("--export-report"), pdf, QStringLiteral("--quit")}, home_);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().startsWith("%PDF-"));
  }

  // Issue 16: each hostile file is refused (or shown bounded) with a clean message, never a
  // crash or a hang (60 s each at most), and the window starts normally afterwards.
  void hostileFilesAreRefusedAndTheWindowStartsAgain() {
    const QString home = QDir(dir_).filePath(QStringLiteral("hostile-home"));
    QDir(home).removeRecursively();
    QDir().mkpath(home);
    const QString history = home + QStringLiteral("/data/KernelLab/kernellab/history");
    const int kMs = 60000;

    const QString axis = QDir(dir_).filePath(QStringLiteral("empty-axis.json"));
    QVERIFY(kltest::writeBytes(axis, kltest::emptySweepAxisFile()));
    const AppRun refused =
        runApp({QStringLiteral("--open"), axis, QStringLiteral("--quit")}, home, kMs);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("axis 'tpb' has no values")),
             qPrintable(refused.err));
    const QString shot = QDir(dir_).filePath(QStringLiteral("after-refusal.png"));
    const AppRun normal =
        runApp({QStringLiteral("--screenshot"), shot, QStringLiteral("--quit")}, home, kMs);
    QVERIFY2(normal.exitCode == 0, qPrintable(normal.err));
    QVERIFY(!QImage(shot).isNull());
    QVERIFY(QDir(history).entryList({QStringLiteral("run-*.json")}, QDir::Files).isEmpty());

    kernellab::ResultsFile labels = kltest::smallKMeans(1000, 4, 3);
    labels.runs[0].variants[0].detail<kernellab::ClusteringOutput>()->labels[7] = 2147483646;
    const QString labelFile = QDir(dir_).filePath(QStringLiteral("label.json"));
    QVERIFY(kltest::writeResults(labelFile, labels));
    const AppRun label =
        runApp({QStringLiteral("--open"), labelFile, QStringLiteral("--quit")}, home, kMs);
    QCOMPARE(label.exitCode, 2);
    QVERIFY2(label.err.contains(QStringLiteral("labels[7] = 2147483646 is outside -1..3")),
             qPrintable(label.err));

    const QString fifo = QDir(dir_).filePath(QStringLiteral("pipe.json"));
    if (!kltest::makeFifo(fifo)) QSKIP("no mkfifo here");
    const AppRun pipe =
        runApp({QStringLiteral("--open"), fifo, QStringLiteral("--quit")}, home, kMs);
    QVERIFY2(pipe.err != QStringLiteral("timed out"), "opening a FIFO as the results file blocked");
    QCOMPARE(pipe.exitCode, 2);
    QVERIFY2(pipe.err.contains(QStringLiteral("is a FIFO")), qPrintable(pipe.err));

    // The request names a FIFO and a device: shown without reading either.
    kernellab::ResultsFile names = kltest::smallKMeans(1000, 4, 3);
    names.runs[0].request.section<kernellab::ClusteringProblem>().inputPath = fifo.toStdString();
    names.runs[0].request.section<kernellab::ClusteringProblem>().centersPath = "/dev/zero";
    const QString namesFile = QDir(dir_).filePath(QStringLiteral("names-fifo.json"));
    QVERIFY(kltest::writeResults(namesFile, names));
    const AppRun named = runApp(
        {QStringLiteral("--open"), namesFile, QStringLiteral("--view"), QStringLiteral("access"),
         QStringLiteral("--screenshot"), shot, QStringLiteral("--quit")},
        home, kMs);
    QVERIFY2(named.err != QStringLiteral("timed out"),
             "a FIFO named by the request blocked the window");
    QVERIFY2(named.exitCode == 0, qPrintable(named.err));

    // "n": 600000000 in a small file: a bounded sample, in seconds.
    const QString huge = QDir(dir_).filePath(QStringLiteral("huge-n.json"));
    QVERIFY(kltest::writeResults(huge, kltest::smallKMeans(600000000, 4, 3, false)));
    const AppRun bounded = runApp(
        {QStringLiteral("--open"), huge, QStringLiteral("--view"), QStringLiteral("clusters"),
         QStringLiteral("--screenshot"), shot, QStringLiteral("--quit")},
        home, kMs);
    QVERIFY2(bounded.err != QStringLiteral("timed out"), "600,000,000 points were generated");
    QVERIFY2(bounded.exitCode == 0, qPrintable(bounded.err));
  }

  void aPoisonedHistoryIsSetAsideAtStart() {
    // The 125-byte file as an older build copied it into the history: it crashed every start.
    const QString home = QDir(dir_).filePath(QStringLiteral("poisoned-home"));
    QDir(home).removeRecursively();
    const QString history = home + QStringLiteral("/data/KernelLab/kernellab/history");
    QDir().mkpath(history);
    QVERIFY(kltest::writeBytes(history + QStringLiteral("/run-20260101-000000-000-abcdef.json"),
                               kltest::emptySweepAxisFile()));
    const AppRun first = runApp({QStringLiteral("--quit")}, home, 60000);
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    QVERIFY2(first.err.contains(QStringLiteral("set aside")), qPrintable(first.err));
    QVERIFY(
        QFile::exists(history + QStringLiteral("/quarantine/run-20260101-000000-000-abcdef.json")));
    const AppRun second = runApp({QStringLiteral("--quit")}, home, 60000);
    QVERIFY2(second.exitCode == 0, qPrintable(second.err));
    QVERIFY(!second.err.contains(QStringLiteral("set aside")));
  }
};

QTEST_MAIN(TstAutomation)
#include "tst_automation.moc"
