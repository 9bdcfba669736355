// SPDX-License-Identifier: MIT
// Loads the published figures from the resource file.
#include "published_baselines.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

// The resources live in the kernellab_app static library; referencing the initialiser here makes
// the linker keep them (Q_INIT_RESOURCE must be called outside any namespace).
static void initKernelLabResources() { Q_INIT_RESOURCE(kernellab); }

namespace kernellab::app {

QVector<const PublishedTable*> PublishedBaselines::forFamily(Family f) const {
  QVector<const PublishedTable*> out;
  for (const auto& t : tables)
    if (t.family == f) out.push_back(&t);
  return out;
}

PublishedBaselines parsePublishedBaselines(const QByteArray& json) {
  PublishedBaselines out;
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
  if (doc.isNull() || !doc.isObject()) {
    out.error = QStringLiteral("published baselines: %1").arg(err.errorString());
    return out;
  }
  for (const QJsonValue& tv : doc.object().value(QStringLiteral("tables")).toArray()) {
    const QJsonObject t = tv.toObject();
    PublishedTable table;
    table.id = t.value(QStringLiteral("id")).toString();
    const auto family = familyFromString(t.value(QStringLiteral("family")).toString().toStdString());
    if (!family) continue;
    table.family = *family;
    table.device = t.value(QStringLiteral("device")).toString();
    table.metric = t.value(QStringLiteral("metric")).toString();
    table.unit = t.value(QStringLiteral("unit")).toString();
    table.axis = t.value(QStringLiteral("axis")).toString();
    for (const QJsonValue& v : t.value(QStringLiteral("axis_values")).toArray()) table.axisValues << v.toDouble();
    const QJsonObject problem = t.value(QStringLiteral("problem")).toObject();
    for (auto it = problem.begin(); it != problem.end(); ++it)
      if (it.value().isDouble()) table.problemValues[it.key()] = it.value().toDouble();
    if (problem.contains(QStringLiteral("n")))
      table.problem = QStringLiteral("N=%L1 K=%2 D=%3")
                          .arg(problem.value(QStringLiteral("n")).toDouble(), 0, 'f', 0)
                          .arg(problem.value(QStringLiteral("k")).toInt())
                          .arg(problem.value(QStringLiteral("d")).toInt());
    else if (problem.contains(QStringLiteral("width"))) {
      table.width = problem.value(QStringLiteral("width")).toDouble();
      table.height = problem.value(QStringLiteral("height")).toDouble();
      table.problem = QStringLiteral("%1x%2 float32").arg(table.width).arg(table.height);
    } else if (problem.contains(QStringLiteral("rows")))
      table.problem = QStringLiteral("%1x%2x%3 image, window %4, k %5")
                          .arg(problem.value(QStringLiteral("rows")).toInt())
                          .arg(problem.value(QStringLiteral("cols")).toInt())
                          .arg(problem.value(QStringLiteral("components")).toInt())
                          .arg(problem.value(QStringLiteral("window")).toInt())
                          .arg(problem.value(QStringLiteral("k")).toInt());
    table.ownMeasurement = t.value(QStringLiteral("own_measurement")).toBool();
    table.measured = t.value(QStringLiteral("measured")).toString();
    table.source = t.value(QStringLiteral("source")).toString();
    table.shortSource = t.value(QStringLiteral("short_source")).toString();
    const QJsonObject labels = t.value(QStringLiteral("variant_labels")).toObject();
    for (auto it = labels.begin(); it != labels.end(); ++it) table.variantLabels[it.key()] = it.value().toString();
    for (const QJsonValue& sv : t.value(QStringLiteral("series")).toArray()) {
      const QJsonObject s = sv.toObject();
      PublishedSeries series;
      series.variant = s.value(QStringLiteral("variant")).toString();
      series.label = s.value(QStringLiteral("label")).toString();
      for (const QJsonValue& v : s.value(QStringLiteral("values")).toArray()) series.values << v.toDouble();
      table.series << series;
    }
    for (const QJsonValue& dv : t.value(QStringLiteral("devices")).toArray()) {
      const QJsonObject d = dv.toObject();
      PublishedDevice device;
      device.device = d.value(QStringLiteral("device")).toString();
      const QJsonObject values = d.value(QStringLiteral("values")).toObject();
      for (auto it = values.begin(); it != values.end(); ++it) device.values[it.key()] = it.value().toDouble();
      table.devices << device;
    }
    for (const QJsonValue& n : t.value(QStringLiteral("notes")).toArray()) table.notes << n.toString();
    out.tables << table;
  }
  return out;
}

namespace {

PublishedBaselines loadResource(const QString& path) {
  initKernelLabResources();
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    PublishedBaselines b;
    b.error = QStringLiteral("resource %1 is missing").arg(path);
    return b;
  }
  return parsePublishedBaselines(f.readAll());
}

}  // namespace

const PublishedBaselines& publishedBaselines() {
  static const PublishedBaselines baselines = loadResource(QStringLiteral(":/baselines/published_baselines.json"));
  return baselines;
}

const PublishedBaselines& gpuReference() {
  static const PublishedBaselines reference = loadResource(QStringLiteral(":/baselines/h200_reference.json"));
  return reference;
}

QString referenceLabel(const PublishedTable& t) {
  return QObject::tr("%1, measured %2").arg(t.device.isEmpty() && !t.devices.isEmpty() ? t.devices.front().device : t.device, t.measured);
}

}  // namespace kernellab::app
