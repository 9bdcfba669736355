// SPDX-License-Identifier: MIT
// A results file is data, never a command: the window reads it without blocking on what is not
// a regular file, checks every number it will index or size anything by, and refuses a file
// that fails before it reaches the history or a view.
//
// Until gpu/'s validating results reader (issue 16, "hardening") lands, the checks live here in
// one function, validateResults(); readResultsForWindow() is the single place that should then
// call the gpu/ reader instead of parseResultsFile() + validateResults().
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <functional>
#include <string>

#include "app_types.h"

namespace kernellab::app {

// Limits of what the window accepts from a file (names used in the messages).
struct ResultsLimits {
  static constexpr int64_t kMaxRuns = 100000;
  static constexpr int64_t kMaxPoints = 2147483647;   // point indices are 32-bit
  static constexpr int kMaxClusters = 1 << 20;        // K
  static constexpr int kMaxDimensions = 1 << 20;      // D
  static constexpr int64_t kMaxMatrixSide = 1 << 24;  // transpose width, height
  static constexpr int kMaxKnnNeighbours = 4096;      // knn k
  static constexpr int kMaxKnnComponents = 4096;
  static constexpr int kMaxSmId = 1 << 16;             // %smid of a block record
  static constexpr int kMaxThreadsPerBlock = 1 << 16;  // device and launch records
  static constexpr int kMaxSms = 1 << 16;
  static constexpr int64_t kMaxSharedBytes = 1 << 26;  // per block or per SM
  static constexpr int64_t kMaxRegisters = 1 << 24;    // per SM or per block
};

// Every index and size the window uses, checked: sweep axes non-empty and making the runs,
// labels in -1..K-1 (-1: noise), center indices and chosen points in 0..N-1, neighbour indices
// inside the image, array lengths matching the request (N labels, K x D centers, rows x cols x k
// neighbours), block records on a plausible SM with end >= start, device and launch numbers in
// range. Returns an empty string when the file is fine, otherwise the first problem found,
// naming the value and the limit ("run 1, variant 'best': label 2147483646 at point 7 is
// outside -1..99 (K = 100)").
QString validateResults(const kernellab::ResultsFile& file);

struct ResultsRead {
  ResultsPtr file;           // null on failure
  QByteArray sha1;           // of the file's bytes (opening the same file again finds its entry)
  QString error;             // why it was refused, naming the file
  bool newerSchema = false;  // written by a newer KernelLab (left alone in the history folder)
};

// Reads `path` as a results file: refuses a FIFO, device, socket or directory without opening it
// for a blocking read (stat first, then a non-blocking open whose descriptor is checked again),
// refuses a file larger than the memory available for parsing it, parses and validates.
ResultsRead readResultsForWindow(const QString& path);

// The same checks for text already in memory. `complete`, when given, runs between parsing and
// validation (the history puts a run's side-file arrays back there) and returns why it failed.
ResultsRead parseResultsForWindow(
    const QByteArray& text, const QString& name,
    const std::function<QString(kernellab::ResultsFile&)>& complete = {});

// The reading half of readResultsForWindow: a regular file, read without blocking, no larger
// than `maxBytes` (0: what the memory available allows for parsing).
bool readDataFile(const QString& path, QByteArray* text, QString* error, int64_t maxBytes = 0);

// A file named by a shown run's request (clustering.input_path, centers_path, knn.input_path)
// may be read only when the user named it too, in the experiment panel (`panelPath`), and only
// when it is a regular file. Returns an empty string when it may be read, else why not.
QString namedFileRefusal(const std::string& path, const std::string& panelPath);
// The same for every file a view may read to show `shown`'s family (points and initial centers
// of clustering, the image of KNN), against the panel's request.
QString namedFilesRefusal(const kernellab::RunRequest& shown, const kernellab::RunRequest& panel);

}  // namespace kernellab::app
