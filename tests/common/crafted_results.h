// SPDX-License-Identifier: MIT
// Results files for the hostile-input tests (issue 16): a small valid k-means run to alter, the
// 125-byte file that crashed the window, FIFOs.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <string>

#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"
#include "kernellab/result.h"

#ifdef __unix__
#include <sys/stat.h>
#include <sys/types.h>
#endif

namespace kltest {

// The file of issue 16, item 1: 125 bytes, a sweep axis without values.
inline QByteArray emptySweepAxisFile() {
  return QByteArrayLiteral(
      "{\"schema_version\":1,\"kind\":\"kernellab-results\",\"sweep\":[{\"axis\":\"tpb\","
      "\"values\":[]}],"
      "\"runs\":[{\"request\":{\"family\":\"kmeans\"}}]}");
}

// A k-means run on the seed generator's points (N, K, D) with one variant, labels i % K and
// K x D centers: valid, and small enough to alter field by field.
inline kernellab::ResultsFile smallKMeans(int64_t n = 1000, int k = 4, int d = 3,
                                          bool labels = true) {
  kernellab::RunResult run;
  run.request.family = kernellab::clustering::kKMeans;
  run.request.section<kernellab::ClusteringProblem>().n = n;
  run.request.section<kernellab::ClusteringProblem>().k = k;
  run.request.section<kernellab::ClusteringProblem>().d = d;
  run.request.seed = 3;
  run.request.backend = kernellab::BackendChoice::Cpu;
  run.backend = "cpu";
  run.device.backend = "cpu";
  run.device.name = "crafted";
  run.tool = "tests";
  run.createdAt = "2026-01-01T00:00:00Z";
  kernellab::VariantResult v;
  v.variant = "shared-coalesced";
  kernellab::ClusteringOutput out;
  if (labels)
    for (int64_t i = 0; i < n; ++i) out.labels.push_back(static_cast<int32_t>(i % k));
  out.centers.assign(static_cast<size_t>(k) * d, 1.0f);
  out.iterations = 1;
  v.details.set(out);
  run.variants.push_back(v);
  kernellab::ResultsFile file;
  file.runs.push_back(run);
  return file;
}

inline bool writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(bytes) == bytes.size();
}

inline bool writeResults(const QString& path, const kernellab::ResultsFile& file) {
  kernellab::writeResultsFile(path.toStdString(), file);
  return QFile::exists(path);
}

// A named pipe nobody writes to: opening it for a blocking read would wait forever.
inline bool makeFifo(const QString& path) {
#ifdef __unix__
  QFile::remove(path);
  return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
#else
  (void)path;
  return false;
#endif
}

}  // namespace kltest
