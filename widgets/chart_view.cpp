// SPDX-License-Identifier: MIT
// ChartSpec -> QCustomPlot. Bars are laid out by hand (not QCPBarsGroup) so that a category only
// makes room for the series that have a value there: measured runs and published figures often
// sit in different categories.
#include "chart_view.h"

#include <QLabel>
#include <QEvent>
#include <QScrollArea>
#include <QSet>
#include <QLocale>
#include <QStackedLayout>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include <qcustomplot.h>

#include "view_style.h"

namespace kernellab::widgets {
namespace {

constexpr const char* kTitleName = "kl_title";
constexpr const char* kNotesName = "kl_notes";
constexpr int kMaxValueLabels = 24;  // above this many bars, value labels clutter the chart

struct Decorations {
  QCPTextElement* title = nullptr;
  QCPTextElement* notes = nullptr;
  QCPLayoutGrid* side = nullptr;    // right of the plot: the legend when it fits beside it
  QCPLayoutGrid* below = nullptr;   // under the plot: the legend of a narrow chart, in columns
};

constexpr const char* kSideName = "kl_side";
constexpr const char* kBelowName = "kl_below";

// The plot's row takes the height left over; title, legend and notes only what they need.
void stretchPlotRow(QCustomPlot* plot) {
  QCPLayoutGrid* grid = plot->plotLayout();
  for (int r = 0; r < grid->rowCount(); ++r)
    grid->setRowStretchFactor(r, grid->hasElement(r, 0) && grid->element(r, 0) == plot->axisRect() ? 1.0 : 0.001);
}

// Title above, the plot with the legend at its right (vertically centred) or below it, notes
// under everything. The legend always sits outside the plot area, inside the chart. Done once.
Decorations ensureDecorations(QCustomPlot* plot) {
  Decorations d;
  d.title = plot->findChild<QCPTextElement*>(QLatin1String(kTitleName));
  d.notes = plot->findChild<QCPTextElement*>(QLatin1String(kNotesName));
  // Layout grids have no QObject parent: find them among the layout's elements.
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
    if (!e) continue;
    if (e->objectName() == QLatin1String(kSideName)) d.side = qobject_cast<QCPLayoutGrid*>(e);
    if (e->objectName() == QLatin1String(kBelowName)) d.below = qobject_cast<QCPLayoutGrid*>(e);
  }
  if (d.title && d.notes && d.side) return d;

  QCPLayoutGrid* grid = plot->plotLayout();
  // Every text unhinted: QCustomPlot sizes its elements with the fonts' metrics, and exports
  // draw them scaled, where hinting does not apply; hinted metrics at screen size came out up to
  // a fifth narrower than the drawn text, and legends and titles were cut.
  QFont base = plot->font();
  base.setHintingPreference(QFont::PreferNoHinting);
  plot->setFont(base);
  plot->legend->setFont(base);
  for (QCPAxis* axis : plot->axisRect()->axes()) {
    QFont label = axis->labelFont(), ticks = axis->tickLabelFont();
    label.setHintingPreference(QFont::PreferNoHinting);
    ticks.setHintingPreference(QFont::PreferNoHinting);
    axis->setLabelFont(label);
    axis->setTickLabelFont(ticks);
  }
  QFont titleFont = plot->font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
  titleFont.setBold(true);
  titleFont.setHintingPreference(QFont::PreferNoHinting);  // as measured by wrapToWidth
  grid->insertRow(0);
  d.title = new QCPTextElement(plot, QString(), titleFont);
  d.title->setObjectName(QLatin1String(kTitleName));
  grid->addElement(0, 0, d.title);

  plot->axisRect()->insetLayout()->take(plot->legend);
  d.side = new QCPLayoutGrid;
  d.side->setObjectName(QLatin1String(kSideName));
  grid->addElement(1, 1, d.side);
  d.side->addElement(0, 0, new QCPLayoutElement(plot));
  d.side->addElement(1, 0, plot->legend);
  d.side->addElement(2, 0, new QCPLayoutElement(plot));
  d.side->setRowStretchFactor(1, 0.001);
  grid->setColumnStretchFactor(1, 0.001);
  plot->legend->setBorderPen(QPen(QColor(200, 200, 200)));
  plot->legend->setRowSpacing(2);
  plot->legend->setColumnSpacing(12);

