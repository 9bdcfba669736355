// SPDX-License-Identifier: MIT
// Writes a chart at a chosen size as PNG, PDF or SVG, or its data as CSV or JSON. Rendering
// happens on an offscreen plot, so exports need no visible window (and work under --quit).
#pragma once

#include <QImage>
#include <QList>
#include <QSize>
#include <QString>
#include <optional>

#include "chart_spec.h"

namespace kernellab::widgets {

enum class ExportFormat { Png, Pdf, Svg, Csv, Json };

QString suffixOf(ExportFormat f);
std::optional<ExportFormat> formatFromSuffix(const QString& suffix);
QList<ExportFormat> allExportFormats();

// The chart drawn at `size` pixels (times `scale` for sharper report images).
QImage renderChartImage(const ChartSpec& spec, bool logY, QSize size, double scale = 1.0);
// The chart as an SVG document.
QByteArray renderChartSvg(const ChartSpec& spec, bool logY, QSize size);

// Writes one file; the format comes from `format`. Returns false and the reason on failure.
bool exportChart(const ChartSpec& spec, bool logY, const QString& path, ExportFormat format,
                 QSize size, QString* error);

// A file name made of the chart id and the format's suffix, safe on every file system.
QString exportFileName(const ChartSpec& spec, ExportFormat format, const QString& prefix = {});

}  // namespace kernellab::widgets
