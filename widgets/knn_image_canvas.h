// SPDX-License-Identifier: MIT
// The KNN image canvas: a feature image drawn pixel by pixel (nearest-neighbour scaling), with the
// selected pixel, its search window and its neighbours on top. Reports clicks as pixels.
#pragma once

#include <QImage>
#include <QVector>
#include <QWidget>

namespace kernellab::widgets {

// What is drawn over the image. Rows and columns are image pixels.
struct KnnOverlay {
  struct Span {  // one image row's part of the window, columns c0..c1 inclusive
    int row = 0;
    int c0 = 0;
    int c1 = -1;
  };
  int selectedRow = -1;          // -1: nothing selected
  int selectedCol = -1;
  QVector<Span> window;          // the selected pixel's search window
  QVector<QPoint> neighbours;    // (x = column, y = row) of each neighbour
};

class KnnImageCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit KnnImageCanvas(QWidget* parent = nullptr);

  // One texel per image pixel (rows x cols); drawn without smoothing.
  void setPicture(const QImage& picture);
  void setOverlay(const KnnOverlay& overlay);
  const KnnOverlay& overlay() const { return overlay_; }

  // Where image pixel (row, col) is drawn, in this widget's coordinates (empty without an image).
  QRectF pixelRect(int row, int col) const;

  static QColor neighbourColour() { return QColor(255, 0, 255); }   // opaque magenta
  static QColor selectedColour() { return QColor(0, 230, 255); }    // opaque cyan
  static QColor windowTint() { return QColor(255, 190, 0, 70); }    // translucent amber

  QSize sizeHint() const override { return {520, 520}; }
  QSize minimumSizeHint() const override { return {160, 160}; }

 signals:
  void pixelClicked(int row, int col);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  double scale() const;  // screen pixels per image pixel
  QRectF imageRect() const;
  QRectF markerRect(int row, int col) const;  // at least 5 x 5 screen pixels, centred on the pixel

  QImage picture_;
  KnnOverlay overlay_;
};

}  // namespace kernellab::widgets
