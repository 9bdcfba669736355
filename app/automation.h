// SPDX-License-Identifier: MIT
// The command line of the window (--open, --config, --run, --export-charts, --export-report,
// --screenshot, --quit, ...) and the steps it drives, so reports regenerate from a script and
// the GUI can be tested headless.
#pragma once

#include <QObject>
#include <QSize>
#include <QStringList>
#include <optional>

class QCommandLineParser;

namespace kernellab::app {

class MainWindow;

struct StartupOptions {
  QStringList open;        // results (.json) or points (.csv, .npy)
  QString config;          // a request JSON (readRequestFile)
  QString sweep;           // "tpb=64,128,256": one axis and its values
  bool run = false;
  QString exportCharts;    // folder
  QStringList exportReport;  // each .html or .pdf (repeatable: an HTML and a PDF in one go)
  QString screenshot;      // .png of the whole window
  QString view;            // tab to show: clusters, timing, results, schedule, gantt, access, occupancy, knn
  QString chart;           // Timing chart to show: time, bandwidth, fraction, kernels, score, sweep
  QSize windowSize;        // --window-size WxH
  QSize chartSize{1200, 700};
  bool quit = false;
  bool logScale = false;
  bool hidePublished = false;
  int ganttSms = -1;       // --gantt-sms N: lanes of SMs 0..N-1 in the Gantt chart (0 = all)
  QString historyDir;      // --history-dir (tests, demos): keep runs elsewhere
  QString target;          // --target NAME: run on this saved target (Run > Targets...)
};

// Parses the arguments; on a bad value returns nothing and says why in `error`.
std::optional<StartupOptions> parseStartupOptions(QCommandLineParser& parser, const QStringList& arguments,
                                                  QString* error);

// Runs the steps in order once the window is up: config, open, run (waiting for it), view and
// chart, exports, screenshot, quit. Errors go to stderr; the exit code is 0 when every step
// worked, 2 for bad input (a file that did not open), 1 for a failed run or export.
class Automation : public QObject {
  Q_OBJECT
 public:
  Automation(MainWindow* window, StartupOptions options, QObject* parent = nullptr);
  void start();
  int exitCode() const { return exitCode_; }

 signals:
  void done(int exitCode);

 private:
  void afterRun();
  void finish();
  void fail(int code, const QString& message);
  void settle();

  MainWindow* window_;
  StartupOptions o_;
  int exitCode_ = 0;
};

}  // namespace kernellab::app
