// SPDX-License-Identifier: MIT
// The OpenGL point cloud. GLSL 1.20 / ES 1.00 shaders and client-side attribute setup keep it
// working on compatibility contexts everywhere, including Mesa's llvmpipe under Xvfb.
#include "point_cloud_view.h"

#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLShaderProgram>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "view_style.h"

namespace kernellab::widgets {
namespace {

#ifndef GL_PROGRAM_POINT_SIZE
#define GL_PROGRAM_POINT_SIZE 0x8642
#endif

constexpr int kPosLocation = 0;
constexpr int kColLocation = 1;
const QColor kBackground(250, 250, 250);
const QColor kUnlabelled(70, 110, 160);
const QColor kNoise(190, 190, 190);

const char* kVertexBody = R"(
attribute vec3 a_pos;
attribute vec4 a_col;
uniform mat4 u_mvp;
uniform float u_size;
varying vec4 v_col;
void main() {
  gl_Position = u_mvp * vec4(a_pos, 1.0);
  gl_PointSize = u_size;
  v_col = a_col;
}
)";

const char* kFragmentBody = R"(
varying vec4 v_col;
void main() { gl_FragColor = v_col; }
)";

uint32_t packColor(const QColor& c) {
  // Bytes in memory: r, g, b, a (little-endian packing).
  return uint32_t(c.red()) | (uint32_t(c.green()) << 8) | (uint32_t(c.blue()) << 16) | (255u << 24);
}

QColor labelColor(int32_t label) { return label < 0 ? kNoise : categoricalColor(label); }

}  // namespace

bool PointCloudView::openGlAvailable() {
  static const bool available = [] {
    if (qEnvironmentVariableIntValue("KERNELLAB_NO_OPENGL") != 0) return false;
    // These platforms draw widgets without OpenGL composition even when a context can be made
    // (offscreen under a DISPLAY can create GLX contexts, yet has no QOpenGLWidget support).
    const QString platform = QGuiApplication::platformName();
    for (const char* p : {"offscreen", "minimal", "vnc", "linuxfb"})
      if (platform == QLatin1String(p)) return false;
    QOpenGLContext context;
    if (!context.create()) return false;
    QOffscreenSurface surface;
    surface.create();
    const bool ok = context.makeCurrent(&surface);
    if (ok) context.doneCurrent();
    return ok;
  }();
  return available;
}

QImage PointCloudView::grabWithClouds(QWidget* widget) {
  QImage image = widget->grab().toImage();
  QPainter p(&image);
  for (PointCloudView* cloud : widget->findChildren<PointCloudView*>()) {
    if (!cloud->isVisibleTo(widget) || !cloud->glReady()) continue;
    const QImage frame = cloud->grabFramebuffer();
    if (frame.isNull()) continue;
    p.drawImage(QRectF(QPointF(cloud->mapTo(widget, QPoint(0, 0))), QSizeF(cloud->size())), frame);
  }
  return image;
}

PointCloudView::PointCloudView(QWidget* parent) : QOpenGLWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(240, 200);
  settle_.setSingleShot(true);
  settle_.setInterval(150);
  connect(&settle_, &QTimer::timeout, this, [this] {
    moving_ = false;
    update();
  });
  hoverTimer_.setSingleShot(true);
  hoverTimer_.setInterval(40);
  connect(&hoverTimer_, &QTimer::timeout, this, &PointCloudView::updateHover);
  // Frame cost per point, for the adaptive moving subset: from the start of paintGL to the
  // frame on screen (drawing and composition), smoothed.
  connect(this, &QOpenGLWidget::frameSwapped, this, [this] {
    if (!paintClock_.isValid() || lastDrawn_ < 1000) return;
    const double sample = paintClock_.nsecsElapsed() / 1e6 / double(lastDrawn_);
    msPerPoint_ = msPerPoint_ <= 0 ? sample : 0.7 * msPerPoint_ + 0.3 * sample;
    paintClock_.invalidate();
  });
}

PointCloudView::~PointCloudView() {
  // QOpenGLWidget's destructor destroys the context after this object's members are gone: the
  // aboutToBeDestroyed handler must not run then.
  disconnect(contextConnection_);
  if (program_ && context()) {
    makeCurrent();
    releaseGl();
    doneCurrent();
  }
}

void PointCloudView::releaseGl() {
  delete program_;
  program_ = nullptr;
  if (positions_.isCreated()) positions_.destroy();
  if (colors_.isCreated()) colors_.destroy();
  positionsDirty_ = colorsDirty_ = true;
}

