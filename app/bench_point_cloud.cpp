// SPDX-License-Identifier: MIT
// kernellab-bench-cloud: frame time of the point cloud view with many points (full draw and the
// while-moving subset), e.g. under Mesa's llvmpipe: xvfb-run -a kernellab-bench-cloud --points 1000000
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QOpenGLContext>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernellab/clustering_request.h"
#include "point_cloud_view.h"
#include "point_source.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

struct FrameTimes {
  double render = 0;  // paintGL with glFinish: the drawing itself
  double frame = 0;   // update() to frameSwapped: drawing plus composition into the window
};

FrameTimes measure(kernellab::widgets::PointCloudView& view, int frames) {
  std::vector<double> render, frame;
  for (int i = 0; i < frames + 2; ++i) {
    QEventLoop loop;
    QObject::connect(&view, &QOpenGLWidget::frameSwapped, &loop, &QEventLoop::quit);
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    QElapsedTimer t;
    t.start();
    // A small orbit each frame, as a drag would do.
    view.setCamera(kernellab::widgets::cloud::orbit(view.camera(), 3.f, 0.f));
    loop.exec();
    if (i >= 2) {  // the first frames upload the buffers
      frame.push_back(t.nsecsElapsed() / 1e6);
      render.push_back(view.lastFrameMs());
    }
  }
  return {median(render), median(frame)};
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCommandLineParser p;
  p.addHelpOption();
  const QCommandLineOption points(QStringLiteral("points"), QStringLiteral("Number of points (default 1000000)."), QStringLiteral("n"), QStringLiteral("1000000"));
  const QCommandLineOption dims(QStringLiteral("d"), QStringLiteral("Dimensions (default 3; > 3 adds a PCA)."), QStringLiteral("d"), QStringLiteral("3"));
  const QCommandLineOption frames(QStringLiteral("frames"), QStringLiteral("Frames per measurement (default 20)."), QStringLiteral("n"), QStringLiteral("20"));
  const QCommandLineOption subset(QStringLiteral("subset"), QStringLiteral("Points drawn while moving (default: the view's)."), QStringLiteral("n"));
  p.addOptions({points, dims, frames, subset});
  p.process(app);

  kernellab::ClusteringProblem problem;
  problem.n = p.value(points).toLongLong();
  problem.d = p.value(dims).toInt();
  problem.k = 8;
  QElapsedTimer t;
  t.start();
  // Every point: this measures drawing, not the window's bounded sample.
  kernellab::app::SampleLimits all;
  all.maxPoints = all.maxValues = problem.n * problem.d;
  const auto data = kernellab::app::makeDatasetPoints(problem, 1, all);
  const double genMs = t.nsecsElapsed() / 1e6;
  t.restart();
  const auto geometry = kernellab::widgets::cloud::makeCloudGeometry(data.values, data.n, data.d, false);
  const double projMs = t.nsecsElapsed() / 1e6;

  kernellab::widgets::PointCloudView view;
  view.resize(1280, 800);
  view.setMeasureFrames(true);
  view.setCloud(geometry, true);
  view.setLabels(data.truth);
  if (p.isSet(subset)) view.setMovingSubset(p.value(subset).toLongLong());
  view.show();
  QElapsedTimer wait;
  wait.start();
  while (!view.glReady() && wait.elapsed() < 10000) QApplication::processEvents(QEventLoop::AllEvents, 50);
  if (!view.glReady()) {
    std::fprintf(stderr, "kernellab-bench-cloud: no OpenGL context (run under xvfb-run)\n");
    return 1;
  }
  const auto* ctx = QOpenGLContext::currentContext() ? QOpenGLContext::currentContext() : view.context();
  view.makeCurrent();
  const char* renderer = reinterpret_cast<const char*>(ctx->functions()->glGetString(GL_RENDERER));
  const char* version = reinterpret_cast<const char*>(ctx->functions()->glGetString(GL_VERSION));
  std::printf("renderer: %s\nGL version: %s\nviewport: %dx%d, point size %.0f px\n", renderer ? renderer : "?",
              version ? version : "?", view.width(), view.height(), view.effectivePointSize());
  view.doneCurrent();
  const int n = p.value(frames).toInt();
  const FrameTimes full = measure(view, n);
  const int64_t drawnFull = view.lastDrawnCount();
  view.setForceMoving(true);
  const FrameTimes moving = measure(view, n);
  const int64_t drawnMoving = view.lastDrawnCount();
  view.setMovingSubset(200000);
  const FrameTimes fixed = measure(view, n);
  t.restart();
  const int64_t picked = view.pickAt(QPoint(view.width() / 2, view.height() / 2));
  const double pickMs = t.nsecsElapsed() / 1e6;
  std::printf("points: %lld (D = %d); generate %.0f ms, projection + draw order %.0f ms\n",
              static_cast<long long>(data.n), data.d, genMs, projMs);
  std::printf("full draw:   %lld points, render %.1f ms, frame %.1f ms (median of %d)\n",
              static_cast<long long>(drawnFull), full.render, full.frame, n);
  std::printf("while moving (adaptive subset): %lld points, render %.1f ms, frame %.1f ms (median of %d)\n",
              static_cast<long long>(drawnMoving), moving.render, moving.frame, n);
  std::printf("while moving (fixed 200,000): render %.1f ms, frame %.1f ms (median of %d)\n", fixed.render,
              fixed.frame, n);
  std::printf("hover pick over all points: %.1f ms (found %lld)\n", pickMs, static_cast<long long>(picked));
  return 0;
}