  QFont noteFont = plot->font();
  noteFont.setPointSizeF(noteFont.pointSizeF() * 0.85);
  noteFont.setHintingPreference(QFont::PreferNoHinting);
  d.notes = new QCPTextElement(plot, QString(), noteFont);
  d.notes->setObjectName(QLatin1String(kNotesName));
  d.notes->setTextColor(QColor(90, 90, 90));
  d.notes->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  d.notes->setMargins(QMargins(12, 2, 12, 6));
  grid->addElement(2, 0, d.notes);
  grid->setRowSpacing(2);
  stretchPlotRow(plot);
  return d;
}

// Wraps text at spaces so no line is wider than `width` pixels in `font` (QCPTextElement does
// not wrap by itself).
QString wrapToWidth(const QStringList& paragraphs, const QFont& font, int width) {
  // Unhinted metrics: exports draw the text scaled, where hinting does not apply, and hinted
  // advances at screen size come out up to a fifth narrower than what is drawn.
  QFont unhinted = font;
  unhinted.setHintingPreference(QFont::PreferNoHinting);
  const QFontMetricsF fm(unhinted);
  QStringList lines;
  for (const QString& p : paragraphs) {
    QString line;
    for (const QString& word : p.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
      if (!line.isEmpty() && fm.horizontalAdvance(candidate) > width) {
        lines << line;
        line = word;
      } else {
        line = candidate;
      }
    }
    if (!line.isEmpty()) lines << line;
  }
  return lines.join(QLatin1Char('\n'));
}

// Long category names may break at their " · " separators and before a parenthesis.
QString brokenLabel(const QString& category) {
  QString t = category;
  t.replace(QStringLiteral(" · "), QStringLiteral("\n"));
  t.replace(QStringLiteral(" ("), QStringLiteral("\n("));
  return t;
}

int widestLine(const QString& text, const QFontMetrics& fm) {
  int w = 0;
  for (const QString& line : text.split(QLatin1Char('\n'))) w = std::max(w, fm.horizontalAdvance(line));
  return w;
}

// Published and reference series whose variant has a measured series keep their colour but leave
// the legend, which instead says once what hatching means: a legend of every variant three times
// over would not fit beside the plot.
void compactLegend(QCustomPlot* plot, const ChartSpec& spec, const PlotIndex& index) {
  QSet<int> measuredColors;
  bool hatched = false, crossHatched = false;
  for (const auto& s : spec.series)
    if (!s.published) measuredColors.insert(s.colorIndex);
  for (auto it = index.begin(); it != index.end(); ++it) {
    const ChartSeries& s = spec.series[it->series];
    if (!s.published || !measuredColors.contains(s.colorIndex)) continue;
    auto* plottable = const_cast<QCPAbstractPlottable*>(it.key());
    plottable->removeFromLegend();
    (s.reference ? crossHatched : hatched) = true;
  }
  // Legend keys of no data: grey swatches that say what a pattern means.
  auto key = [&](const QString& name, const QBrush& brush) {
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(name);
    bars->setPen(QPen(QColor(90, 90, 90)));
    bars->setBrush(brush);
    bars->setSelectable(QCP::stNone);
  };
  if (hatched) key(QObject::tr("Hatched: published figures"), publishedBrush(QColor(90, 90, 90)));
  if (crossHatched) key(QObject::tr("Cross-hatched: KernelLab on an H200"), referenceBrush(QColor(90, 90, 90)));
}

QString exact(double v) { return QString::number(v, 'g', 7); }

void valueRange(const ChartSpec& spec, double& minPositive, double& maxValue) {
  minPositive = std::numeric_limits<double>::infinity();
  maxValue = 0;
  auto see = [&](double v) {
    if (!std::isfinite(v)) return;
    if (v > 0) minPositive = std::min(minPositive, v);
    maxValue = std::max(maxValue, v);
  };
  if (spec.kind == ChartKind::StackedBars) {
    // The top of a stack is the sum of its parts.
    QHash<int, double> sums;
    for (const auto& s : spec.series)
      for (int i = 0; i < s.size(); ++i) {
        sums[static_cast<int>(std::lround(s.x.value(i)))] += std::max(0.0, s.y[i]);
        see(s.y[i]);
      }
    for (double v : sums) see(v);
    return;
  }
  for (const auto& s : spec.series)
    for (int i = 0; i < s.size(); ++i) {
      see(s.y[i]);
      if (s.hasWhiskers()) {
        see(s.low[i]);
        see(s.high[i]);
      }
    }
}

void addBars(QCustomPlot* plot, const ChartSpec& spec, bool logY, double floorValue,
             PlotIndex& index) {
  const int categories = static_cast<int>(spec.categories.size());
  const bool stacked = spec.kind == ChartKind::StackedBars;
  // Which series have a value in each category, in series order.
  QVector<QVector<int>> present(categories);
  for (int s = 0; s < spec.series.size(); ++s)
    for (double x : spec.series[s].x) {
      const int c = static_cast<int>(std::lround(x));
      if (c >= 0 && c < categories && !present[c].contains(s)) present[c].push_back(s);
    }
  int maxPresent = 1;
  for (const auto& p : present) maxPresent = std::max(maxPresent, static_cast<int>(p.size()));
  const double slot = stacked ? 0.6 : 0.82 / maxPresent;

  QCPBars* below = nullptr;
  int barCount = 0;
  struct Label {
    double key, value;
    QString text;
  };
  QVector<Label> labels;
  for (int s = 0; s < spec.series.size(); ++s) {
    const ChartSeries& series = spec.series[s];
    const QColor color = categoricalColor(series.colorIndex);
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(series.name);
    bars->setPen(QPen(color.darker(135), 1.0));
    bars->setBrush(series.reference ? referenceBrush(color) : series.published ? publishedBrush(color) : QBrush(color));
    bars->setWidth(stacked ? slot : slot * 0.9);
    bars->setBaseValue(logY ? floorValue : 0.0);
    bars->setSelectable(QCP::stSingleData);

    std::vector<std::pair<double, int>> points;
    for (int i = 0; i < series.size(); ++i) {
      const int c = static_cast<int>(std::lround(series.x.value(i)));
      if (c < 0 || c >= categories) continue;
      double key = c;
      if (!stacked) {
        const auto& here = present[c];
        const int rank = static_cast<int>(here.indexOf(s));
        key = c + (rank - (here.size() - 1) / 2.0) * slot;
      }
      points.emplace_back(key, i);
    }
    std::sort(points.begin(), points.end());
    QVector<double> keys, values, minus, plus;
    PlottedSeries plotted;
    plotted.series = s;
    for (const auto& [key, i] : points) {
      const double v = series.y[i];
      keys << key;
      values << (logY ? std::max(v, floorValue) : v);
      plotted.pointOfData << i;
      if (series.hasWhiskers()) {
        minus << std::max(0.0, v - series.low[i]);
        plus << std::max(0.0, series.high[i] - v);
      }
      labels.push_back({key, series.hasWhiskers() ? std::max(v, series.high[i]) : v,
                        formatValue(v, QString())});
    }
    bars->setData(keys, values, true);
    if (stacked && below) bars->moveAbove(below);
    below = bars;
    index.insert(bars, plotted);
    barCount += static_cast<int>(points.size());

    if (!stacked && series.hasWhiskers()) {
      auto* err = new QCPErrorBars(plot->xAxis, plot->yAxis);
      err->removeFromLegend();
      err->setSelectable(QCP::stNone);
      err->setDataPlottable(bars);
      err->setData(minus, plus);
      err->setPen(QPen(QColor(30, 30, 30), 1.1));
      err->setWhiskerWidth(std::max(3.0, 40.0 * slot));
    }
  }
  // Value labels only where they fit: few bars, at most five side by side.
  if (!stacked && barCount <= kMaxValueLabels && maxPresent <= 5) {
    QFont f = plot->font();
    f.setPointSizeF(f.pointSizeF() * 0.8);
    for (const auto& l : labels) {
      auto* text = new QCPItemText(plot);
      text->setClipToAxisRect(true);
      text->position->setType(QCPItemPosition::ptPlotCoords);
      text->position->setCoords(l.key, logY ? std::max(l.value, floorValue) : l.value);
      text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      text->setPadding(QMargins(0, 0, 0, 2));
      text->setFont(f);
      text->setColor(QColor(50, 50, 50));
      text->setText(l.text);
      text->setSelectable(false);
    }
  }
}

void addLines(QCustomPlot* plot, const ChartSpec& spec, bool logY, double floorValue,
              PlotIndex& index) {
  for (int s = 0; s < spec.series.size(); ++s) {
    const ChartSeries& series = spec.series[s];
    const QColor color = categoricalColor(series.colorIndex);
    QCPGraph* graph = plot->addGraph();
    graph->setName(series.name);
    QPen pen(color, 2.0);
    if (series.published) pen.setStyle(series.reference ? Qt::DotLine : Qt::DashLine);
    else if (series.dashed) pen.setStyle(Qt::DashLine);
    graph->setPen(pen);
    // A second measure of a variant gets diamonds as well as dashes: with a point per center or
    // iteration (100 of them) the markers leave no gap for the dashes to show.
    const auto shape = series.dashed ? QCPScatterStyle::ssDiamond : QCPScatterStyle::ssCircle;
    graph->setScatterStyle(QCPScatterStyle(shape, color, Qt::white, series.dashed ? 7 : 6));
    graph->setSelectable(QCP::stSingleData);

    std::vector<std::pair<double, int>> points;
    for (int i = 0; i < series.size(); ++i) points.emplace_back(series.x.value(i, i), i);
    std::sort(points.begin(), points.end());
    QVector<double> keys, values, minus, plus;
    PlottedSeries plotted;
    plotted.series = s;
    for (const auto& [key, i] : points) {
      keys << key;
      values << (logY ? std::max(series.y[i], floorValue) : series.y[i]);
      plotted.pointOfData << i;
      if (series.hasWhiskers()) {
        minus << std::max(0.0, series.y[i] - series.low[i]);
        plus << std::max(0.0, series.high[i] - series.y[i]);
      }
    }
    graph->setData(keys, values, true);
    index.insert(graph, plotted);
    if (series.hasWhiskers()) {
      auto* err = new QCPErrorBars(plot->xAxis, plot->yAxis);
      err->removeFromLegend();
      err->setSelectable(QCP::stNone);
      err->setDataPlottable(graph);
      err->setData(minus, plus);
      err->setPen(QPen(color.darker(120), 1.0));
      err->setWhiskerWidth(6);
    }
  }
}

void setupXAxis(QCustomPlot* plot, const ChartSpec& spec) {
  QCPAxis* x = plot->xAxis;
  x->setLabel(spec.xLabel);
  if (spec.kind != ChartKind::Lines) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int c = 0; c < spec.categories.size(); ++c) ticker->addTick(c, spec.categories[c]);  // fitted later
    x->setScaleType(QCPAxis::stLinear);
    x->setTicker(ticker);
    x->setSubTicks(false);
    x->setTickLength(0, 4);
    x->grid()->setVisible(false);
    x->setRange(-0.6, std::max(0, static_cast<int>(spec.categories.size()) - 1) + 0.6);
    return;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : spec.series)
    for (double v : s.x) {
      if (spec.logX && v <= 0) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  x->grid()->setVisible(true);
  x->setScaleType(spec.logX ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  x->setNumberFormat(QStringLiteral("g"));
  if (spec.logX) x->setRange(lo / 1.4, hi * 1.4);
  else {
    const double pad = hi > lo ? (hi - lo) * 0.05 : 1.0;
    x->setRange(lo - pad, hi + pad);
  }
  // A sweep has a handful of x values (64, 128, ... or 10,000, 100,000, ...): tick exactly those.
  QVector<double> xs;
  for (const auto& s : spec.series)
    for (double v : s.x)
      if (!xs.contains(v) && (!spec.logX || v > 0)) xs << v;
  if (!xs.isEmpty() && xs.size() <= 12) {
    std::sort(xs.begin(), xs.end());
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (double v : xs) ticker->addTick(v, QLocale().toString(v, 'g', 10));
    x->setTicker(ticker);
    x->setSubTicks(false);
    x->setTickLength(0, 4);
  } else {
    x->setSubTicks(true);
    x->setTickLength(5, 2);
    if (spec.logX) x->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else x->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
}

}  // namespace

PlotIndex populatePlot(QCustomPlot* plot, const ChartSpec& spec, bool logY) {
  logY = logY || spec.logY;
  PlotIndex index;
  ensureDecorations(plot);
  plot->clearItems();
  plot->clearPlottables();
  plot->setBackground(Qt::white);

  double minPositive = 0, maxValue = 0;
  valueRange(spec, minPositive, maxValue);
  if (!std::isfinite(minPositive)) minPositive = 1.0;
  // Log bars grow from the decade below the smallest value (a log axis has no zero).
  const double floorValue = std::pow(10.0, std::floor(std::log10(minPositive)));

  if (spec.kind == ChartKind::Lines) addLines(plot, spec, logY, floorValue, index);
  else addBars(plot, spec, logY, floorValue, index);

  setupXAxis(plot, spec);
  QCPAxis* y = plot->yAxis;
  y->setLabel(spec.yLabel);
  y->setNumberFormat(QStringLiteral("g"));
  y->setNumberPrecision(6);
  if (logY) {
    y->setScaleType(QCPAxis::stLogarithmic);
    y->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    y->setRange(floorValue, std::max(floorValue * 10, maxValue * 2.5));
  } else {
    y->setScaleType(QCPAxis::stLinear);
    y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    y->setRange(0, maxValue > 0 ? maxValue * 1.12 : 1.0);
  }
  plot->legend->setVisible(!spec.series.isEmpty());
  compactLegend(plot, spec, index);
  fitToWidth(plot, spec);
  return index;
}

// The most columns a legend below the plot can take within `available` pixels. Item i goes to
// column i % columns (filled columns first), and each column is as wide as its widest item: a few
// long names (the phases of a k-means run) must not force every column to their width, which
// left one column of 25 rows that took most of the chart's height.
static int legendColumnsThatFit(QCPLegend* legend, int available) {
  std::vector<int> widths;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = legend->item(i))  // a wrapped legend has empty cells
      widths.push_back(item->minimumOuterSizeHint().width());
  const int n = static_cast<int>(widths.size());
  for (int columns = n; columns > 1; --columns) {
    int total = legend->margins().left() + legend->margins().right();
    for (int c = 0; c < columns; ++c) {
      int widest = 0;
      for (int i = c; i < n; i += columns) widest = std::max(widest, widths[size_t(i)]);
      total += widest + (c > 0 ? legend->columnSpacing() : 0);
    }
    if (total <= available) return columns;
  }
  return 1;
}

