// SPDX-License-Identifier: MIT
// The KNN view: image display modes, the selected pixel's window and neighbours, variant charts.
#include "knn_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "kernellab/errors.h"
#include "kernellab/knn.h"

namespace kernellab::widgets {

namespace kk = kernellab::knn;

namespace {

// Entries of the "neighbours from" box after the result's sets: computed on click for one pixel.
constexpr int kReferencePerPixel = -1;
constexpr int kReferenceRect = -2;

// Maps one component plane to 0..255 over its own range.
std::vector<uint8_t> normalised(const kk::Image& img, int c) {
  const int64_t n = img.pixels();
  const float* plane = img.planes.data() + c * n;
  const auto [lo, hi] = std::minmax_element(plane, plane + n);
  const float range = *hi - *lo;
  std::vector<uint8_t> out(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p)
    out[static_cast<size_t>(p)] =
        range > 0 ? static_cast<uint8_t>(std::lround(255.0f * (plane[p] - *lo) / range)) : 128;
  return out;
}

}  // namespace

KnnView::KnnView(QWidget* parent)
    : QWidget(parent),
      canvas_(new KnnImageCanvas(this)),
      charts_(new KnnVariantCharts(this)),
      display_(new QComboBox(this)),
      setChoice_(new QComboBox(this)),
      info_(new QLabel(this)) {
  // The choices arrive with the image, after the view is first shown: keep the boxes as wide as
  // their texts.
  display_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  setChoice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Show:"), this));
  bar->addWidget(display_);
  bar->addSpacing(16);
  bar->addWidget(new QLabel(tr("Neighbours from:"), this));
  bar->addWidget(setChoice_);
  bar->addStretch(1);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(canvas_);
  split->addWidget(charts_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);

  info_->setWordWrap(true);
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  info_->setText(tr("Click a pixel: its search window is tinted amber, the pixel is cyan and its "
                    "nearest neighbours in feature space are magenta."));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  layout->addWidget(info_);

  connect(canvas_, &KnnImageCanvas::pixelClicked, this, [this](int row, int col) {
    selectPixel(row, col);
    emit pixelSelected(row, col);
  });
  connect(display_, qOverload<int>(&QComboBox::activated), this, [this](int) {
    const int c = display_->currentData().toInt();
    if (c >= 0) setGreyComponent(c);
    else setFalseColour(0, 1, 2);
  });
  connect(setChoice_, qOverload<int>(&QComboBox::activated), this, [this](int) {
    hasOverride_ = false;
    updateOverlay();
  });
  setNeighbourSets({});
}

void KnnView::setImage(const kk::Image& image) {
  image_ = image;
  grey_ = 0;
  rgb_[0] = rgb_[1] = rgb_[2] = -1;
  row_ = col_ = -1;
  hasOverride_ = false;
  updateDisplayChoices();
  rebuildPicture();
  updateOverlay();
}

void KnnView::setSearch(int window, int k) {
  window_ = window;
  k_ = k;
  updateOverlay();
}

void KnnView::setGreyComponent(int component) {
  if (component < 0 || component >= image_.components) return;
  grey_ = component;
  rgb_[0] = rgb_[1] = rgb_[2] = -1;
  display_->setCurrentIndex(display_->findData(component));
  rebuildPicture();
}

void KnnView::setFalseColour(int red, int green, int blue) {
  for (int c : {red, green, blue})
    if (c < 0 || c >= image_.components) return;
  rgb_[0] = red;
  rgb_[1] = green;
  rgb_[2] = blue;
  display_->setCurrentIndex(display_->findData(-1));
  rebuildPicture();
}

void KnnView::setNeighbourSets(const QVector<KnnNeighbourSet>& sets) {
  sets_ = sets;
  setChoice_->clear();
  for (int i = 0; i < sets_.size(); ++i) setChoice_->addItem(sets_[i].label, i);
  setChoice_->addItem(tr("CPU reference, per-pixel window"), kReferencePerPixel);
  setChoice_->addItem(tr("CPU reference, rectangular window"), kReferenceRect);
  setChoice_->setCurrentIndex(0);
  updateOverlay();
}

void KnnView::setSelectedNeighbours(const std::vector<int32_t>& indices) {
  override_ = indices;
  hasOverride_ = true;
  updateOverlay();
}

void KnnView::selectPixel(int row, int col) {
  if (row < 0 || col < 0 || row >= image_.rows || col >= image_.cols) return;
  row_ = row;
  col_ = col;
  hasOverride_ = false;
  updateOverlay();
}

void KnnView::setVariantBars(const QVector<KnnVariantBar>& bars, const QString& clock) {
  charts_->setBars(bars, clock);
}

void KnnView::updateDisplayChoices() {
  display_->clear();
  for (int c = 0; c < image_.components; ++c)
    display_->addItem(tr("Component %1 (grey)").arg(c), c);
  if (image_.components >= 3) display_->addItem(tr("False colour (components 0, 1, 2)"), -1);
}

void KnnView::rebuildPicture() {
  if (image_.pixels() == 0) {
    canvas_->setPicture({});
    return;
  }
  QImage pic(image_.cols, image_.rows, QImage::Format_RGB32);
  const bool colour = rgb_[0] >= 0;
  const std::vector<uint8_t> a = normalised(image_, colour ? rgb_[0] : grey_);
  const std::vector<uint8_t> g = colour ? normalised(image_, rgb_[1]) : a;
  const std::vector<uint8_t> b = colour ? normalised(image_, rgb_[2]) : a;
  for (int r = 0; r < image_.rows; ++r) {
    auto* line = reinterpret_cast<QRgb*>(pic.scanLine(r));
    for (int c = 0; c < image_.cols; ++c) {
      const size_t p = static_cast<size_t>(r) * image_.cols + c;
      line[c] = qRgb(a[p], g[p], b[p]);
    }
  }
  canvas_->setPicture(pic);
}

bool KnnView::currentSetIsRect() const {
  const int choice = setChoice_->currentData().toInt();
  if (choice >= 0 && choice < sets_.size()) return sets_[choice].rectangular;
  return choice == kReferenceRect;
}

void KnnView::updateOverlay() {
  KnnOverlay o;
  if (row_ < 0 || image_.pixels() == 0) {
    canvas_->setOverlay(o);
    return;
  }
  const int64_t p = static_cast<int64_t>(row_) * image_.cols + col_;
  kk::Geometry g;
  try {
    g = kk::windowGeometry({image_.rows, image_.cols, image_.components}, window_, k_);
  } catch (const InputError& e) {
    info_->setText(QString::fromStdString(e.what()));
    canvas_->setOverlay(o);
    return;
  }
  o.selectedRow = row_;
  o.selectedCol = col_;
  const bool rect = currentSetIsRect();
  int64_t lo, hi;
  if (rect) {
    const kk::RowSpan rs = kk::rectWindow(g, row_);
    lo = static_cast<int64_t>(rs.lo) * g.cols;
    hi = static_cast<int64_t>(rs.hi + 1) * g.cols - 1;
  } else {
    const kk::PixelRange pr = kk::pixelWindow(g, p);
    lo = pr.lo;
    hi = pr.hi;
  }
  for (int64_t r = lo / g.cols; r <= hi / g.cols; ++r) {
    const int64_t first = std::max(lo, r * g.cols), last = std::min(hi, (r + 1) * g.cols - 1);
    o.window.push_back({static_cast<int>(r), static_cast<int>(first - r * g.cols),
                        static_cast<int>(last - r * g.cols)});
  }

  // The neighbours: an override from the app, a set of lists, or the CPU reference for this pixel.
  std::vector<int32_t> neighbours;
  std::vector<float> distances;
  QString source;
  const int choice = setChoice_->currentData().toInt();
  if (hasOverride_) {
    neighbours = override_;
    source = tr("given by the application");
  } else if (choice >= 0 && choice < sets_.size()) {
    const KnnNeighbourSet& s = sets_[choice];
    const size_t base = static_cast<size_t>(p) * s.k;
    if (base + s.k <= s.indices.size())
      neighbours.assign(s.indices.begin() + base, s.indices.begin() + base + s.k);
    if (base + s.k <= s.squaredDistances.size())
      distances.assign(s.squaredDistances.begin() + base, s.squaredDistances.begin() + base + s.k);
    source = s.label;
  } else {
    for (const auto& n : kk::referenceNeighbours(image_, g, rect ? kk::WindowShape::Rectangular
                                                                 : kk::WindowShape::PerPixel, p)) {
      neighbours.push_back(n.index);
      distances.push_back(n.squaredDistance);
    }
    source = rect ? tr("CPU reference, rectangular window") : tr("CPU reference, per-pixel window");
  }
  QStringList items;
  for (size_t j = 0; j < neighbours.size(); ++j) {
    const int32_t q = neighbours[j];
    if (q < 0 || q >= g.pixels) continue;
    o.neighbours.push_back(QPoint(static_cast<int>(q % g.cols), static_cast<int>(q / g.cols)));
    QString item = QStringLiteral("(%1, %2)").arg(q / g.cols).arg(q % g.cols);
    if (j < distances.size()) item += QStringLiteral(" d=%1").arg(std::sqrt(double(distances[j])), 0, 'g', 4);
    items << item;
  }
  canvas_->setOverlay(o);
  info_->setText(
      tr("Pixel (%1, %2): %3 window of %4 candidates, pixels %5..%6 (rows %7..%8). "
         "Nearest %9 (%10): %11")
          .arg(row_)
          .arg(col_)
          .arg(rect ? tr("rectangular") : tr("per-pixel"))
          .arg(kk::candidatesPerPixel(g, rect ? kk::WindowShape::Rectangular
                                              : kk::WindowShape::PerPixel))
          .arg(lo)
          .arg(hi)
          .arg(lo / g.cols)
          .arg(hi / g.cols)
          .arg(items.size())
          .arg(source, items.join(QStringLiteral(", "))));
}

QVector<KnnVariantBar> KnnView::barsFromResult(const RunResult& run) {
  QVector<KnnVariantBar> bars;
  for (const auto& v : run.variants) {
    KnnVariantBar b;
    b.id = QString::fromStdString(v.variant);
    const auto variant = kk::variantFromString(v.variant);
    b.title = variant ? QString::fromUtf8(kk::info(*variant).title) : b.id;
    b.ran = v.ok;
    b.note = QString::fromStdString(v.error);
    b.medianMs = v.total.medianMs;
    b.minMs = v.total.minMs;
    b.maxMs = v.total.maxMs;
    b.verified = !v.verification.performed || v.verification.passed;
    if (v.detail<KnnDetails>()) b.sharedBytes = double(v.detail<KnnDetails>()->sharedBytesPerBlock);
    if (!v.kernels.empty() && v.kernels.front().resources) {
      b.blocksPerSM = v.kernels.front().resources->maxActiveBlocksPerSM;
      b.registers = v.kernels.front().resources->registersPerThread;
    }
    bars.push_back(b);
  }
  return bars;
}

void KnnView::showRun(const RunResult& run, const kk::Image& image) {
  setImage(image);
  setSearch(run.request.section<KnnProblem>().window, run.request.section<KnnProblem>().k);
  QVector<KnnNeighbourSet> sets;
  QString clock;
  for (const auto& v : run.variants) {
    if (clock.isEmpty() && v.total.samples > 0) clock = QString::fromStdString(v.total.clock);
    if (!v.detail<KnnDetails>() || v.detail<KnnDetails>()->indices.empty()) continue;
    KnnNeighbourSet s;
    s.label = QString::fromStdString(v.variant);
    s.rectangular = v.detail<KnnDetails>()->window == "rectangular";
    s.k = v.detail<KnnDetails>()->k;
    s.indices = v.detail<KnnDetails>()->indices;
    s.squaredDistances = v.detail<KnnDetails>()->squaredDistances;
    sets.push_back(std::move(s));
  }
  setNeighbourSets(sets);
  setVariantBars(barsFromResult(run), clock);
}

}  // namespace kernellab::widgets
