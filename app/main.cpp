// SPDX-License-Identifier: MIT
// kernellab: the KernelLab window.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>

#include "app_types.h"
#include "automation.h"
#include "kernellab/experiment.h"
#include "main_window.h"
#include "published_baselines.h"

int main(int argc, char** argv) {
  QApplication::setOrganizationName(QStringLiteral("KernelLab"));
  QApplication::setApplicationName(QStringLiteral("kernellab"));
  QApplication::setApplicationDisplayName(QStringLiteral("KernelLab"));
  QApplication::setApplicationVersion(QString::fromStdString(kernellab::toolVersion()));
  QApplication app(argc, argv);
  kernellab::app::registerMetaTypes();
  kernellab::app::publishedBaselines();  // also makes the compiled-in resources available

  QCommandLineParser parser;
  QString error;
  const auto options = kernellab::app::parseStartupOptions(parser, QApplication::arguments(), &error);
  if (!options) {
    std::fprintf(stderr, "kernellab: error: %s (see --help)\n", qPrintable(error));
    return 2;
  }
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();

  kernellab::app::MainWindow window(options->historyDir);
  if (options->windowSize.isValid()) window.resize(options->windowSize);
  window.show();
  kernellab::app::Automation automation(&window, *options);
  automation.start();
  return app.exec();
}
