// SPDX-License-Identifier: MIT
// OpenGL point cloud: points coloured by cluster, centers marked (numbered in the order k-centers
// chose them), orbit / pan / zoom / reset, hover and click picking. While the camera moves it
// draws a uniform random subset (a prefix of the shuffled vertex buffer); when it stops, all.
#pragma once

#include <QElapsedTimer>
#include <QOpenGLBuffer>
#include <QOpenGLFunctions>
#include <QOpenGLWidget>
#include <QPoint>
#include <QTimer>
#include <memory>
#include <vector>

#include "point_cloud_math.h"

class QOpenGLShaderProgram;

namespace kernellab::widgets {

struct CloudCenter {
  glm::vec3 position{0.f};  // projected with the cloud's Projection
  int label = 0;            // colour: the cluster it stands for
  int order = -1;           // k-centers: 0 = first chosen; -1 = not numbered
};

class PointCloudView : public QOpenGLWidget, protected QOpenGLFunctions {
  Q_OBJECT
 public:
  explicit PointCloudView(QWidget* parent = nullptr);
  ~PointCloudView() override;

  // Whether this display can give the view an OpenGL context (checked once). Without one, a
  // QOpenGLWidget must not even be created: Qt 6.4 crashes flushing its window on platforms
  // without OpenGL (offscreen). KERNELLAB_NO_OPENGL=1 forces "no".
  static bool openGlAvailable();

  // A picture of `widget` and everything in it. QWidget::grab leaves out what paintGL draws with
  // QPainter (center marks, numbers) in Qt 6.4, so point clouds inside are drawn over it from
  // their own framebuffers.
  static QImage grabWithClouds(QWidget* widget);

  // A new data set; `resetView` fits the camera to it (otherwise the camera stays, so live
  // updates and 2D/3D switches of the same data do not jump).
  void setCloud(std::shared_ptr<const cloud::CloudGeometry> geometry, bool resetView);
  const std::shared_ptr<const cloud::CloudGeometry>& cloudGeometry() const { return geometry_; }
  // One label per point in the data set's order (-1 = noise); empty draws every point alike.
  void setLabels(std::vector<int32_t> labels);
  const std::vector<int32_t>& labels() const { return labels_; }
  void setCenters(std::vector<CloudCenter> centers);

  void resetCamera();
  const cloud::Camera& camera() const { return camera_; }
  void setCamera(const cloud::Camera& c);
  // The matrix that maps a projected point to the widget (logical pixels, for tests).
  glm::mat4 viewProjectionMatrix() const;

  // Point size in logical pixels; 0 picks one from the number of points.
  void setPointSize(float px);
  float effectivePointSize() const;
  // Points drawn while the camera moves (a uniform sample). 0 (the default) adapts the count so
  // a frame takes about 33 ms, from the frame times measured so far: a GPU draws everything, a
  // software renderer (llvmpipe) a sample.
  void setMovingSubset(int64_t count);
  int64_t movingSubset() const { return movingSubset_; }
  int64_t movingDrawCount() const;
  double msPerPoint() const { return msPerPoint_; }
  bool isMoving() const { return moving_ || forceMoving_; }
  // Benchmarks: draw as if moving, and time each frame to completion (glFinish).
  void setForceMoving(bool on);
  void setMeasureFrames(bool on) { measure_ = on; }
  double lastFrameMs() const { return lastFrameMs_; }
  int64_t lastDrawnCount() const { return lastDrawn_; }
  bool glReady() const { return program_ != nullptr; }

  int64_t hoveredIndex() const { return hovered_; }
  int64_t selectedIndex() const { return selected_; }
  // Picks at a widget position now (what a hover or click at `pos` would find).
  int64_t pickAt(const QPoint& pos) const;

 signals:
  void hovered(qint64 index);   // -1 when the cursor leaves every point
  void clicked(qint64 index);   // -1 for a click on empty space
  void cameraChanged();

 protected:
  void initializeGL() override;
  void paintGL() override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void leaveEvent(QEvent* e) override;

 private:
  void uploadPositions();
  void uploadColors();
  void releaseGl();
  void startMoving();
  void paintOverlay();
  void updateHover();

  std::shared_ptr<const cloud::CloudGeometry> geometry_;
  std::vector<int32_t> labels_;
  std::vector<CloudCenter> centers_;
  cloud::Camera camera_;

  QOpenGLShaderProgram* program_ = nullptr;
  QMetaObject::Connection contextConnection_;
  QOpenGLBuffer positions_{QOpenGLBuffer::VertexBuffer};
  QOpenGLBuffer colors_{QOpenGLBuffer::VertexBuffer};
  bool positionsDirty_ = true;
  bool colorsDirty_ = true;
  int64_t uploaded_ = 0;

  float pointSize_ = 0.f;
  int64_t movingSubset_ = 0;
  double msPerPoint_ = 0;          // measured: paintGL start to frameSwapped, per point drawn
  QElapsedTimer paintClock_;
  bool moving_ = false;
  bool forceMoving_ = false;
  QTimer settle_;       // the camera counts as still this long after the last input
  QTimer hoverTimer_;   // picking is throttled: at most one brute-force pass per 40 ms
  QPoint pressPos_, lastPos_, hoverPos_;
  Qt::MouseButton dragButton_ = Qt::NoButton;
  bool dragged_ = false;
  int64_t hovered_ = -1;
  int64_t selected_ = -1;

  bool measure_ = false;
  double lastFrameMs_ = 0;
  int64_t lastDrawn_ = 0;
};

}  // namespace kernellab::widgets