int chartHeightNeeded(QCustomPlot* plot) {
  const Decorations d = ensureDecorations(plot);
  const auto hint = [](QCPLayoutElement* e) { return e->minimumOuterSizeHint().height(); };
  const int text = hint(d.title) + hint(d.notes);
  const int legend = plot->legend->visible() ? plot->legend->minimumOuterSizeHint().height() : 0;
  constexpr int kPlotArea = 280;  // the axis rect with its tick labels and slanted category names
  return d.side->visible() ? text + std::max(kPlotArea, legend + 20) : text + legend + kPlotArea;
}

void fitToWidth(QCustomPlot* plot, const ChartSpec& spec) {
  const Decorations d = ensureDecorations(plot);
  const int width = std::max(200, plot->width());
  // Title and notes wrap at the chart's width: never cut at its edges.

  // The legend: beside the plot when it takes at most 30 % of the width, else below it in as
  // many columns as fit. Either way outside the plot area and inside the chart.
  QCPLegend* legend = plot->legend;
  int itemWidth = 0;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = legend->item(i))  // a wrapped legend has empty cells
      itemWidth = std::max(itemWidth, item->minimumOuterSizeHint().width());
  const int sideWidth = itemWidth + legend->margins().left() + legend->margins().right() + 12;
  const bool beside = sideWidth <= 0.3 * width;
  const bool isBeside = d.side->hasElement(1, 0) && d.side->element(1, 0) == legend;
  if (beside != isBeside) {
    // The row under the plot exists only while it holds the legend: an empty grid in the
    // layout's first column would cap that column's width.
    QCPLayoutGrid* grid = plot->plotLayout();
    if (isBeside) {
      d.side->take(legend);
      grid->insertRow(2);
      auto* below = new QCPLayoutGrid;
      below->setObjectName(QLatin1String(kBelowName));
      grid->addElement(2, 0, below);
      below->addElement(0, 0, legend);
    } else {
      d.below->take(legend);
      grid->remove(d.below);
      grid->simplify();
      d.side->addElement(1, 0, legend);
    }
    stretchPlotRow(plot);
  }
  if (beside) {
    // One column: rows filled first, never wrapped (QCustomPlot's wrap 0 would wrap at once).
    legend->setWrap(std::max(1, legend->elementCount()));
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
  } else {
    legend->setWrap(legendColumnsThatFit(legend, width - 40));
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  }
  d.side->setVisible(beside);  // an empty side column takes no room

  // Title and notes wrap in the plot's column (beside the legend, not over it), with a little
  // to spare for the rounding of scaled text.
  const int column = beside ? width - sideWidth - 10 : width;
  d.title->setText(wrapToWidth({spec.title}, d.title->font(), int(column * 0.95) - 24));
  d.notes->setText(wrapToWidth(spec.notes, d.notes->font(), int(column * 0.95) - 30));

  if (spec.kind == ChartKind::Lines || spec.categories.isEmpty()) return;
  // Category labels stay whole and apart: on one line when they fit, broken at their
  // separators when that fits, else slanted.
  QCPAxis* x = plot->xAxis;
  const QFontMetrics fm(x->tickLabelFont());
  const int plotWidth = width - 110 - (beside ? sideWidth : 0);
  const double slot = double(plotWidth) / double(spec.categories.size() + 0.2) - 8.0;
  int oneLine = 0, broken = 0;
  for (const QString& c : spec.categories) {
    oneLine = std::max(oneLine, fm.horizontalAdvance(c));
    broken = std::max(broken, widestLine(brokenLabel(c), fm));
  }
  const bool useBroken = oneLine > slot && broken <= slot;
  const bool slant = oneLine > slot && broken > slot;
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int c = 0; c < spec.categories.size(); ++c)
    ticker->addTick(c, useBroken ? brokenLabel(spec.categories[c]) : spec.categories[c]);
  x->setTicker(ticker);
  // Slanted up to the left: each label ends under its own group.
  x->setTickLabelRotation(slant ? -30 : 0);
}

