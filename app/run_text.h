// SPDX-License-Identifier: MIT
// Short texts about requests and results for legends, history entries, tables and reports.
#pragma once

#include <QString>
#include <string>

#include "kernellab/request.h"
#include "kernellab/result.h"

namespace kernellab::app {

QString familyTitle(kernellab::Family f);  // "Matrix transpose", "k-means", ...
// The variant's short title from describeVariants, or its id when this build does not know it.
QString variantTitle(kernellab::Family f, const std::string& id);
// A variant's colour slot: its position in describeVariants, so colours match in every chart.
int variantColorIndex(kernellab::Family f, const std::string& id);
// "transpose 2048x2048 · TPB 256 · tile 32", "k-means N=100,000 K=16 D=3 · TPB 256"
QString requestSummary(const kernellab::RunRequest& r);
// "NVIDIA H200" or "CPU (Intel Xeon ...)"
QString deviceShort(const kernellab::RunResult& r);
// "cuda-events" -> "CUDA events"; "cpu-steady-clock" -> "CPU steady clock".
QString clockTitle(const std::string& clock);
QString fromStd(const std::string& s);
// "run #3 (transpose 2048x2048 · TPB 256 · tile 32), CPU (AMD EPYC), 2026-12-01 07:00 UTC": what a
// report picture says of the run it shows.
QString runStamp(const QString& label, const kernellab::RunResult& run);
// A message of the shared request checks, which name command-line options ("--tpb 16 must
// be..."), in the window's words: the experiment panel's field names ("Threads per block 16 must
// be..."). `family` tells KNN's k (neighbours) from clustering's K.
QString inPanelTerms(const QString& message, kernellab::Family family);

}  // namespace kernellab::app
