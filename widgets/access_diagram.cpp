// SPDX-License-Identifier: MIT
// AccessDiagram: lanes to sectors and lines (global), lanes to banks (shared).
#include "access_diagram.h"

#include <QPainter>
#include <map>
#include <set>

namespace kernellab::widgets {

namespace {

const QColor kGood(44, 160, 44);
const QColor kBad(214, 39, 40);
const QColor kIdle(225, 225, 225);

QColor mix(const QColor& a, const QColor& b, double f) {
  return QColor(int(a.red() * (1 - f) + b.red() * f), int(a.green() * (1 - f) + b.green() * f),
                int(a.blue() * (1 - f) + b.blue() * f));
}

struct SharedLayout {
  int groups = 1;
  int groupSize = 32;
  // (group, bank) -> distinct words, in address order, each with its lanes
  std::map<std::pair<int, int>, std::map<uint64_t, std::vector<int>>> words;
};

SharedLayout sharedLayout(const access::Request& r, const access::MemoryModel& m) {
  SharedLayout s;
  s.groupSize = m.halfWarpBanks ? m.warpSize / 2 : m.warpSize;
  s.groups = m.warpSize / s.groupSize;
  for (const auto& l : r.lanes) {
    const uint64_t word = l.address / uint64_t(m.bankBytes);
    const int bank = int(word % uint64_t(m.banks));
    s.words[{l.lane / s.groupSize, bank}][word].push_back(l.lane);
  }
  return s;
}

}  // namespace

AccessDiagram::AccessDiagram(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  setMinimumHeight(180);
}

void AccessDiagram::setRequest(const access::Request& request, const access::MemoryModel& memory,
                               int elementBytes) {
  request_ = request;
  memory_ = memory;
  elementBytes_ = elementBytes;
  update();
}

void AccessDiagram::clear() {
  request_.reset();
  update();
}

QVector<int> AccessDiagram::bankHeights() const {
  QVector<int> h(memory_.banks, 0);
  if (!request_ || request_->space != access::Space::Shared) return h;
  for (const auto& [key, words] : sharedLayout(*request_, memory_).words)
    h[key.second] = std::max(h[key.second], int(words.size()));
  return h;
}

int AccessDiagram::lineCount() const {
  if (!request_ || request_->space != access::Space::Global) return 0;
  std::set<uint64_t> lines;
  for (const auto& l : request_->lanes) lines.insert(l.address / uint64_t(memory_.lineBytes));
  return int(lines.size());
}

QVector<int> AccessDiagram::sectorUsedBytes() const {
  QVector<int> out;
  if (!request_ || request_->space != access::Space::Global) return out;
  std::map<uint64_t, std::set<uint64_t>> used;
  for (const auto& l : request_->lanes)
    for (int b = 0; b < elementBytes_; ++b) {
      const uint64_t a = l.address + uint64_t(b);
      used[a / uint64_t(memory_.sectorBytes)].insert(a);
    }
  for (const auto& [sector, bytes] : used) out.push_back(int(bytes.size()));
  return out;
}

void AccessDiagram::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setRenderHint(QPainter::Antialiasing, true);
  if (!request_ || request_->lanes.empty()) {
    p.setPen(palette().text().color());
    p.drawText(rect(), Qt::AlignCenter, tr("Select a request above"));
    return;
  }
  if (request_->space == access::Space::Global) paintGlobal(p);
  else paintShared(p);
}

