// SPDX-License-Identifier: MIT
// The data behind a chart as CSV and JSON, so a report can be re-plotted elsewhere.
#pragma once

#include <QByteArray>
#include <QString>

#include "chart_spec.h"

namespace kernellab::widgets {

// One row per point: series, published, x, category, value, min, max, unit, note, source.
// Fields are quoted where RFC 4180 needs it; numbers keep full precision.
QString chartToCsv(const ChartSpec& spec);

// {"id", "title", "kind", "x_label", "y_label", "unit", "categories", "notes",
//  "series": [{"name", "published", "source", "points": [{"x", "category", "value", "min", "max", "note"}]}]}
QByteArray chartToJson(const ChartSpec& spec);

// Writes bytes to a file, replacing it; on failure returns false and says why in `error`.
bool writeFileBytes(const QString& path, const QByteArray& bytes, QString* error);

// RFC 4180 quoting of one CSV field.
QString csvField(const QString& text);

}  // namespace kernellab::widgets
