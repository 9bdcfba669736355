// SPDX-License-Identifier: MIT
// Chart exports through an offscreen QCustomPlot.
#include "chart_export.h"

#include <QBuffer>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <memory>
#include <qcustomplot.h>

#include "chart_data_io.h"
#include "chart_view.h"

namespace kernellab::widgets {
namespace {

std::unique_ptr<QCustomPlot> offscreenPlot(const ChartSpec& spec, bool logY, QSize size) {
  auto plot = std::make_unique<QCustomPlot>();
  plot->resize(size);
  populatePlot(plot.get(), spec, logY);
  return plot;
}

QSize sane(QSize s) {
  return QSize(std::clamp(s.width(), 200, 10000), std::clamp(s.height(), 150, 10000));
}

bool renderSvg(const ChartSpec& spec, bool logY, QSize size, QIODevice* device) {
  auto plot = offscreenPlot(spec, logY, size);
  QSvgGenerator gen;
  gen.setOutputDevice(device);
  gen.setSize(size);
  gen.setViewBox(QRect(QPoint(0, 0), size));
  gen.setTitle(spec.title);
  gen.setDescription(QStringLiteral("KernelLab chart '%1'").arg(spec.id));
  QCPPainter painter;
  if (!painter.begin(&gen)) return false;
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  plot->toPainter(&painter, size.width(), size.height());
  painter.end();
  return true;
}

}  // namespace

QString suffixOf(ExportFormat f) {
  switch (f) {
    case ExportFormat::Png: return QStringLiteral("png");
    case ExportFormat::Pdf: return QStringLiteral("pdf");
    case ExportFormat::Svg: return QStringLiteral("svg");
    case ExportFormat::Csv: return QStringLiteral("csv");
    case ExportFormat::Json: return QStringLiteral("json");
  }
  return {};
}

std::optional<ExportFormat> formatFromSuffix(const QString& suffix) {
  const QString s = suffix.toLower();
  for (ExportFormat f : allExportFormats())
    if (suffixOf(f) == s) return f;
  return std::nullopt;
}

QList<ExportFormat> allExportFormats() {
  return {ExportFormat::Png, ExportFormat::Pdf, ExportFormat::Svg, ExportFormat::Csv,
          ExportFormat::Json};
}

QImage renderChartImage(const ChartSpec& spec, bool logY, QSize size, double scale) {
  size = sane(size);
  auto plot = offscreenPlot(spec, logY, size);
  return plot->toPixmap(size.width(), size.height(), scale).toImage();
}

QByteArray renderChartSvg(const ChartSpec& spec, bool logY, QSize size) {
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  renderSvg(spec, logY, sane(size), &buffer);
  return buffer.data();
}

bool exportChart(const ChartSpec& spec, bool logY, const QString& path, ExportFormat format,
                 QSize size, QString* error) {
  size = sane(size);
  auto fail = [&](const QString& why) {
    if (error) *error = QStringLiteral("cannot write '%1': %2").arg(path, why);
    return false;
  };
  switch (format) {
    case ExportFormat::Csv:
      return writeFileBytes(path, chartToCsv(spec).toUtf8(), error);
    case ExportFormat::Json:
      return writeFileBytes(path, chartToJson(spec), error);
    case ExportFormat::Png: {
      auto plot = offscreenPlot(spec, logY, size);
      if (!plot->savePng(path, size.width(), size.height(), 1.0)) return fail(QStringLiteral("PNG writer failed"));
      return true;
    }
    case ExportFormat::Pdf: {
      auto plot = offscreenPlot(spec, logY, size);
      if (!plot->savePdf(path, size.width(), size.height(), QCP::epNoCosmetic,
                         QStringLiteral("KernelLab"), spec.title))
        return fail(QStringLiteral("PDF writer failed"));
      return true;
    }
    case ExportFormat::Svg: {
      QBuffer buffer;
      buffer.open(QIODevice::WriteOnly);
      if (!renderSvg(spec, logY, size, &buffer)) return fail(QStringLiteral("SVG writer failed"));
      return writeFileBytes(path, buffer.data(), error);
    }
  }
  return fail(QStringLiteral("unknown format"));
}

QString exportFileName(const ChartSpec& spec, ExportFormat format, const QString& prefix) {
  QString base = spec.id.isEmpty() ? QStringLiteral("chart") : spec.id;
  base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-"));
  if (!prefix.isEmpty()) base = prefix + QLatin1Char('-') + base;
  return base + QLatin1Char('.') + suffixOf(format);
}

}  // namespace kernellab::widgets
