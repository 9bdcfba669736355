// SPDX-License-Identifier: MIT
// CSV and JSON writers for chart data.
#include "chart_data_io.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace kernellab::widgets {
namespace {

QString kindName(ChartKind k) {
  switch (k) {
    case ChartKind::GroupedBars: return QStringLiteral("grouped-bars");
    case ChartKind::StackedBars: return QStringLiteral("stacked-bars");
    case ChartKind::Lines: return QStringLiteral("lines");
  }
  return {};
}

QString number(double v) { return QString::number(v, 'g', 12); }

QString categoryOf(const ChartSpec& spec, double x) {
  if (spec.kind == ChartKind::Lines) return {};
  const int i = static_cast<int>(x);
  return (i >= 0 && i < spec.categories.size()) ? spec.categories[i] : QString();
}

}  // namespace

QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n')))
    return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString chartToCsv(const ChartSpec& spec) {
  QString out = QStringLiteral("series,published,x,category,value,min,max,unit,note,source\n");
  for (const auto& s : spec.series) {
    for (int i = 0; i < s.size(); ++i) {
      const double x = i < s.x.size() ? s.x[i] : i;
      QStringList row;
      // "reference": KernelLab's own run on another device (the H200 set), not a publication.
      row << csvField(s.name) << (s.reference ? QStringLiteral("reference") : s.published ? QStringLiteral("yes") : QStringLiteral("no"))
          << number(x) << csvField(categoryOf(spec, x)) << number(s.y[i])
          << (s.hasWhiskers() ? number(s.low[i]) : QString())
          << (s.hasWhiskers() ? number(s.high[i]) : QString()) << csvField(spec.unit)
          << csvField(i < s.notes.size() ? s.notes[i] : QString()) << csvField(s.source);
      out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
  }
  return out;
}

QByteArray chartToJson(const ChartSpec& spec) {
  QJsonObject root;
  root[QStringLiteral("id")] = spec.id;
  root[QStringLiteral("title")] = spec.title;
  root[QStringLiteral("kind")] = kindName(spec.kind);
  root[QStringLiteral("x_label")] = spec.xLabel;
  root[QStringLiteral("y_label")] = spec.yLabel;
  root[QStringLiteral("unit")] = spec.unit;
  root[QStringLiteral("categories")] = QJsonArray::fromStringList(spec.categories);
  root[QStringLiteral("notes")] = QJsonArray::fromStringList(spec.notes);
  if (!spec.caption.isEmpty()) root[QStringLiteral("caption")] = spec.caption;
  QJsonArray series;
  for (const auto& s : spec.series) {
    QJsonObject so;
    so[QStringLiteral("name")] = s.name;
    so[QStringLiteral("published")] = s.published;
    if (s.reference) so[QStringLiteral("reference")] = true;
    if (!s.source.isEmpty()) so[QStringLiteral("source")] = s.source;
    QJsonArray points;
    for (int i = 0; i < s.size(); ++i) {
      QJsonObject p;
      const double x = i < s.x.size() ? s.x[i] : i;
      p[QStringLiteral("x")] = x;
      const QString cat = categoryOf(spec, x);
      if (!cat.isEmpty()) p[QStringLiteral("category")] = cat;
      p[QStringLiteral("value")] = s.y[i];
      if (s.hasWhiskers()) {
        p[QStringLiteral("min")] = s.low[i];
        p[QStringLiteral("max")] = s.high[i];
      }
      if (i < s.notes.size() && !s.notes[i].isEmpty()) p[QStringLiteral("note")] = s.notes[i];
      points.append(p);
    }
    so[QStringLiteral("points")] = points;
    series.append(so);
  }
  root[QStringLiteral("series")] = series;
  return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

bool writeFileBytes(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    if (error) *error = QStringLiteral("cannot write '%1': %2").arg(path, f.errorString());
    return false;
  }
  f.write(bytes);
  if (!f.commit()) {
    if (error) *error = QStringLiteral("cannot write '%1': %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

}  // namespace kernellab::widgets