void PointCloudView::setCloud(std::shared_ptr<const cloud::CloudGeometry> geometry, bool resetView) {
  const bool modeChanged = !geometry_ || !geometry || geometry_->twoD() != geometry->twoD();
  geometry_ = std::move(geometry);
  positionsDirty_ = colorsDirty_ = true;
  hovered_ = selected_ = -1;
  if (geometry_ && labels_.size() != static_cast<size_t>(geometry_->n)) labels_.clear();
  if (resetView || modeChanged) resetCamera();
  update();
}

void PointCloudView::setLabels(std::vector<int32_t> labels) {
  labels_ = std::move(labels);
  colorsDirty_ = true;
  update();
}

void PointCloudView::setCenters(std::vector<CloudCenter> centers) {
  centers_ = std::move(centers);
  update();
}

void PointCloudView::resetCamera() {
  camera_ = cloud::fitCamera(geometry_ ? geometry_->bounds : cloud::Bounds{},
                             geometry_ && geometry_->twoD());
  emit cameraChanged();
  update();
}

void PointCloudView::setCamera(const cloud::Camera& c) {
  camera_ = c;
  emit cameraChanged();
  update();
}

glm::mat4 PointCloudView::viewProjectionMatrix() const {
  return cloud::viewProjection(camera_, width(), height());
}

void PointCloudView::setPointSize(float px) {
  pointSize_ = px;
  update();
}

float PointCloudView::effectivePointSize() const {
  if (pointSize_ > 0) return pointSize_;
  const int64_t n = geometry_ ? geometry_->n : 0;
  if (n <= 5000) return 6.f;
  if (n <= 50000) return 4.f;
  if (n <= 300000) return 3.f;
  return 2.f;
}

void PointCloudView::setMovingSubset(int64_t count) {
  movingSubset_ = count <= 0 ? 0 : std::max<int64_t>(1000, count);
  update();
}

int64_t PointCloudView::movingDrawCount() const {
  constexpr double kFrameBudgetMs = 33.0;  // about 30 frames a second while dragging
  constexpr int64_t kFloor = 20000;         // fewer points than this no longer show the shape
  const int64_t n = uploaded_;
  if (movingSubset_ > 0) return std::min(n, movingSubset_);
  if (msPerPoint_ <= 0) return std::min<int64_t>(n, 200000);
  return std::min(n, std::max(kFloor, static_cast<int64_t>(kFrameBudgetMs / msPerPoint_)));
}

void PointCloudView::setForceMoving(bool on) {
  forceMoving_ = on;
  update();
}

void PointCloudView::initializeGL() {
  initializeOpenGLFunctions();
  releaseGl();
  const bool es = context()->isOpenGLES();
  const QByteArray vsrc = QByteArray(es ? "#version 100\n" : "#version 120\n") + kVertexBody;
  const QByteArray fsrc =
      QByteArray(es ? "#version 100\nprecision mediump float;\n" : "#version 120\n") + kFragmentBody;
  auto* program = new QOpenGLShaderProgram;
  program->addShaderFromSourceCode(QOpenGLShader::Vertex, vsrc);
  program->addShaderFromSourceCode(QOpenGLShader::Fragment, fsrc);
  program->bindAttributeLocation("a_pos", kPosLocation);
  program->bindAttributeLocation("a_col", kColLocation);
  if (!program->link()) {
    qWarning("point cloud: shader link failed: %s", qPrintable(program->log()));
    delete program;
    return;
  }
  program_ = program;
  positions_.create();
  colors_.create();
  positionsDirty_ = colorsDirty_ = true;
  // A context can be torn down without the widget (reparenting): free with it. A new context
  // means a new initializeGL, so drop the connection to the old one first.
  disconnect(contextConnection_);
  contextConnection_ = connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
    makeCurrent();
    releaseGl();
    doneCurrent();
  });
}

void PointCloudView::uploadPositions() {
  const int64_t n = geometry_ ? geometry_->n : 0;
  std::vector<float> ordered(static_cast<size_t>(n) * 3);
  for (int64_t j = 0; j < n; ++j) {
    const size_t i = geometry_->order[static_cast<size_t>(j)];
    std::copy_n(&geometry_->xyz[3 * i], 3, &ordered[3 * static_cast<size_t>(j)]);
  }
  positions_.bind();
  positions_.allocate(ordered.data(), static_cast<int>(ordered.size() * sizeof(float)));
  positions_.release();
  uploaded_ = n;
  positionsDirty_ = false;
}

