// SPDX-License-Identifier: MIT
// Checks that exported files parse: PNG (an image with more than background), PDF (a header and
// pages), SVG (XML with an <svg> root), CSV (rows of equal columns), chart JSON (a series list).
#pragma once

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QXmlStreamReader>
#include <QtTest>

namespace kltest {

inline QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Share of pixels that differ from the corner (background) colour.
inline double inkShare(const QImage& image) {
  const QRgb bg = image.pixel(0, 0);
  qint64 ink = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) ink += image.pixel(x, y) != bg;
  return double(ink) / (double(image.width()) * image.height());
}

inline void checkPng(const QString& path, QSize size) {
  QImage image(path);
  QVERIFY2(!image.isNull(), qPrintable(path));
  if (size.isValid()) QCOMPARE(image.size(), size);
  const double ink = inkShare(image);
  QVERIFY2(ink > 0.01, qPrintable(QStringLiteral("%1: only %2 of the pixels are not background").arg(path).arg(ink)));
}

inline void checkPdf(const QString& path) {
  const QByteArray pdf = readAll(path);
  QVERIFY2(pdf.startsWith("%PDF-"), qPrintable(path));
  QVERIFY(pdf.contains("%%EOF"));
  const qsizetype pages = pdf.count("/Type /Page\n") + pdf.count("/Type /Page ") + pdf.count("/Type /Page>") + pdf.count("/Type/Page");
  QVERIFY2(pages >= 1, qPrintable(QStringLiteral("%1 has no page objects").arg(path)));
}

inline void checkSvg(const QString& path) {
  QXmlStreamReader xml(readAll(path));
  bool sawSvg = false;
  int elements = 0;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      ++elements;
      if (xml.name() == QLatin1String("svg")) sawSvg = true;
    }
  }
  QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
  QVERIFY(sawSvg);
  QVERIFY2(elements > 20, "an SVG with almost nothing in it");
}

// `columns` < 0: every row has as many columns as the header.
inline void checkCsv(const QString& path, int minRows, int columns = -1) {
  const QStringList lines = QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts);
  QVERIFY2(lines.size() >= minRows + 1, qPrintable(path));
  // Quoted fields may hold commas: count columns outside quotes.
  int expected = columns;
  for (const QString& line : lines) {
    int cols = 1;
    bool quoted = false;
    for (QChar c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) ++cols;
    }
    if (expected < 0) expected = cols;
    QCOMPARE(cols, expected);
  }
}

inline void checkJson(const QString& path) {
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &err);
  QVERIFY2(!doc.isNull(), qPrintable(err.errorString()));
  QVERIFY(doc.object().contains(QStringLiteral("series")));
  QVERIFY(!doc.object()[QStringLiteral("series")].toArray().isEmpty());
}

}  // namespace kltest
