// SPDX-License-Identifier: MIT
// Painting and hit-testing of the KNN image canvas.
#include "knn_image_canvas.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>

namespace kernellab::widgets {

KnnImageCanvas::KnnImageCanvas(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setCursor(Qt::CrossCursor);
  setToolTip(tr("Click a pixel to see its search window and its nearest neighbours"));
}

void KnnImageCanvas::setPicture(const QImage& picture) {
  picture_ = picture;
  update();
}

void KnnImageCanvas::setOverlay(const KnnOverlay& overlay) {
  overlay_ = overlay;
  update();
}

double KnnImageCanvas::scale() const {
  if (picture_.isNull()) return 0.0;
  return std::min(double(width()) / picture_.width(), double(height()) / picture_.height());
}

QRectF KnnImageCanvas::imageRect() const {
  const double s = scale();
  const double w = picture_.width() * s, h = picture_.height() * s;
  return {(width() - w) / 2.0, (height() - h) / 2.0, w, h};
}

QRectF KnnImageCanvas::pixelRect(int row, int col) const {
  if (picture_.isNull()) return {};
  const double s = scale();
  const QRectF r = imageRect();
  return {r.x() + col * s, r.y() + row * s, s, s};
}

QRectF KnnImageCanvas::markerRect(int row, int col) const {
  const QRectF cell = pixelRect(row, col);
  const double side = std::max(5.0, cell.width());
  return {cell.center().x() - side / 2, cell.center().y() - side / 2, side, side};
}

void KnnImageCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  if (picture_.isNull()) {
    p.drawText(rect(), Qt::AlignCenter, tr("No image"));
    return;
  }
  // Image pixels stay square blocks: no smoothing, so a pixel's colour is exact on screen.
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(imageRect(), picture_);

  // The window: translucent over the image, so the scene under it stays readable.
  const double s = scale();
  const QRectF img = imageRect();
  for (const auto& span : overlay_.window) {
    const QRectF r(img.x() + span.c0 * s, img.y() + span.row * s, (span.c1 - span.c0 + 1) * s, s);
    p.fillRect(r, windowTint());
  }
  if (!overlay_.window.isEmpty()) {
    // Outline of the whole window (its first and last rows may be partial): the union of spans.
    QPainterPath path;
    for (const auto& span : overlay_.window)
      path.addRect(QRectF(img.x() + span.c0 * s, img.y() + span.row * s,
                          (span.c1 - span.c0 + 1) * s, s));
    p.setPen(QPen(QColor(255, 160, 0), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path.simplified());
  }

  // Neighbours and the selected pixel: opaque, so their colour is exact at the pixel centre.
  // A black frame separates a neighbour from image regions of a similar colour (false colour).
  for (const QPoint& n : overlay_.neighbours) {
    const QRectF m = markerRect(n.y(), n.x());
    p.fillRect(m, neighbourColour());
    p.setPen(QPen(Qt::black, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(m.adjusted(-1, -1, 1, 1));
  }
  if (overlay_.selectedRow >= 0) {
    const QRectF m = markerRect(overlay_.selectedRow, overlay_.selectedCol);
    p.fillRect(m, selectedColour());
    p.setPen(QPen(Qt::black, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(m.adjusted(-1, -1, 1, 1));
  }
}

void KnnImageCanvas::mousePressEvent(QMouseEvent* event) {
  if (picture_.isNull() || event->button() != Qt::LeftButton) return;
  const QRectF img = imageRect();
  const QPointF pos = event->position();
  if (!img.contains(pos)) return;
  const double s = scale();
  const int col = std::clamp(int(std::floor((pos.x() - img.x()) / s)), 0, picture_.width() - 1);
  const int row = std::clamp(int(std::floor((pos.y() - img.y()) / s)), 0, picture_.height() - 1);
  emit pixelClicked(row, col);
}

}  // namespace kernellab::widgets