void AccessDiagram::paintGlobal(QPainter& p) {
  const access::Request& r = *request_;
  const double margin = 8, W = width() - 2 * margin;
  const double laneW = W / memory_.warpSize;
  const double laneTop = 22, laneH = 18;
  QFont small = font();
  small.setPixelSize(10);
  p.setFont(small);
  p.setPen(palette().text().color());
  p.drawText(QRectF(margin, 2, W, 18), Qt::AlignLeft | Qt::AlignVCenter, tr("Lanes"));

  // Touched lines in address order; a gap wherever two touched lines are not adjacent.
  std::set<uint64_t> lines;
  for (const auto& l : r.lanes) lines.insert(l.address / uint64_t(memory_.lineBytes));
  const int sectorsPerLine = memory_.lineBytes / memory_.sectorBytes;
  int gaps = 0;
  for (auto it = lines.begin(); it != lines.end(); ++it)
    if (it != lines.begin() && *it != *std::prev(it) + 1) ++gaps;
  const double units = double(lines.size()) * sectorsPerLine + gaps * 0.6;
  const double cellW = std::min(40.0, W / units);
  const double memTop = std::min(height() - 70.0, laneTop + laneH + 120.0), memH = 26;
  const double memLeft = margin + (W - cellW * units) / 2;
  std::map<uint64_t, double> sectorX;  // sector index -> left edge
  double x = memLeft;
  uint64_t prev = 0;
  bool first = true;
  for (uint64_t line : lines) {
    if (!first && line != prev + 1) x += 0.6 * cellW;
    for (int s = 0; s < sectorsPerLine; ++s)
      sectorX[line * uint64_t(sectorsPerLine) + uint64_t(s)] = x + s * cellW;
    p.setPen(QPen(palette().text().color(), 1.2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(x, memTop - 3, cellW * sectorsPerLine, memH + 6));
    x += cellW * sectorsPerLine;
    prev = line;
    first = false;
  }
  // Bytes used per sector shade its cell: green when the warp uses all 32, red when few.
  std::map<uint64_t, int> used;
  for (const auto& l : r.lanes)
    for (int b = 0; b < elementBytes_; ++b)
      ++used[(l.address + uint64_t(b)) / uint64_t(memory_.sectorBytes)];
  for (const auto& [sector, left] : sectorX) {
    const auto it = used.find(sector);
    const double f = it == used.end() ? 0.0 : double(it->second) / memory_.sectorBytes;
    p.setPen(QPen(Qt::white, 1));
    p.setBrush(it == used.end() ? kIdle : mix(kBad, kGood, f));
    p.drawRect(QRectF(left + 1, memTop, cellW - 2, memH));
  }
  // Lanes and their wires to the sector they touch.
  for (const auto& l : r.lanes) {
    const QRectF box(margin + l.lane * laneW + 1, laneTop, laneW - 2, laneH);
    const uint64_t sector = l.address / uint64_t(memory_.sectorBytes);
    const double sx = sectorX[sector] + cellW / 2;
    p.setPen(QPen(QColor(90, 90, 90, 150), 1));
    p.drawLine(QPointF(box.center().x(), box.bottom()), QPointF(sx, memTop - 3));
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(31, 119, 180));
    p.drawRect(box);
    if (laneW >= 16) {
      p.setPen(Qt::white);
      p.drawText(box, Qt::AlignCenter, QString::number(l.lane));
    }
  }
  p.setPen(palette().text().color());
  p.drawText(QRectF(margin, memTop + memH + 6, W, 16), Qt::AlignLeft,
             tr("%1 line(s) of %2 B touched, %3 sector(s) of %4 B carry %5 useful bytes: "
                "%6 % efficiency (ideal: %7 line(s), %8 sector(s)).")
                 .arg(r.lines).arg(memory_.lineBytes).arg(r.sectors).arg(memory_.sectorBytes)
                 .arg(r.usefulBytes).arg(100.0 * r.efficiency, 0, 'f', 1)
                 .arg(r.idealLines).arg(r.idealSectors));
  p.drawText(QRectF(margin, memTop + memH + 22, W, 16), Qt::AlignLeft,
             tr("Cell shade: bytes of the sector the warp uses (green all %1, red few); grey: "
                "sectors of a touched line that this request does not need.")
                 .arg(memory_.sectorBytes));
}

void AccessDiagram::paintShared(QPainter& p) {
  const access::Request& r = *request_;
  const SharedLayout s = sharedLayout(r, memory_);
  const double margin = 8, W = width() - 2 * margin;
  const double colW = W / memory_.banks;
  const double top = 24, bottom = height() - 44;
  int maxH = 1;
  for (const auto& [key, words] : s.words) maxH = std::max(maxH, int(words.size()));
  const double boxH = std::min(20.0, (bottom - top) / maxH);
  QFont small = font();
  small.setPixelSize(10);
  p.setFont(small);
  // Bank headers.
  p.setPen(palette().text().color());
  for (int b = 0; b < memory_.banks; ++b)
    if (colW >= 14 || b % 4 == 0)
      p.drawText(QRectF(margin + b * colW, 4, colW, 16), Qt::AlignCenter, QString::number(b));
  // Each distinct word a bank must serve is one box; the stack height is the conflict degree.
  const double groupW = colW / s.groups;
  for (const auto& [key, words] : s.words) {
    const auto [group, bank] = key;
    const int n = int(words.size());
    const QColor c = n <= 1 ? kGood : mix(QColor(255, 170, 60), kBad, std::min(1.0, (n - 1) / 15.0));
    int k = 0;
    for (const auto& [word, lanes] : words) {
      const QRectF box(margin + bank * colW + group * groupW + 1, top + k * boxH, groupW - 2,
                       std::max(1.0, boxH - 1));
      p.setPen(Qt::NoPen);
      p.setBrush(c);
      p.drawRect(box);
      if (boxH >= 12 && groupW >= 14) {
        p.setPen(Qt::white);
        // The lane that asks for this word (and how many share it by broadcast).
        const QString label = lanes.size() > 1 ? QStringLiteral("%1+").arg(lanes.front())
                                               : QString::number(lanes.front());
        p.drawText(box, Qt::AlignCenter, label);
      }
      ++k;
    }
  }
  p.setPen(palette().text().color());
  // Words wider than a bank (doubles) take more than one pass without any conflict.
  int maxWords = 0;
  for (int w : r.bankWords) maxWords = std::max(maxWords, w);
  const QString what =
      r.conflictDegree <= 1
          ? (r.wavefronts <= s.groups
                 ? tr("Conflict-free: every bank serves at most one word, one pass (%1 "
                      "wavefront(s)).").arg(r.wavefronts)
                 : tr("Conflict-free: %1 wavefronts, the fewest for %2 bytes of %3-byte banks.")
                       .arg(r.wavefronts).arg(r.usefulBytes).arg(memory_.bankBytes))
          : tr("%1-way bank conflict: one bank serves up to %2 different words one after another "
               "(%3 wavefronts instead of %4).")
                .arg(r.conflictDegree).arg(maxWords).arg(r.wavefronts)
                .arg(r.idealWavefronts);
  p.drawText(QRectF(margin, bottom + 6, W, 16), Qt::AlignLeft, what);
  p.drawText(QRectF(margin, bottom + 22, W, 16), Qt::AlignLeft,
             tr("Columns: %1 banks of %2 B%3; a box is a distinct word, labelled with its lane.")
                 .arg(memory_.banks).arg(memory_.bankBytes)
                 .arg(memory_.halfWarpBanks ? tr(", left and right half of a column: the two half-warps")
                                            : QString()));
}

}  // namespace kernellab::widgets
