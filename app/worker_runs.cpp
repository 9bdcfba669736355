// SPDX-License-Identifier: MIT
// Runs and sweeps over worker processes.
#include "worker_runs.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPointer>
#include <QTimer>
#include <QtConcurrent>

#include "history_store.h"
#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/text.h"

namespace kernellab::app {
namespace {

using nlohmann::json;

constexpr qint64 kProgressIntervalMs = 40;

// The product of the axes' values, first axis outermost (runSweep's order).
std::vector<std::vector<std::pair<std::string, std::string>>> sweepPoints(const SweepAxes& axes) {
  std::vector<std::vector<std::pair<std::string, std::string>>> points{{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& p : points)
      for (const auto& value : axis.values) {
        auto q = p;
        q.emplace_back(axis.name, value);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

// Labels of a live k-means view index colors: a value outside -1..K-1 drops the picture.
bool labelsFit(const ClusteringOutput& c, int k) {
  for (int32_t l : c.labels)
    if (l < -1 || l >= k) return false;
  return true;
}

std::shared_ptr<RunResult> notRun(const RunRequest& request, const QString& why) {
  auto run = std::make_shared<RunResult>();
  run->request = request;
  run->ok = false;
  run->message = why.toStdString();
  run->createdAt = isoTimestampUtc();
  run->tool = toolVersion();
  return run;
}

}  // namespace

WorkerRuns::WorkerRuns(const QString& historyDir, QObject* parent)
    : QObject(parent), historyDir_(historyDir), ssh_(std::make_unique<SshSession>()) {
  qRegisterMetaType<WorkerHello>("kernellab::app::WorkerHello");
  qRegisterMetaType<WorkerEvent>("kernellab::app::WorkerEvent");
  decoderThread_.setObjectName(QStringLiteral("kernellab-decoder"));
  decoderThread_.start();
}

WorkerRuns::~WorkerRuns() {
  // Workers first: ending an SSH worker uses the session's connection.
  for (WorkerProcess* w : workers()) delete w;
  pool_.clear();
  active_.reset();
  decoderThread_.quit();
  decoderThread_.wait();
}

QList<WorkerProcess*> WorkerRuns::workers() const {
  QList<WorkerProcess*> out = pool_;
  if (active_)
    for (auto it = active_->busy.begin(); it != active_->busy.end(); ++it)
      if (!out.contains(it.key())) out << it.key();
  return out;
}

void WorkerRuns::setTargets(const TargetList& list) {
  targets_ = list;
  for (WorkerProcess* w : QList<WorkerProcess*>(pool_)) {
    const Target* now = targets_.find(w->target().name);
    if (!now || !(*now == w->target())) {
      pool_.removeAll(w);
      retire(w);
      infos_.remove(w->target().name);
    }
  }
}

void WorkerRuns::retire(WorkerProcess* w) {
  w->disconnect(this);
  w->kill();
  w->deleteLater();
}

WorkerProcess* WorkerRuns::takeWorker(const Slot& slot) {
  for (WorkerProcess* w : pool_)
    if (w->alive() && !w->busy() && w->gpu() == slot.gpu && w->target() == slot.target) {
      pool_.removeAll(w);
      return w;
    }
  auto* w = new WorkerProcess(slot.target, slot.gpu, ssh_.get(), &decoderThread_, this);
  connectWorker(w);
  w->start();
  return w;
}

void WorkerRuns::connectWorker(WorkerProcess* w) {
  connect(w, &WorkerProcess::helloReceived, this, [this, w] { onHello(w); });
  connect(w, &WorkerProcess::event, this, [this, w](const WorkerEvent& e) { onEvent(w, e); });
  connect(w, &WorkerProcess::idle, this, [this, w] { onIdle(w); });
  connect(w, &WorkerProcess::died, this, [this, w](const QString& m) { onDied(w, m); });
}

void WorkerRuns::probe(const QString& name) {
  const Target* t = targets_.find(name);
  if (!t) return;
  for (WorkerProcess* w : pool_)
    if (w->alive() && w->target() == *t && w->gpu() < 0) {
      if (w->greeted()) {
        infos_[name] = {true, false, QString(), w->hello()};
        emit probed(name);
      }
      return;  // a worker is starting there: its hello will answer
    }
  if (active_)
    for (auto it = active_->busy.begin(); it != active_->busy.end(); ++it)
      if (it.key()->target() == *t && it.key()->greeted()) {
        infos_[name] = {true, false, QString(), it.key()->hello()};
        emit probed(name);
        return;
      }
  infos_[name].probing = true;
  emit probed(name);
  pool_ << takeWorker({*t, -1});
}

void WorkerRuns::onHello(WorkerProcess* w) {
  if (w->gpu() < 0 || !infos_.value(w->target().name).ok) {
    infos_[w->target().name] = {true, false, QString(), w->hello()};
    emit probed(w->target().name);
  }
  if (active_ && active_->busy.contains(w)) dispatch(w);
}

void WorkerRuns::onIdle(WorkerProcess* w) {
  if (active_ && active_->busy.contains(w)) {
    active_->busy.remove(w);
    if (active_->next < static_cast<int>(active_->points.size())) {
      active_->busy.insert(w, -1);
      dispatch(w);
      return;
    }
  }
  if (!pool_.contains(w)) pool_ << w;
}

void WorkerRuns::onDied(WorkerProcess* w, const QString& message) {
  pool_.removeAll(w);
  if (!w->greeted()) {
    TargetInfo& info = infos_[w->target().name];
    if (!info.ok || info.probing) {
      info.ok = false;
      info.probing = false;
      info.error = message;
      emit probed(w->target().name);
    }
  }
  w->deleteLater();
  if (!active_ || !active_->busy.contains(w)) return;
  const int point = active_->busy.take(w);
  if (!active_->split) {
    const quint64 gen = active_->generation;
    endActive(true);
    emit failed(gen, message, false);
    return;
  }
  if (point >= 0) pointFailed(point, tr("not run: %1").arg(message));
  // A point nobody is left to take is not run either.
  if (active_ && active_->busy.isEmpty())
    while (active_ && active_->next < static_cast<int>(active_->points.size()))
      pointFailed(active_->next++,
                  tr("not run: every worker of the sweep ended (%1)").arg(message));
}

std::vector<SweepSlot> planSweepSlots(const TargetList& targets, const std::function<int(const QString&)>& gpus) {
  std::vector<SweepSlot> out;
  auto add = [&](const Target& t) {
    const int g = gpus(t.name);
    const int n = t.sweepWorkers > 0 ? t.sweepWorkers : std::max(1, g);
    for (int i = 0; i < n; ++i) out.push_back({t.name, g > 0 && (n > 1 || g > 1) ? i % g : -1});
  };
  const Target& current = targets.currentTarget();
  add(current);
  for (const Target& t : targets.all())
    if (t.name != current.name && t.shareSweeps && t.problem().isEmpty()) add(t);
  return out;
}

std::vector<WorkerRuns::Slot> WorkerRuns::slotsFor(bool sweep) const {
  if (!sweep) return {{targets_.currentTarget(), -1}};
  std::vector<Slot> lanes;
  for (const SweepSlot& s : planSweepSlots(targets_, [this](const QString& name) { return info(name).gpus(); }))
    lanes.push_back({*targets_.find(s.target), s.gpu});
  return lanes;
}

void WorkerRuns::run(quint64 generation, const RunRequest& request, const SweepAxes& axes) {
  if (active_) endActive(true);  // superseded: its workers end, its result is not wanted
  active_ = std::make_unique<Active>();
  Active& a = *active_;
  a.generation = generation;
  a.request = request;
  a.axes = axes;
  a.lanes = slotsFor(!axes.empty());
  a.split = !axes.empty() && a.lanes.size() > 1;
  a.progressClock.start();
  QStringList labels;
  for (const Slot& s : a.lanes)
    labels << (s.gpu >= 0 ? tr("%1 GPU %2").arg(s.target.name).arg(s.gpu) : s.target.name);
  lastSlots_ = labels.join(QStringLiteral(", "));
  // Live labels: ten a second here, four over a network.
  const int labelsMs = targets_.currentTarget().kind == Target::Kind::Ssh ? 250 : 100;
  if (!a.split) {
    Point p;
    p.job = {{"command", axes.empty() ? "run" : "sweep"}, {"live_labels_ms", labelsMs}};
    if (!axes.empty()) p.job["axes"] = axes;
    p.request = request;
    a.points.push_back(std::move(p));
  } else {
    for (const auto& values : sweepPoints(axes)) {
      Point p;
      std::vector<SweepAxis> one;
      for (const auto& [axis, value] : values) {
        one.push_back({axis, {value}});
        p.label += (p.label.isEmpty() ? QString() : QStringLiteral(", ")) +
                   QStringLiteral("%1=%2").arg(QString::fromStdString(axis),
                                               QString::fromStdString(value));
      }
      p.job = {{"command", "sweep"}, {"axes", one}, {"live_labels_ms", labelsMs}};
      p.request = request;
      a.points.push_back(std::move(p));
    }
    a.runs.resize(a.points.size());
  }
  stage();
}

void WorkerRuns::stage() {
  Active& a = *active_;
  RunRequest probe = a.request;
  const bool files = !requestFiles(probe).empty();
  QList<Target> remote;
  for (const Slot& s : a.lanes) {
    if (s.target.kind == Target::Kind::Ssh && files) {
      if (!remote.contains(s.target)) remote << s.target;
    } else {
      a.requests.insert(s.target.name, a.request);
    }
  }
  if (remote.isEmpty()) {
    a.staged = true;
    startSlots();
    return;
  }
  // Copy the user's files (once per content) off the GUI thread, then start.
  struct Job {
    QString target;
    QStringList sshBase;
  };
  QVector<Job> jobs;
  for (const Target& t : remote) jobs.push_back({t.name, ssh_->baseArguments(t)});
  emit progress(a.generation, tr("copying the input to %1").arg(remote.front().name), 0.0);
  const RunRequest request = a.request;
  const quint64 gen = a.generation;
  FileStager* stager = &stager_;
  auto* watcher = new QFutureWatcher<QVariantMap>(this);
  connect(watcher, &QFutureWatcher<QVariantMap>::finished, this, [this, watcher, gen] {
    const QVariantMap out = watcher->result();
    watcher->deleteLater();
    if (!active_ || active_->generation != gen) return;
    if (out.contains(QStringLiteral("error"))) {
      endActive(true);
      emit failed(gen, out.value(QStringLiteral("error")).toString(), false);
      return;
    }
    for (auto it = out.begin(); it != out.end(); ++it) {
      const QVariantMap m = it.value().toMap();
      RunRequest r = active_->request;
      for (std::string* path : requestFiles(r)) {
        const QString remotePath = m.value(QString::fromStdString(*path)).toString();
        active_->localPaths.insert(remotePath, QString::fromStdString(*path));
        *path = remotePath.toStdString();
      }
      active_->requests.insert(it.key(), r);
    }
    active_->staged = true;
    startSlots();
  });
  watcher->setFuture(QtConcurrent::run([stager, jobs, request] {
    QVariantMap out;
    for (const Job& j : jobs) {
      QVariantMap paths;
      RunRequest r = request;
      for (std::string* path : requestFiles(r)) {
        QString why;
        const QString local = QString::fromStdString(*path);
        const QString remotePath = stager->stage(j.target, j.sshBase, local, &why);
        if (remotePath.isEmpty())
          return QVariantMap{
              {QStringLiteral("error"), tr("Cannot run on %1: %2").arg(j.target, why)}};
        paths.insert(local, remotePath);
      }
      out.insert(j.target, paths);
    }
    return out;
  }));
}

void WorkerRuns::startSlots() {
  Active& a = *active_;
  const size_t n = std::min(a.lanes.size(), a.points.size());
  for (size_t i = 0; i < n; ++i) {
    WorkerProcess* w = takeWorker(a.lanes[i]);
    a.busy.insert(w, -1);
    if (w->greeted()) dispatch(w);
  }
}

void WorkerRuns::dispatch(WorkerProcess* w) {
  Active& a = *active_;
  if (!a.staged || a.busy.value(w, -1) >= 0) return;
  if (a.next >= static_cast<int>(a.points.size())) return;
  const int point = a.next++;
  Point& p = a.points[static_cast<size_t>(point)];
  json job = p.job;
  job["request"] = a.requests.value(w->target().name, a.request);
  a.busy[w] = point;
  if (!w->submit(nextJob_++, job)) {
    a.busy.remove(w);
    pointFailed(point, tr("not run: the worker on %1 could not take it").arg(w->slotLabel()));
    return;
  }
  a.fractions[point] = 0;
  a.stages[point] = tr("starting on %1").arg(w->slotLabel());
  reportProgress(true);
}

void WorkerRuns::reportProgress(bool force) {
  Active& a = *active_;
  if (!force && a.progressClock.elapsed() < kProgressIntervalMs) return;
  a.progressClock.restart();
  if (!a.split) {
    emit progress(a.generation, a.stages.value(0), a.fractions.value(0));
    return;
  }
  double sum = a.done;
  for (auto it = a.fractions.begin(); it != a.fractions.end(); ++it) sum += it.value();
  const int lead = a.fractions.isEmpty() ? -1 : a.fractions.firstKey();
  QString stage =
      tr("%1 of %2 points done on %3 workers").arg(a.done).arg(a.points.size()).arg(a.lanes.size());
  if (lead >= 0)
    stage += QStringLiteral(" · %1: %2")
                 .arg(a.points[static_cast<size_t>(lead)].label, a.stages.value(lead));
  emit progress(a.generation, stage, sum / static_cast<double>(a.points.size()));
}

void WorkerRuns::onEvent(WorkerProcess* w, const WorkerEvent& e) {
  if (!active_ || !active_->busy.contains(w)) return;
  Active& a = *active_;
  const int point = a.busy.value(w);
  if (point < 0) return;
  switch (e.kind) {
    case WorkerEvent::Kind::Progress:
      a.stages[point] = e.stage;
      a.fractions[point] = std::max(a.fractions.value(point), std::clamp(e.fraction, 0.0, 1.0));
      reportProgress(false);
      return;
    case WorkerEvent::Kind::Iteration: {
      // The live views follow one run: the first point still running.
      if (a.split && (a.fractions.isEmpty() || a.fractions.firstKey() != point)) return;
      LiveIteration it = e.iteration;
      it.generation = a.generation;
      if (it.current && !labelsFit(*it.current, a.request.section<ClusteringProblem>().k))
        it.current.reset();
      emit iteration(it);
      return;
    }
    case WorkerEvent::Kind::Result: {
      lastTransferMs_ = e.sentAtMs > 0 ? e.receivedAtMs - e.sentAtMs : -1;
      auto file = std::make_shared<ResultsFile>(*e.results);
      // The runs name the user's files, not the copies on the target.
      for (RunResult& run : file->runs)
        for (std::string* path : requestFiles(run.request))
          if (const auto it = a.localPaths.find(QString::fromStdString(*path));
              it != a.localPaths.end())
            *path = it.value().toStdString();
      if (!a.split) {
        a.single = file;
        a.done = 1;
        a.fractions.remove(point);
        complete();
        return;
      }
      if (file->runs.size() != 1) {
        pointFailed(point, tr("the worker on %1 answered %2 runs for one point")
                               .arg(w->slotLabel())
                               .arg(file->runs.size()));
        return;
      }
      pointDone(point, std::make_shared<const RunResult>(file->runs.front()));
      return;
    }
    case WorkerEvent::Kind::Error:
    case WorkerEvent::Kind::Cancelled: {
      const QString message = e.kind == WorkerEvent::Kind::Cancelled ? tr("cancelled") : e.message;
      if (!a.split) {
        const quint64 gen = a.generation;
        // The worker stays: it only refused this job.
        a.busy.remove(w);
        pool_ << w;
        endActive(true);
        if (e.kind == WorkerEvent::Kind::Cancelled)
          emit cancelled(gen);
        else
          emit failed(gen, message, e.inputError);
        return;
      }
      pointFailed(point, message);
      return;
    }
    default:
      return;
  }
}

void WorkerRuns::pointDone(int point, std::shared_ptr<const RunResult> run) {
  Active& a = *active_;
  a.runs[static_cast<size_t>(point)] = std::move(run);
  a.fractions.remove(point);
  a.stages.remove(point);
  for (auto it = a.busy.begin(); it != a.busy.end(); ++it)
    if (it.value() == point) it.value() = -1;
  ++a.done;
  reportProgress(true);
  if (a.done == static_cast<int>(a.points.size())) complete();
}

void WorkerRuns::pointFailed(int point, const QString& message) {
  const Point& p = active_->points[static_cast<size_t>(point)];
  RunRequest r = p.request;
  for (const auto& axis : p.job.value("axes", json::array())) try {
      r = applySweepValue(r, axis.at("axis").get<std::string>(),
                          axis.at("values").at(0).get<std::string>());
    } catch (const std::exception&) {
    }
  pointDone(point, notRun(r, message));
}

void WorkerRuns::complete() {
  Active& a = *active_;
  auto file = std::make_shared<ResultsFile>();
  if (a.single) {
    *file = *a.single;
  } else {
    file->sweep = a.axes;
    for (const auto& run : a.runs) file->runs.push_back(*run);
  }
  const quint64 gen = a.generation;
  endActive(false);
  // A million labels make a large file: written off the GUI thread, like RunController does.
  const QString dir = historyDir_;
  auto* watcher = new QFutureWatcher<QStringList>(this);
  connect(watcher, &QFutureWatcher<QStringList>::finished, this, [this, watcher, gen, file] {
    const QStringList out = watcher->result();
    watcher->deleteLater();
    emit finished(gen, file, out.value(0), out.value(1));
  });
  watcher->setFuture(QtConcurrent::run([dir, file] {
    QString error;
    const QString path = HistoryStore::writeRunFile(dir, *file, &error);
    return QStringList{path, error};
  }));
}

void WorkerRuns::endActive(bool killWorkers) {
  if (!active_) return;
  for (auto it = active_->busy.begin(); it != active_->busy.end(); ++it) {
    WorkerProcess* w = it.key();
    if (killWorkers && w->busy())
      retire(w);  // a job in progress: only the end of it stops it now
    else if (!pool_.contains(w))
      pool_ << w;
  }
  active_.reset();
}

void WorkerRuns::cancel(quint64 generation) {
  if (!active_ || active_->generation > generation) return;
  const quint64 gen = active_->generation;
  endActive(true);
  QTimer::singleShot(0, this, [this, gen] { emit cancelled(gen); });
}

}  // namespace kernellab::app
