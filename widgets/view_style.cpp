// SPDX-License-Identifier: MIT
// Colours and value formatting shared by the views.
#include "view_style.h"

#include <array>
#include <cmath>

namespace kernellab::widgets {

QColor categoricalColor(int index) {
  // Tableau-like qualitative colours: distinct in print and for common colour-vision deficiencies.
  static const std::array<QColor, 12> kColors = {
      QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34), QColor(23, 190, 207), QColor(174, 199, 232), QColor(255, 187, 120)};
  if (index < 0) return QColor(160, 160, 160);
  if (index < static_cast<int>(kColors.size())) return kColors[static_cast<size_t>(index)];
  // Beyond the table: golden-angle hues so neighbours differ.
  const int hue = static_cast<int>(std::fmod(index * 137.508, 360.0));
  return QColor::fromHsv(hue, 170, 210);
}

QBrush publishedBrush(const QColor& color) { return QBrush(color, Qt::BDiagPattern); }
QBrush referenceBrush(const QColor& color) { return QBrush(color, Qt::DiagCrossPattern); }

QString formatValue(double value, const QString& unit) {
  QString number;
  if (unit == QLatin1String("GB/s") || unit == QLatin1String("%")) {
    number = QString::number(value, 'f', 1);
  } else if (value != 0 && std::fabs(value) < 1e-3) {
    number = QString::number(value, 'e', 3);
  } else {
    // 4 significant digits without switching to exponent notation for large values.
    const double mag = value == 0 ? 0 : std::floor(std::log10(std::fabs(value)));
    const int decimals = std::max(0, 3 - static_cast<int>(mag));
    number = QString::number(value, 'f', decimals);
  }
  if (unit.isEmpty()) return number;
  if (unit == QLatin1String("%")) return number + unit;
  return number + QLatin1Char(' ') + unit;
}

QString sharedMemoryText(double bytes) {
  if (bytes < kBytesPerKiB) return QStringLiteral("%L1 B").arg(static_cast<qint64>(bytes));
  const double kib = bytes / kBytesPerKiB;
  // Whole KiB read as such ("48 KiB"); others with two decimals ("4.13 KiB" for a 33 x 32 tile).
  const bool whole = std::fabs(kib - std::round(kib)) < 1e-9;
  return QStringLiteral("%1 KiB").arg(kib, 0, 'f', whole ? 0 : 2);
}

}  // namespace kernellab::widgets
