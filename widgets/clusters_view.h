// SPDX-License-Identifier: MIT
// The Clusters view: the point cloud with its toolbar (3D / 2D, reset, point size, colouring),
// the legend with cluster sizes, and the details of the point under the cursor.
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "point_cloud_math.h"

class QComboBox;
class QLabel;
class QStackedLayout;
class QToolButton;
class QTreeWidget;

namespace kernellab::widgets {

class PointCloudView;

// Cluster sizes by label (label -1 counted as noise), for the legend. With `clusters` > 0 every
// label 0..clusters-1 gets a row, so an empty cluster (a center no point is nearest to) is said
// rather than left out.
struct ClusterCount {
  int label = 0;
  int64_t points = 0;
  int order = -1;  // k-centers: the position in which its center was chosen
};
std::vector<ClusterCount> countClusters(const std::vector<int32_t>& labels,
                                        const std::vector<int64_t>& centerOrder = {},
                                        int clusters = 0);

class ClustersView : public QWidget {
  Q_OBJECT
 public:
  explicit ClustersView(QWidget* parent = nullptr);

  // The data set (already projected). `resetView` fits the camera.
  void setCloud(std::shared_ptr<const cloud::CloudGeometry> geometry, bool resetView);
  // Labels per point (or empty), centers K x D in the data's coordinates, and whether they are
  // numbered in the order chosen (k-centers). `caption` says what is shown. When the cloud is a
  // sample, `allLabels` (one per point of the whole set) gives the legend its true counts.
  void setAssignment(std::vector<int32_t> labels, const std::vector<float>& centers, bool numbered,
                     const QString& caption, const std::vector<int32_t>& allLabels = {});
  // Shown instead of the cloud (no clustering run, loading, errors) until the next
  // setCloud or setAssignment.
  void setMessage(const QString& text);
  bool messageShown() const;
  QString messageText() const;

  // The colouring choices ("k-means · shared-coalesced", "Generator clusters", ...).
  void setColorChoices(const QStringList& choices, int current);
  int colorChoice() const;

  bool twoD() const;
  void setTwoD(bool on);

  // The OpenGL view; null when this display has no OpenGL.
  PointCloudView* cloudView() const { return cloud_; }
  const std::shared_ptr<const cloud::CloudGeometry>& cloudGeometry() const { return geometry_; }
  const std::vector<int32_t>& labels() const { return labels_; }
  QTreeWidget* legend() const { return legend_; }
  QString detailsText() const;
  QString captionText() const;
  // The cloud with its caption and legend, for reports: no toolbar, no hover details.
  QImage reportPicture();

 signals:
  void twoDChanged(bool on);
  void colorChoiceChanged(int index);

 private:
  void showDetails(qint64 index);
  void fillLegend();

  PointCloudView* cloud_ = nullptr;
  QStackedLayout* stack_ = nullptr;
  QLabel* message_ = nullptr;
  QWidget* content_ = nullptr;
  QToolButton* mode3d_ = nullptr;
  QToolButton* mode2d_ = nullptr;
  QComboBox* colorBy_ = nullptr;
  QComboBox* pointSize_ = nullptr;
  QLabel* projection_ = nullptr;
  QLabel* caption_ = nullptr;
  QTreeWidget* legend_ = nullptr;
  QLabel* details_ = nullptr;
  QLabel* detailsTitle_ = nullptr;
  QWidget* split_ = nullptr;
  std::shared_ptr<const cloud::CloudGeometry> geometry_;
  std::vector<int32_t> labels_;
  std::vector<ClusterCount> counts_;
  std::vector<float> centers_;   // K x D as given
  bool numbered_ = false;
  qint64 pinned_ = -1;
};

}  // namespace kernellab::widgets