void PointCloudView::uploadColors() {
  const int64_t n = geometry_ ? geometry_->n : 0;
  std::vector<uint32_t> packed(static_cast<size_t>(n));
  const bool labelled = labels_.size() == static_cast<size_t>(n);
  // Colours of the labels present, computed once; the table never grows past kPaletteSize,
  // whatever a label says (a results file's label of 2147483646 once sized it to 8.5 GB).
  constexpr int32_t kPaletteSize = 4096;
  std::vector<uint32_t> palette;
  if (labelled && n > 0) {
    const int32_t maxLabel = *std::max_element(labels_.begin(), labels_.end());
    palette.resize(
        static_cast<size_t>(std::clamp(maxLabel + int64_t(1), int64_t(0), int64_t(kPaletteSize))));
    for (size_t l = 0; l < palette.size(); ++l) palette[l] = packColor(labelColor(int32_t(l)));
  }
  const uint32_t plain = packColor(kUnlabelled), noise = packColor(kNoise);
  for (int64_t j = 0; j < n; ++j) {
    const size_t i = geometry_->order[static_cast<size_t>(j)];
    const int32_t label = labelled ? labels_[i] : -1;
    packed[static_cast<size_t>(j)] = !labelled   ? plain
                                     : label < 0 ? noise
                                     : static_cast<size_t>(label) < palette.size()
                                         ? palette[static_cast<size_t>(label)]
                                         : packColor(labelColor(label));
  }
  colors_.bind();
  colors_.allocate(packed.data(), static_cast<int>(packed.size() * sizeof(uint32_t)));
  colors_.release();
  colorsDirty_ = false;
}

void PointCloudView::paintGL() {
  QElapsedTimer timer;
  timer.start();
  paintClock_.start();
  glClearColor(kBackground.redF(), kBackground.greenF(), kBackground.blueF(), 1.f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  lastDrawn_ = 0;
  if (program_ && geometry_ && geometry_->n > 0) {
    if (positionsDirty_) uploadPositions();
    if (colorsDirty_) uploadColors();
    const int64_t count = isMoving() ? movingDrawCount() : uploaded_;
    const glm::mat4 mvp = viewProjectionMatrix();
    if (!camera_.twoD) glEnable(GL_DEPTH_TEST);
    if (!context()->isOpenGLES()) glEnable(GL_PROGRAM_POINT_SIZE);
    program_->bind();
    program_->setUniformValue("u_mvp", QMatrix4x4(&mvp[0][0]).transposed());
    program_->setUniformValue("u_size", float(effectivePointSize() * devicePixelRatioF()));
    positions_.bind();
    program_->enableAttributeArray(kPosLocation);
    program_->setAttributeBuffer(kPosLocation, GL_FLOAT, 0, 3);
    colors_.bind();
    program_->enableAttributeArray(kColLocation);
    program_->setAttributeBuffer(kColLocation, GL_UNSIGNED_BYTE, 0, 4);  // normalised by Qt
    glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(count));
    program_->disableAttributeArray(kPosLocation);
    program_->disableAttributeArray(kColLocation);
    colors_.release();
    program_->release();
    glDisable(GL_DEPTH_TEST);
    lastDrawn_ = count;
  }
  if (measure_) {
    glFinish();
    lastFrameMs_ = timer.nsecsElapsed() / 1e6;
  }
  paintOverlay();
}

