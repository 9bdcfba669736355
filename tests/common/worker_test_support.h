// SPDX-License-Identifier: MIT
// Helpers for the worker suites: run through a RunCoordinator and wait, long requests to cancel.
#pragma once

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include "app_types.h"
#include "kernellab/clustering_request.h"
#include "loopback_sshd.h"
#include "run_coordinator.h"
#include "window_test_support.h"
#include "worker_runs.h"

namespace kltest {

struct Outcome {
  QString kind;  // "stored", "failed", "cancelled", or "timeout"
  kernellab::app::ResultsPtr file;
  QString path;
  QString message;
  bool badInput = false;
  int iterations = 0;
  int liveLabels = 0;     // iterations that carried the labels
  size_t labelsSize = 0;  // of the last live labels
  QStringList stages;
  qint64 ms = 0;
};

// Starts a run and waits until it settles (or `timeoutMs`).
inline Outcome runAndWait(kernellab::app::RunCoordinator& c, const kernellab::RunRequest& r,
                          const kernellab::app::SweepAxes& axes = {}, int timeoutMs = 300000) {
  using namespace kernellab::app;
  Outcome o;
  QList<QMetaObject::Connection> links;
  links << QObject::connect(
      &c, &RunCoordinator::stored,
      [&](const ResultsPtr& f, const QString& p, bool current, const QString& err) {
        if (!current) return;
        o.kind = QStringLiteral("stored");
        o.file = f;
        o.path = p;
        o.message = err;
      });
  links << QObject::connect(&c, &RunCoordinator::failed, [&](const QString& m, bool bad) {
    o.kind = QStringLiteral("failed");
    o.message = m;
    o.badInput = bad;
  });
  links << QObject::connect(&c, &RunCoordinator::cancelled,
                            [&] { o.kind = QStringLiteral("cancelled"); });
  links << QObject::connect(&c, &RunCoordinator::iteration, [&](const LiveIteration& it) {
    ++o.iterations;
    if (it.current && !it.current->labels.empty()) {
      ++o.liveLabels;
      o.labelsSize = it.current->labels.size();
    }
  });
  links << QObject::connect(&c, &RunCoordinator::progress,
                            [&](const QString& s, double) { o.stages << s; });
  QElapsedTimer t;
  t.start();
  c.start(r, axes);
  while (o.kind.isEmpty() && t.elapsed() < timeoutMs) QTest::qWait(5);
  o.ms = t.elapsed();
  if (o.kind.isEmpty()) o.kind = QStringLiteral("timeout");
  for (const auto& l : links) QObject::disconnect(l);
  return o;
}

// Minutes of work on the CPU: only a cancel (or a kill) ends it in time.
inline kernellab::RunRequest longTranspose() {
  kernellab::RunRequest r = smallTranspose(2048);
  r.variants = {"naive"};
  r.repetitions = 100000;
  r.measureCeilings = false;
  return r;
}

inline kernellab::RunRequest smallKMeans(int64_t n = 20000) {
  kernellab::RunRequest r;
  r.family = kernellab::clustering::kKMeans;
  r.variants = {"shared-coalesced"};
  r.section<kernellab::ClusteringProblem>().n = n;
  r.section<kernellab::ClusteringProblem>().k = 8;
  r.section<kernellab::ClusteringProblem>().d = 2;
  r.section<kernellab::ClusteringProblem>().maxIterations = 12;
  r.repetitions = 1;
  r.warmup = 0;
  r.backend = kernellab::BackendChoice::Cpu;
  return r;
}

// Waits until the coordinator reports a stage starting with "running" (a variant is timing).
inline bool waitUntilRunning(kernellab::app::RunCoordinator& c, int timeoutMs = 120000) {
  bool running = false;
  auto link = QObject::connect(&c, &kernellab::app::RunCoordinator::progress,
                               [&](const QString& s, double) {
                                 if (s.contains(QLatin1String("running"))) running = true;
                               });
  QElapsedTimer t;
  t.start();
  while (!running && t.elapsed() < timeoutMs) QTest::qWait(5);
  QObject::disconnect(link);
  return running;
}

// The pids of the workers busy with a job (the worker's own pid, from its hello).
inline QList<qint64> busyWorkerPids(kernellab::app::RunCoordinator& c) {
  QList<qint64> out;
  for (auto* w : c.workers()->workers())
    if (w->busy() && w->hello().pid > 0) out << w->hello().pid;
  return out;
}

// Milliseconds until every pid is gone, or -1 after `limitMs`.
inline qint64 msUntilGone(const QList<qint64>& pids, int limitMs = 5000) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < limitMs) {
    bool all = true;
    for (qint64 p : pids) all = all && processGone(p);
    if (all) return t.elapsed();
    QTest::qWait(5);
  }
  return -1;
}

}  // namespace kltest
