// SPDX-License-Identifier: MIT
// Colour scales of the model views.
#include "model_colors.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace kernellab::widgets {

QColor orderColor(double t) {
  // Samples of the viridis map at 0, 1/6, ..., 1, interpolated linearly.
  static const std::array<std::array<int, 3>, 7> kStops = {{{68, 1, 84},
                                                           {68, 57, 131},
                                                           {49, 104, 142},
                                                           {33, 145, 140},
                                                           {53, 183, 121},
                                                           {143, 215, 68},
                                                           {253, 231, 37}}};
  t = std::clamp(t, 0.0, 1.0) * double(kStops.size() - 1);
  const size_t i = std::min(kStops.size() - 2, static_cast<size_t>(std::floor(t)));
  const double f = t - double(i);
  auto lerp = [&](int c) {
    return static_cast<int>(std::lround(kStops[i][size_t(c)] * (1 - f) + kStops[i + 1][size_t(c)] * f));
  };
  return QColor(lerp(0), lerp(1), lerp(2));
}

QColor tilePositionColor(int tileX, int tileY, int gridX, int gridY) {
  const double fx = gridX > 1 ? double(tileX) / double(gridX - 1) : 0.0;
  const double fy = gridY > 1 ? double(tileY) / double(gridY - 1) : 0.0;
  // Hue by row: under Cartesian order the resident blocks share a row (one hue at a time);
  // diagonal order mixes rows. Red .. magenta, not back to red.
  const int hue = static_cast<int>(std::lround(300.0 * fy));
  const int value = static_cast<int>(std::lround(250.0 - 110.0 * fx));
  return QColor::fromHsv(hue, 190, value);
}

QColor faded(const QColor& c, double amount) {
  amount = std::clamp(amount, 0.0, 1.0);
  auto mix = [&](int v) { return static_cast<int>(std::lround(v + (255 - v) * amount)); };
  return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

}  // namespace kernellab::widgets
