// SPDX-License-Identifier: MIT
// Colour scales of the model views: dispatch order (a perceptual ramp), tile position (2-D) and
// "how much": faded and highlighted variants of a colour.
#pragma once

#include <QColor>

namespace kernellab::widgets {

// 0 = first, 1 = last: dark blue through teal and green to yellow (viridis-like), readable in
// grey print and for common colour-vision deficiencies.
QColor orderColor(double t);

// A tile's position in its grid: hue follows the row, brightness the column.
QColor tilePositionColor(int tileX, int tileY, int gridX, int gridY);

// `c` mixed with white: 0 = unchanged, 1 = white.
QColor faded(const QColor& c, double amount);

}  // namespace kernellab::widgets
