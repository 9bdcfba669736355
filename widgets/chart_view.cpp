// SPDX-License-Identifier: MIT
// ChartSpec -> QCustomPlot. Bars are laid out by hand (not QCPBarsGroup) so that a category only
// makes room for the series that have a value there: measured runs and published figures often
// sit in different categories.
#include "chart_view.h"

#include <QLabel>
#include <QLocale>
#include <QStackedLayout>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
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
};

// Title above, legend at the right (vertically centred), notes below. Done once per plot.
Decorations ensureDecorations(QCustomPlot* plot) {
  Decorations d;
  d.title = plot->findChild<QCPTextElement*>(QLatin1String(kTitleName));
  d.notes = plot->findChild<QCPTextElement*>(QLatin1String(kNotesName));
  if (d.title && d.notes) return d;

  QCPLayoutGrid* grid = plot->plotLayout();
  QFont titleFont = plot->font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
  titleFont.setBold(true);
  grid->insertRow(0);
  d.title = new QCPTextElement(plot, QString(), titleFont);
  d.title->setObjectName(QLatin1String(kTitleName));
  grid->addElement(0, 0, d.title);

  plot->axisRect()->insetLayout()->take(plot->legend);
  auto* side = new QCPLayoutGrid;
  grid->addElement(1, 1, side);
  side->addElement(0, 0, new QCPLayoutElement(plot));
  side->addElement(1, 0, plot->legend);
  side->addElement(2, 0, new QCPLayoutElement(plot));
  side->setRowStretchFactor(1, 0.001);
  grid->setColumnStretchFactor(1, 0.001);
  plot->legend->setBorderPen(QPen(QColor(200, 200, 200)));
  plot->legend->setRowSpacing(2);

  QFont noteFont = plot->font();
  noteFont.setPointSizeF(noteFont.pointSizeF() * 0.85);
  d.notes = new QCPTextElement(plot, QString(), noteFont);
  d.notes->setObjectName(QLatin1String(kNotesName));
  d.notes->setTextColor(QColor(90, 90, 90));
  d.notes->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  d.notes->setMargins(QMargins(12, 2, 12, 6));
  grid->addElement(2, 0, d.notes);
  return d;
}

// Manual wrapping: QCPTextElement does not wrap by itself.
QString wrapText(const QStringList& paragraphs, int width = 140) {
  QStringList lines;
  for (const QString& p : paragraphs) {
    QString line;
    for (const QString& word : p.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
      if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
        lines << line;
        line.clear();
      }
      line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty()) lines << line;
  }
  return lines.join(QLatin1Char('\n'));
}

// Long category names break at their " · " separators so the ticks stay readable.
QString tickLabel(const QString& category) {
  QString t = category;
  if (t.size() > 14) {
    t.replace(QStringLiteral(" · "), QStringLiteral("\n"));
    t.replace(QStringLiteral(" ("), QStringLiteral("\n("));
  }
  return t;
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
    bars->setBrush(series.published ? publishedBrush(color) : QBrush(color));
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
    if (series.published) pen.setStyle(Qt::DashLine);
    graph->setPen(pen);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, Qt::white, 6));
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
    for (int c = 0; c < spec.categories.size(); ++c) ticker->addTick(c, tickLabel(spec.categories[c]));
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
  PlotIndex index;
  const Decorations deco = ensureDecorations(plot);
  plot->clearItems();
  plot->clearPlottables();
  plot->setBackground(Qt::white);
  deco.title->setText(spec.title);
  deco.notes->setText(wrapText(spec.notes));

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
  return index;
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
  plot_ = new QCustomPlot(this);
  plot_->setMouseTracking(true);
  plot_->setMinimumSize(320, 220);
  placeholder_ = new QLabel(this);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  placeholder_->setStyleSheet(QStringLiteral("color: #666; font-size: 11pt; padding: 24px;"));
  stack_ = new QStackedLayout(this);
  stack_->setContentsMargins(0, 0, 0, 0);
  stack_->addWidget(plot_);
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
  plot_->replot();
  placeholder_->setText(placeholderText_);
  stack_->setCurrentWidget(spec_.isEmpty() ? static_cast<QWidget*>(placeholder_) : plot_);
}

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
