// SPDX-License-Identifier: MIT
// The Clusters view around the point cloud.
#include "clusters_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedLayout>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <map>

#include "point_cloud_view.h"
#include "view_style.h"

namespace kernellab::widgets {
namespace {

QIcon swatch(const QColor& c) {
  QPixmap pm(14, 14);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(c.darker(140));
  p.setBrush(c);
  p.drawEllipse(QRectF(1, 1, 12, 12));
  return QIcon(pm);
}

QString coordinates(const float* v, int d, int shown = 8) {
  QStringList parts;
  for (int j = 0; j < std::min(d, shown); ++j) parts << QString::number(v[j], 'g', 6);
  QString s = parts.join(QStringLiteral(", "));
  if (d > shown) s += QObject::tr(", ... (%1 values)").arg(d);
  return s;
}

}  // namespace

std::vector<ClusterCount> countClusters(const std::vector<int32_t>& labels,
                                        const std::vector<int64_t>& centerOrder, int clusters) {
  std::map<int, int64_t> counts;
  if (!labels.empty())
    for (int c = 0; c < clusters; ++c) counts[c] = 0;
  for (int32_t l : labels) ++counts[l < 0 ? -1 : l];
  std::vector<ClusterCount> out;
  for (const auto& [label, n] : counts) {
    ClusterCount c;
    c.label = label;
    c.points = n;
    if (label >= 0 && label < static_cast<int>(centerOrder.size()))
      c.order = static_cast<int>(centerOrder[static_cast<size_t>(label)]);
    out.push_back(c);
  }
  return out;
}

ClustersView::ClustersView(QWidget* parent) : QWidget(parent) {
  stack_ = new QStackedLayout(this);
  stack_->setContentsMargins(0, 0, 0, 0);
  message_ = new QLabel(this);
  message_->setAlignment(Qt::AlignCenter);
  message_->setWordWrap(true);
  message_->setStyleSheet(QStringLiteral("color: #555; font-size: 11pt; padding: 32px;"));
  content_ = new QWidget(this);
  stack_->addWidget(content_);
  stack_->addWidget(message_);

  auto* layout = new QVBoxLayout(content_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(6, 4, 6, 0);
  mode3d_ = new QToolButton(content_);
  mode3d_->setText(tr("3D"));
  mode3d_->setCheckable(true);
  mode3d_->setChecked(true);
  mode3d_->setToolTip(tr("3D view: drag to orbit, right-drag or shift-drag to pan, wheel to zoom"));
  mode2d_ = new QToolButton(content_);
  mode2d_->setText(tr("2D"));
  mode2d_->setCheckable(true);
  mode2d_->setToolTip(tr("2D view: the first two principal components; drag to pan, wheel to zoom"));
  auto* reset = new QToolButton(content_);
  reset->setText(tr("Reset view"));
  reset->setToolTip(tr("Fit every point in view (R, Home or double-click)"));
  colorBy_ = new QComboBox(content_);
  colorBy_->setToolTip(tr("Which labels colour the points"));
  colorBy_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  pointSize_ = new QComboBox(content_);
  pointSize_->addItem(tr("Auto"), 0.0);
  for (int px : {1, 2, 3, 4, 6, 8}) pointSize_->addItem(tr("%1 px").arg(px), double(px));
  pointSize_->setToolTip(tr("Point size"));
  projection_ = new QLabel(content_);
  projection_->setStyleSheet(QStringLiteral("color: #555;"));
  bar->addWidget(mode3d_);
  bar->addWidget(mode2d_);
  bar->addWidget(reset);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("Colour by"), content_));
  bar->addWidget(colorBy_);
  bar->addWidget(new QLabel(tr("Point size"), content_));
  bar->addWidget(pointSize_);
  bar->addStretch(1);
  bar->addWidget(projection_);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Horizontal, content_);
  QWidget* drawing = nullptr;
  if (PointCloudView::openGlAvailable()) {
    cloud_ = new PointCloudView(split);
    drawing = cloud_;
  } else {
    auto* noGl = new QLabel(tr("No OpenGL on this display, so the point cloud is not drawn.\n"
                               "The legend, the cluster sizes and the other views work as usual.\n"
                               "(Any desktop session, or xvfb-run with Mesa, provides OpenGL.)"),
                            split);
    noGl->setAlignment(Qt::AlignCenter);
    noGl->setWordWrap(true);
    noGl->setStyleSheet(QStringLiteral("color: #555; background: #fafafa;"));
    drawing = noGl;
    mode3d_->setEnabled(false);
    mode2d_->setEnabled(false);
    pointSize_->setEnabled(false);
  }
  auto* side = new QWidget(split);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(4, 0, 4, 4);
  caption_ = new QLabel(side);
  caption_->setWordWrap(true);
  caption_->setStyleSheet(QStringLiteral("font-weight: bold;"));
  legend_ = new QTreeWidget(side);
  legend_->setRootIsDecorated(false);
  legend_->setHeaderLabels({tr("Cluster"), tr("Points"), tr("Share")});
  legend_->header()->setStretchLastSection(false);
  legend_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  legend_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  legend_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  legend_->setSelectionMode(QAbstractItemView::NoSelection);
  details_ = new QLabel(side);
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  details_->setMinimumHeight(110);
  details_->setStyleSheet(
      QStringLiteral("background: #f4f4f4; border: 1px solid #ddd; padding: 6px;"));
  sideLayout->addWidget(caption_);
  sideLayout->addWidget(legend_, 1);
  detailsTitle_ = new QLabel(tr("Point under the cursor (click to pin)"), side);
  sideLayout->addWidget(detailsTitle_);
  sideLayout->addWidget(details_);
  split->addWidget(drawing);
  split->addWidget(side);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  split->setSizes({900, 270});
  layout->addWidget(split, 1);
  split_ = split;

  connect(mode3d_, &QToolButton::clicked, this, [this] { setTwoD(false); });
  connect(mode2d_, &QToolButton::clicked, this, [this] { setTwoD(true); });
  connect(colorBy_, &QComboBox::currentIndexChanged, this, &ClustersView::colorChoiceChanged);
  if (cloud_) {
    connect(reset, &QToolButton::clicked, cloud_, &PointCloudView::resetCamera);
    connect(pointSize_, &QComboBox::currentIndexChanged, this,
            [this](int) { cloud_->setPointSize(float(pointSize_->currentData().toDouble())); });
    connect(cloud_, &PointCloudView::hovered, this, [this](qint64 i) { showDetails(i >= 0 ? i : pinned_); });
    connect(cloud_, &PointCloudView::clicked, this, [this](qint64 i) {
      pinned_ = i;
      showDetails(i);
    });
  } else {
    reset->setEnabled(false);
  }
  details_->setText(tr("Hover over a point to see its index, coordinates and cluster."));
  setMessage(tr("No point cloud yet."));
}

