// SPDX-License-Identifier: MIT
// Tile grid of the schedule model, painted as one image scaled without smoothing (so a 512x512
// grid costs the same as a 16x16 one), then the current wave's outlines and partition labels.
#include "tile_grid_view.h"

#include <QMouseEvent>
#include <QPainter>

#include "model_colors.h"

namespace kernellab::widgets {

TileGridView::TileGridView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void TileGridView::setModel(const schedule::Model& model) {
  model_ = model;
  rebuildIndex();
  wave_ = std::clamp(wave_, 0, std::max(0, int(model_.waves.size()) - 1));
  update();
}

void TileGridView::setWave(int wave) {
  wave_ = std::clamp(wave, 0, std::max(0, int(model_.waves.size()) - 1));
  update();
}

void TileGridView::setMatrix(Matrix matrix) {
  matrix_ = matrix;
  rebuildIndex();
  update();
}

QSize TileGridView::gridSize() const {
  const int gx = model_.config.gridX, gy = model_.config.gridY;
  if (model_.blocks.empty()) return {0, 0};
  return matrix_ == Matrix::Input ? QSize(gx, gy) : QSize(gy, gx);
}

void TileGridView::rebuildIndex() {
  const QSize g = gridSize();
  blockAt_.assign(size_t(g.width()) * size_t(g.height()), -1);
  for (const auto& b : model_.blocks) {
    // Output tile of input tile (x, y) is (y, x): column y, row x of the transposed grid.
    const int col = matrix_ == Matrix::Input ? b.tile.x : b.tile.y;
    const int row = matrix_ == Matrix::Input ? b.tile.y : b.tile.x;
    blockAt_[size_t(row) * size_t(g.width()) + size_t(col)] = b.blockId;
  }
}

int TileGridView::blockAt(int col, int row) const {
  const QSize g = gridSize();
  if (col < 0 || row < 0 || col >= g.width() || row >= g.height()) return -1;
  return blockAt_[size_t(row) * size_t(g.width()) + size_t(col)];
}

QColor TileGridView::tileColor(int col, int row) const {
  const int id = blockAt(col, row);
  if (id < 0) return Qt::white;
  const int n = int(model_.blocks.size());
  const QColor c = orderColor(n > 1 ? double(id) / double(n - 1) : 0.0);
  const int w = model_.blocks[size_t(id)].wave;
  if (w == wave_) return c;
  return faded(c, w < wave_ ? 0.55 : 0.85);
}

QRectF TileGridView::gridRect() const {
  const QSize g = gridSize();
  if (g.isEmpty()) return {};
  const double margin = 4;
  const double cell = std::min((width() - 2 * margin) / g.width(), (height() - 2 * margin) / g.height());
  const QSizeF size(cell * g.width(), cell * g.height());
  return QRectF(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
}

QRectF TileGridView::tileRect(int col, int row) const {
  const QRectF r = gridRect();
  const QSize g = gridSize();
  if (g.isEmpty()) return {};
  const double cw = r.width() / g.width(), ch = r.height() / g.height();
  return QRectF(r.left() + col * cw, r.top() + row * ch, cw, ch);
}

int TileGridView::tilePartition(int col, int row) const {
  const int id = blockAt(col, row);
  if (id < 0) return -1;
  const auto& b = model_.blocks[size_t(id)];
  const auto& c = model_.config;
  const uint64_t eb = uint64_t(c.elementBytes), t = uint64_t(c.tile);
  const uint64_t address =
      matrix_ == Matrix::Input
          ? (uint64_t(b.tile.y) * t * uint64_t(model_.width) + uint64_t(b.tile.x) * t) * eb
          : model_.outputBase + (uint64_t(b.tile.x) * t * uint64_t(model_.height) + uint64_t(b.tile.y) * t) * eb;
  return schedule::partitionOf(address, c.partitions);
}

void TileGridView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  const QSize g = gridSize();
  if (g.isEmpty()) {
    p.setPen(palette().text().color());
    p.drawText(rect(), Qt::AlignCenter, tr("No schedule"));
    return;
  }
  QImage img(g, QImage::Format_RGB32);
  for (int row = 0; row < g.height(); ++row)
    for (int col = 0; col < g.width(); ++col) img.setPixelColor(col, row, tileColor(col, row));
  const QRectF r = gridRect();
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(r, img);

  const double cell = r.width() / g.width();
  if (cell < 4 || model_.waves.empty()) return;
  // The current wave: outline its tiles and, when they are large enough, name the partition.
  const auto& w = model_.waves[size_t(wave_)];
  p.setRenderHint(QPainter::Antialiasing, true);
  QFont f = font();
  f.setPixelSize(std::max(7, int(cell * 0.36)));
  p.setFont(f);
  for (int id = w.firstBlock; id < w.firstBlock + w.blockCount; ++id) {
    const auto& b = model_.blocks[size_t(id)];
    const int col = matrix_ == Matrix::Input ? b.tile.x : b.tile.y;
    const int row = matrix_ == Matrix::Input ? b.tile.y : b.tile.x;
    const QRectF tr = tileRect(col, row).adjusted(0.5, 0.5, -0.5, -0.5);
    p.setPen(QPen(QColor(20, 20, 20), cell >= 10 ? 1.5 : 1.0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(tr);
    if (cell >= 18) {
      const QColor c = tileColor(col, row);
      p.setPen(c.lightness() > 140 ? QColor(20, 20, 20) : Qt::white);
      p.drawText(tr, Qt::AlignCenter, QString::number(tilePartition(col, row)));
    }
  }
}

void TileGridView::mouseMoveEvent(QMouseEvent* event) {
  const QRectF r = gridRect();
  const QSize g = gridSize();
  if (g.isEmpty() || !r.contains(event->position())) return;
  const int col = int((event->position().x() - r.left()) / (r.width() / g.width()));
  const int row = int((event->position().y() - r.top()) / (r.height() / g.height()));
  const int id = blockAt(col, row);
  if (id >= 0) {
    const auto& b = model_.blocks[size_t(id)];
    setToolTip(tr("block %1 = blockIdx (%2, %3)\ninput tile (%4, %5), output tile (%5, %4)\nwave %6, SM %7, partition %8")
                   .arg(b.blockId).arg(b.blockIdx.x).arg(b.blockIdx.y).arg(b.tile.x).arg(b.tile.y)
                   .arg(b.wave).arg(b.sm).arg(tilePartition(col, row)));
    emit tileHovered(id);
  }
}

}  // namespace kernellab::widgets