QString pointTooltip(const ChartSpec& spec, int seriesIndex, int point) {
  if (seriesIndex < 0 || seriesIndex >= spec.series.size()) return {};
  const ChartSeries& s = spec.series[seriesIndex];
  if (point < 0 || point >= s.size()) return {};
  QString t = QStringLiteral("<b>%1</b>").arg(s.name.toHtmlEscaped());
  const double x = s.x.value(point, point);
  if (spec.kind == ChartKind::Lines) {
    t += QStringLiteral("<br>%1: %2").arg(spec.xLabel.toHtmlEscaped(), exact(x));
  } else {
    const int c = static_cast<int>(std::lround(x));
    if (c >= 0 && c < spec.categories.size())
      t += QStringLiteral("<br>%1").arg(spec.categories[c].toHtmlEscaped());
  }
  const QString unit = spec.unit.isEmpty() ? QString() : QStringLiteral(" ") + spec.unit;
  t += QStringLiteral("<br>%1: %2%3").arg(spec.yLabel.section(QLatin1Char('('), 0, 0).trimmed().toHtmlEscaped(),
                                          exact(s.y[point]), unit.toHtmlEscaped());
  if (s.hasWhiskers())
    t += QStringLiteral("<br>min %1 · max %2%3").arg(exact(s.low[point]), exact(s.high[point]),
                                                     unit.toHtmlEscaped());
  if (point < s.notes.size() && !s.notes[point].isEmpty())
    t += QStringLiteral("<br>%1").arg(s.notes[point].toHtmlEscaped());
  if (s.published)
    t += QStringLiteral("<br><i>Published figure, not measured here: %1</i>").arg(s.source.toHtmlEscaped());
  return t;
}