void ClustersView::setCloud(std::shared_ptr<const cloud::CloudGeometry> geometry, bool resetView) {
  pinned_ = -1;
  if (geometry) {
    const auto& p = geometry->projection;
    // A sample of a larger set says so: "200,000 of 10,000,000 points".
    const QString points = geometry->total > geometry->n
                               ? tr("%L1 of %L2 points").arg(geometry->n).arg(geometry->total)
                               : tr("%L1 points").arg(geometry->n);
    if (p.identity) {
      projection_->setText(
          geometry->d <= 3 ? tr("%1, D = %2: coordinates as they are").arg(points).arg(geometry->d)
                           : QString());
    } else {
      double share = 0;
      for (double e : p.explained) share += e;
      projection_->setText(tr("%1, D = %2: PCA to %3 components (%4 % of the variance)")
                               .arg(points)
                               .arg(geometry->d)
                               .arg(p.outputDims)
                               .arg(share * 100.0, 0, 'f', 1));
    }
    const QSignalBlocker b1(mode2d_), b2(mode3d_);
    mode2d_->setChecked(geometry->twoD());
    mode3d_->setChecked(!geometry->twoD());
  }
  geometry_ = geometry;
  labels_.clear();
  if (cloud_) cloud_->setCloud(std::move(geometry), resetView);
  stack_->setCurrentWidget(content_);
}

