// SPDX-License-Identifier: MIT
// The KNN view (seed 002): the feature image (one component as grey, or three as false colour);
// click a pixel to see its search window and its nearest neighbours; the variants' time and
// occupancy side by side. Setters in, signals out; no CUDA.
#pragma once

#include <QLabel>
#include <QVector>
#include <QWidget>
#include <vector>

#include "kernellab/knn.h"
#include "kernellab/result.h"
#include "knn_image_canvas.h"
#include "knn_variant_charts.h"

class QComboBox;

namespace kernellab::widgets {

// Neighbour lists of every pixel, from one variant (or a reference).
struct KnnNeighbourSet {
  QString label;                // "shared-row-rect"
  bool rectangular = false;     // which window the lists were searched in
  int k = 0;
  std::vector<int32_t> indices;  // rows * cols * k, pixel-major, nearest first
  std::vector<float> squaredDistances;  // same layout; may be empty
};

class KnnView : public QWidget {
  Q_OBJECT
 public:
  explicit KnnView(QWidget* parent = nullptr);

  // The image and the search parameters (window rows, k) used to draw windows.
  void setImage(const kernellab::knn::Image& image);
  void setSearch(int window, int k);
  // Grey of one component, or red/green/blue from three components (false colour).
  void setGreyComponent(int component);
  void setFalseColour(int red, int green, int blue);
  // Lists of every pixel (from results that kept them); the combo box picks which set to draw.
  // Without sets, a click computes the pixel's neighbours with the CPU reference (one pixel).
  void setNeighbourSets(const QVector<KnnNeighbourSet>& sets);
  // Overrides the drawn neighbours of the selected pixel (e.g. lists fetched by the app).
  void setSelectedNeighbours(const std::vector<int32_t>& indices);
  void selectPixel(int row, int col);
  void setVariantBars(const QVector<KnnVariantBar>& bars, const QString& clock);

  // Everything at once from a KNN run and its image (kernellab::knn::imageFor(run.request)).
  void showRun(const kernellab::RunResult& run, const kernellab::knn::Image& image);
  static QVector<KnnVariantBar> barsFromResult(const kernellab::RunResult& run);

  KnnImageCanvas* canvas() const { return canvas_; }
  KnnVariantCharts* charts() const { return charts_; }
  int selectedRow() const { return row_; }
  int selectedCol() const { return col_; }

 signals:
  void pixelSelected(int row, int col);

 private:
  void rebuildPicture();
  void updateOverlay();
  void updateDisplayChoices();
  bool currentSetIsRect() const;

  KnnImageCanvas* canvas_;
  KnnVariantCharts* charts_;
  QComboBox* display_;
  QComboBox* setChoice_;
  QLabel* info_;
  kernellab::knn::Image image_;
  int window_ = 14;
  int k_ = 8;
  int grey_ = 0;
  int rgb_[3] = {-1, -1, -1};
  QVector<KnnNeighbourSet> sets_;
  std::vector<int32_t> override_;
  bool hasOverride_ = false;
  int row_ = -1;
  int col_ = -1;
};

}  // namespace kernellab::widgets