ChartView::ChartView(QWidget* parent) : QWidget(parent) {
  // The plot scrolls vertically when its legend and notes need more height than the tab has (a
  // k-means run of every variant: 25 kernels and phases), instead of squeezing the plot to a line.
  scroll_ = new QScrollArea(this);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setWidgetResizable(true);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  plot_ = new QCustomPlot;
  plot_->setMouseTracking(true);
  plot_->setMinimumSize(320, 220);
  plot_->installEventFilter(this);
  scroll_->setWidget(plot_);
  placeholder_ = new QLabel(this);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  placeholder_->setStyleSheet(QStringLiteral("color: #666; font-size: 11pt; padding: 24px;"));
  stack_ = new QStackedLayout(this);
  stack_->setContentsMargins(0, 0, 0, 0);
  stack_->addWidget(scroll_);
  stack_->addWidget(placeholder_);
  placeholderText_ = tr("No data to plot yet.");
  connect(plot_, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* e) { showTooltipAt(e->pos()); });
  rebuild();
}

void ChartView::setChart(const ChartSpec& spec) {
  spec_ = spec;
  rebuild();
}

void ChartView::setLogScale(bool on) {
  if (logY_ == on) return;
  logY_ = on;
  rebuild();
}

void ChartView::setPlaceholder(const QString& text) {
  placeholderText_ = text;
  placeholder_->setText(text);
}