void ClustersView::setAssignment(std::vector<int32_t> labels, const std::vector<float>& centers,
                                 bool numbered, const QString& caption,
                                 const std::vector<int32_t>& allLabels) {
  centers_ = centers;
  numbered_ = numbered;
  const auto& g = geometry_;
  std::vector<CloudCenter> marks;
  if (g && g->d > 0 && centers.size() % static_cast<size_t>(g->d) == 0) {
    const int64_t k = static_cast<int64_t>(centers.size()) / g->d;
    const std::vector<float> xyz = cloud::applyProjection(g->projection, centers.data(), k);
    for (int64_t c = 0; c < k; ++c)
      marks.push_back({glm::vec3(xyz[3 * c], xyz[3 * c + 1], xyz[3 * c + 2]), int(c),
                       numbered ? int(c) : -1});
  }
  std::vector<int64_t> order;
  if (numbered)
    for (size_t c = 0; c < marks.size(); ++c) order.push_back(static_cast<int64_t>(c));
  counts_ = countClusters(allLabels.empty() ? labels : allLabels, order, static_cast<int>(marks.size()));
  labels_ = std::move(labels);
  if (cloud_) {
    cloud_->setLabels(labels_);
    cloud_->setCenters(std::move(marks));
  }
  caption_->setText(caption);
  fillLegend();
  showDetails(pinned_);
  // An assignment is shown on the cloud it colours: a message shown before (another family's
  // run, a preview too large) gives way even when the cloud itself did not change.
  if (geometry_) stack_->setCurrentWidget(content_);
}

void ClustersView::setMessage(const QString& text) {
  message_->setText(text);
  stack_->setCurrentWidget(message_);
}

void ClustersView::setColorChoices(const QStringList& choices, int current) {
  const QSignalBlocker block(colorBy_);
  colorBy_->clear();
  colorBy_->addItems(choices);
  colorBy_->setCurrentIndex(current);
  colorBy_->setEnabled(choices.size() > 1);
}

int ClustersView::colorChoice() const { return colorBy_->currentIndex(); }

bool ClustersView::twoD() const { return mode2d_->isChecked(); }

void ClustersView::setTwoD(bool on) {
  const bool changed = twoD() != on;
  const QSignalBlocker b1(mode2d_), b2(mode3d_);
  mode2d_->setChecked(on);
  mode3d_->setChecked(!on);
  if (changed) emit twoDChanged(on);
}

QImage ClustersView::reportPicture() {
  if (messageShown()) return {};
  detailsTitle_->hide();
  details_->hide();
  const QImage image = PointCloudView::grabWithClouds(split_);
  detailsTitle_->show();
  details_->show();
  return image;
}

bool ClustersView::messageShown() const { return stack_->currentWidget() == message_; }
QString ClustersView::messageText() const { return message_->text(); }

QString ClustersView::detailsText() const { return details_->text(); }
QString ClustersView::captionText() const { return caption_->text(); }

void ClustersView::fillLegend() {
  legend_->clear();
  int64_t total = 0;
  for (const auto& c : counts_) total += c.points;
  for (const auto& c : counts_) {
    auto* item = new QTreeWidgetItem(legend_);
    QString name = c.label < 0 ? tr("noise") : tr("Cluster %1").arg(c.label);
    if (c.order >= 0) name += tr("  (center #%1)").arg(c.order + 1);
    if (c.label >= 0 && c.points == 0) {
      name += tr("  (empty)");
      item->setToolTip(0, tr("No point is nearest to this center: the cluster is empty. Its center stays "
                             "where it was (k-means keeps an empty cluster's centroid)."));
      item->setForeground(0, QColor(138, 75, 0));
    }
    item->setIcon(0, swatch(c.label < 0 ? QColor(190, 190, 190) : categoricalColor(c.label)));
    item->setText(0, name);
    item->setText(1, QStringLiteral("%L1").arg(c.points));
    item->setText(2, total > 0 ? QString::number(100.0 * c.points / total, 'f', 1) + QStringLiteral(" %") : QString());
    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
  }
  legend_->setVisible(!counts_.empty());
}

void ClustersView::showDetails(qint64 index) {
  const auto& g = geometry_;
  if (!g || index < 0 || index >= g->n) {
    details_->setText(tr("Hover over a point to see its index, coordinates and cluster."));
    return;
  }
  const auto& labels = labels_;
  QString cluster = tr("not clustered");
  if (static_cast<size_t>(index) < labels.size())
    cluster = labels[static_cast<size_t>(index)] < 0 ? tr("noise")
                                                     : QString::number(labels[static_cast<size_t>(index)]);
  const float* v = g->values->data() + index * g->d;
  QString text = tr("<b>Point %L1</b>%2<br>Cluster: %3<br>Coordinates: (%4)")
                     .arg(g->dataSetIndex(index))
                     .arg(index == pinned_ ? tr(" (pinned)") : QString())
                     .arg(cluster, coordinates(v, g->d));
  if (!g->projection.identity) {
    const float* p = &g->xyz[3 * static_cast<size_t>(index)];
    text += tr("<br>Principal components: (%1)").arg(coordinates(p, g->projection.outputDims));
  }
  details_->setText(text);
}

}  // namespace kernellab::widgets