void PointCloudView::paintOverlay() {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const glm::mat4 mvp = viewProjectionMatrix();
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  for (const CloudCenter& c : centers_) {
    const cloud::ScreenPoint s = cloud::projectToScreen(mvp, c.position, width(), height());
    if (!s.visible) continue;
    const QPointF at(s.x, s.y);
    p.setPen(QPen(Qt::white, 4));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(at, 7, 7);
    p.setPen(QPen(QColor(20, 20, 20), 2));
    p.setBrush(labelColor(c.label));
    p.drawEllipse(at, 7, 7);
    if (c.order >= 0) {
      // The order k-centers picked the centers in: white halo so the number reads on any colour.
      QPainterPath path;
      path.addText(at + QPointF(9, -8), bold, QString::number(c.order + 1));
      p.setPen(QPen(Qt::white, 3));
      p.drawPath(path);
      p.fillPath(path, QColor(20, 20, 20));
    }
  }
  for (int64_t idx : {selected_, hovered_}) {
    if (!geometry_ || idx < 0 || idx >= geometry_->n) continue;
    const auto& xyz = geometry_->xyz;
    const cloud::ScreenPoint s = cloud::projectToScreen(
        mvp, glm::vec3(xyz[3 * idx], xyz[3 * idx + 1], xyz[3 * idx + 2]), width(), height());
    if (!s.visible) continue;
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(Qt::white, 3));
    p.drawEllipse(QPointF(s.x, s.y), 6, 6);
    p.setPen(QPen(idx == selected_ ? QColor(200, 0, 0) : QColor(20, 20, 20), 1.5));
    p.drawEllipse(QPointF(s.x, s.y), 6, 6);
  }
  // Orientation: the three axes as the camera sees them (principal components after a PCA).
  if (geometry_ && geometry_->n > 0 && !camera_.twoD) {
    const glm::mat4 view = cloud::viewMatrix(camera_);
    const QPointF origin(34, height() - 34);
    const bool pca = !geometry_->projection.identity;
    const QColor colors[3] = {QColor(190, 40, 40), QColor(40, 140, 40), QColor(40, 70, 190)};
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    for (int axis = 0; axis < 3; ++axis) {
      glm::vec3 unit(0.f);
      unit[axis] = 1.f;
      const glm::vec3 d = glm::mat3(view) * unit;
      const QPointF end = origin + QPointF(d.x, -d.y) * 22.0;
      p.setPen(QPen(colors[axis], 2));
      p.drawLine(origin, end);
      const QString name = pca ? QStringLiteral("PC%1").arg(axis + 1) : QString(QChar('x' + axis));
      p.drawText(end + QPointF(d.x >= 0 ? 3 : -3 - p.fontMetrics().horizontalAdvance(name), d.y >= 0 ? -2 : 10), name);
    }
  }
  if (isMoving() && geometry_ && lastDrawn_ < geometry_->n) {
    p.setFont(font());
    p.setPen(QColor(90, 90, 90));
    p.drawText(rect().adjusted(8, 6, -8, -6), Qt::AlignRight | Qt::AlignBottom,
               tr("moving: drawing %L1 of %L2 points").arg(lastDrawn_).arg(geometry_->n));
  }
}

int64_t PointCloudView::pickAt(const QPoint& pos) const {
  if (!geometry_ || geometry_->n == 0) return -1;
  const float radius = std::max(4.f, effectivePointSize() + 2.f);
  return cloud::pickNearest(geometry_->xyz, viewProjectionMatrix(), width(), height(),
                            glm::vec2(pos.x(), pos.y()), radius);
}

void PointCloudView::startMoving() {
  moving_ = true;
  settle_.start();
}

void PointCloudView::mousePressEvent(QMouseEvent* e) {
  pressPos_ = lastPos_ = e->pos();
  dragButton_ = e->button();
  dragged_ = false;
}

void PointCloudView::mouseMoveEvent(QMouseEvent* e) {
  if (dragButton_ == Qt::NoButton) {
    hoverPos_ = e->pos();
    if (!hoverTimer_.isActive()) hoverTimer_.start();
    return;
  }
  const QPoint delta = e->pos() - lastPos_;
  lastPos_ = e->pos();
  if (!dragged_ && (e->pos() - pressPos_).manhattanLength() < 3) return;
  dragged_ = true;
  const bool panning = dragButton_ != Qt::LeftButton || (e->modifiers() & Qt::ShiftModifier) ||
                       camera_.twoD;
  camera_ = panning ? cloud::pan(camera_, delta.x(), delta.y(), height())
                    : cloud::orbit(camera_, delta.x(), delta.y());
  startMoving();
  emit cameraChanged();
  update();
}

void PointCloudView::mouseReleaseEvent(QMouseEvent* e) {
  if (!dragged_ && e->button() == Qt::LeftButton) {
    selected_ = pickAt(e->pos());
    emit clicked(selected_);
    update();
  }
  dragButton_ = Qt::NoButton;
  dragged_ = false;
}

void PointCloudView::mouseDoubleClickEvent(QMouseEvent*) { resetCamera(); }

void PointCloudView::wheelEvent(QWheelEvent* e) {
  camera_ = cloud::zoom(camera_, e->angleDelta().y() / 120.f);
  startMoving();
  emit cameraChanged();
  update();
  e->accept();
}

void PointCloudView::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_R || e->key() == Qt::Key_Home) {
    resetCamera();
    return;
  }
  QOpenGLWidget::keyPressEvent(e);
}

void PointCloudView::leaveEvent(QEvent* e) {
  hoverTimer_.stop();
  if (hovered_ != -1) {
    hovered_ = -1;
    emit hovered(-1);
    update();
  }
  QOpenGLWidget::leaveEvent(e);
}

void PointCloudView::updateHover() {
  if (isMoving()) return;
  const int64_t idx = pickAt(hoverPos_);
  if (idx == hovered_) return;
  hovered_ = idx;
  emit hovered(idx);
  update();
}

}  // namespace kernellab::widgets