void ChartView::rebuild() {
  index_ = populatePlot(plot_, spec_, logY_);
  if (!spec_.isEmpty()) fitPlotHeight();
  plot_->replot();
  placeholder_->setText(placeholderText_);
  stack_->setCurrentWidget(spec_.isEmpty() ? static_cast<QWidget*>(placeholder_) : scroll_);
}

// The plot's own resize (its width follows the scroll area's): fit the layout to the width, then
// ask for the height that layout needs. A height change alone leaves the layout as it is, so the
// second resize this may cause ends here.
bool ChartView::eventFilter(QObject* watched, QEvent* e) {
  if (watched == plot_ && e->type() == QEvent::Resize && !spec_.isEmpty()) {
    fitToWidth(plot_, spec_);
    fitPlotHeight();
    plot_->replot(QCustomPlot::rpQueuedReplot);
  }
  return QWidget::eventFilter(watched, e);
}

void ChartView::fitPlotHeight() { plot_->setMinimumHeight(std::max(220, chartHeightNeeded(plot_))); }

void ChartView::showTooltipAt(const QPoint& pos) {
  int dataIndex = -1;
  QCPAbstractPlottable* p = plot_->plottableAt(pos, true, &dataIndex);
  const auto it = index_.constFind(p);
  if (!p || it == index_.constEnd() || dataIndex < 0 || dataIndex >= it->pointOfData.size()) {
    QToolTip::hideText();
    return;
  }
  const QString text = pointTooltip(spec_, it->series, it->pointOfData[dataIndex]);
  QToolTip::showText(plot_->mapToGlobal(pos), text, plot_);
  emit pointHovered(text);
}

}  // namespace kernellab::widgets
