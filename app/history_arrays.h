// SPDX-License-Identifier: MIT
// The history keeps a run's large arrays (clustering labels and centers, KNN neighbour lists and
// distances, recorded block schedules) beside its JSON in one binary file: each array packed to
// the fewest bytes its range needs (delta-coded where neighbours are close) and zlib-compressed.
// The JSON stays a valid results file with those arrays left out and names the side file.
#pragma once

#include <QByteArray>
#include <QString>

#include "kernellab/result.h"

namespace kernellab::app {

// Arrays shorter than this stay in the JSON.
inline constexpr size_t kSideArrayMinElements = 1024;

// The top-level JSON key naming the side file (ignored by other readers of the results file).
inline constexpr const char* kSideFileKey = "history_arrays";

// Moves every array of at least kSideArrayMinElements out of `file` into the returned blob
// (empty when none is that large).
QByteArray takeLargeArrays(kernellab::ResultsFile& file);

// Puts the arrays of `blob` back into `file`. Every run, variant, count and packed size is
// checked against `file` and the blob's length before anything is allocated; on a problem
// returns false with the reason and leaves `file` as it was.
bool restoreLargeArrays(kernellab::ResultsFile& file, const QByteArray& blob, QString* error);

}  // namespace kernellab::app
