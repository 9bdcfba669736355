// SPDX-License-Identifier: MIT
// The matrix as a grid of tiles, each painted with the dispatch order of the block that moves it
// (schedule model). The current wave is drawn in full colour and outlined, with the memory
// partition its rows start in; earlier waves are faded, later ones nearly white.
#pragma once

#include <QWidget>
#include <vector>

#include "kernellab/schedule_model.h"

namespace kernellab::widgets {

class TileGridView : public QWidget {
  Q_OBJECT

 public:
  // Input: the tiles the blocks read (gridX x gridY). Output: the tiles they write, the
  // transposed grid (gridY x gridX), where partition camping happens.
  enum class Matrix { Input, Output };

  explicit TileGridView(QWidget* parent = nullptr);

  void setModel(const schedule::Model& model);
  void setWave(int wave);
  void setMatrix(Matrix matrix);

  int wave() const { return wave_; }
  Matrix matrix() const { return matrix_; }
  // Columns x rows of the displayed matrix's tile grid.
  QSize gridSize() const;
  // The block that moves the displayed tile (col, row), or -1.
  int blockAt(int col, int row) const;
  // The colour the tile is painted with in the current state, and where it is painted.
  QColor tileColor(int col, int row) const;
  QRectF tileRect(int col, int row) const;
  // The partition the displayed tile's first row starts in.
  int tilePartition(int col, int row) const;

  QSize sizeHint() const override { return {360, 360}; }
  QSize minimumSizeHint() const override { return {120, 120}; }

 signals:
  void tileHovered(int blockId);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  void rebuildIndex();
  QRectF gridRect() const;

  schedule::Model model_;
  std::vector<int> blockAt_;   // displayed tile -> block id
  int wave_ = 0;
  Matrix matrix_ = Matrix::Output;
};

}  // namespace kernellab::widgets
