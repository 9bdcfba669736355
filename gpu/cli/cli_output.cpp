// SPDX-License-Identifier: MIT
// Tables, CSV and JSON-lines events for kernellab-cli.
#include "cli_output.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli_clustering.h"
#include "kernellab/atomic_file.h"
#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab::cli {
namespace {

std::string problemText(const RunRequest& r) {
  std::ostringstream s;
  switch (r.family) {
    case Family::Transpose:
      s << "transpose " << r.transpose.width << "x" << r.transpose.height << " float32, tile "
        << r.launch.tile << ", block " << r.launch.tile << "x"
        << r.launch.threadsPerBlock / std::max(1, r.launch.tile) << " ("
        << r.launch.rowsPerThread << " rows per thread)";
      break;
    case Family::KMeans:
    case Family::KCenters:
      s << toString(r.family) << " N=" << r.clustering.n << " K=" << r.clustering.k
        << " D=" << r.clustering.d
        << (r.clustering.inputPath.empty() ? "" : " (" + r.clustering.inputPath + ")") << ", "
        << r.launch.threadsPerBlock << " threads per block";
      if (r.family == Family::KMeans) {
        s << ", stop ";
        if (r.clustering.stopRule == StopRule::FixedPoint)
          s << "at the fixed point";
        else
          s << "by the score rule (epsilon " << r.clustering.epsilon << ")";
        s << " or after " << r.clustering.maxIterations << " iterations";
      }
      break;
    case Family::Knn:
      s << "knn image " << r.knn.rows << "x" << r.knn.cols << "x" << r.knn.components
        << (r.knn.inputPath.empty() ? "" : " (" + r.knn.inputPath + ")") << ", window "
        << r.knn.window << " rows, k " << r.knn.k << ", block " << r.launch.blockX << "x"
        << r.launch.blockY;
      break;
  }
  s << "; " << r.repetitions << " timed repetitions after " << r.warmup << " warm-up";
  return s.str();
}

std::string csvEscape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out += c;
  }
  return out + "\"";
}

}  // namespace

void printRunTable(std::ostream& out, const RunResult& run) {
  out << problemText(run.request) << "\n";
  out << "Backend: " << (run.backend == "cuda" ? "CUDA, " : "") << run.backendNote << "\n";
  for (const auto& c : run.ceilings)
    out << "Ceiling " << c.name << ": " << formatFixed(c.gbps, 1) << " GB/s (median "
        << formatFixed(c.timing.medianMs, 4) << " ms, read + write bytes)\n";
  if (!run.message.empty() && run.variants.empty()) {
    out << run.message << "\n";
    return;
  }
  const bool cpu = run.backend != "cuda";
  out << std::left << std::setw(22) << "variant" << std::right << std::setw(11) << "median ms"
      << std::setw(11) << "min ms" << std::setw(11) << "max ms" << std::setw(10) << "GB/s"
      << std::setw(9) << "x ceil" << std::setw(8) << "x copy" << std::setw(6) << "regs"
      << std::setw(7) << "smem" << std::setw(7) << "blk/SM" << "  verified\n";
  for (const auto& v : run.variants) {
    out << std::left << std::setw(22) << v.variant << std::right;
    if (!v.ok) {
      out << "  not run: " << v.error << "\n";
      continue;
    }
    const KernelResult* k = v.kernels.empty() ? nullptr : &v.kernels.front();
    out << std::setw(11) << formatFixed(v.total.medianMs, 4) << std::setw(11)
        << formatFixed(v.total.minMs, 4) << std::setw(11) << formatFixed(v.total.maxMs, 4)
        << std::setw(10) << (v.gbps > 0 ? formatFixed(v.gbps, 1) : "-") << std::setw(9)
        << (v.fractionOfMemcpy > 0 ? formatFixed(v.fractionOfMemcpy, 3) : "-") << std::setw(8)
        << (v.fractionOfCopyKernel > 0 ? formatFixed(v.fractionOfCopyKernel, 3) : "-");
    if (k && k->resources) {
      out << std::setw(6) << k->resources->registersPerThread << std::setw(7)
          << (k->resources->staticSharedBytes + k->resources->dynamicSharedBytes) << std::setw(7)
          << k->resources->maxActiveBlocksPerSM;
    } else if (v.knn) {  // the CPU executor: the shared memory asked for is still known
      out << std::setw(6) << "-" << std::setw(7) << v.knn->sharedBytesPerBlock << std::setw(7)
          << "-";
    } else {
      out << std::setw(6) << "-" << std::setw(7) << "-" << std::setw(7) << "-";
    }
    const Verification& ver = v.verification;
    if (!ver.performed) out << "  not checked";
    else if (ver.passed && ver.approximate)
      out << "  approximate: " << ver.approximateMismatches << " of " << ver.compared
          << " labels not the nearest center (" << ver.note << ")";
    else if (ver.passed) out << "  yes (" << ver.compared << " elements, " << ver.note << ")";
    else out << "  NO: " << ver.mismatches << " of " << ver.compared << " differ; " << ver.note;
    if (!v.strategy.empty()) out << "; strategy " << v.strategy;
    if (!v.schedule.empty())
      out << "; schedule of " << v.schedule.size() << " blocks, recording overhead "
          << formatFixed(v.scheduleOverheadPct, 1) << "%";
    out << "\n";
  }
  if (run.request.family == Family::KMeans || run.request.family == Family::KCenters)
    printClusteringDetails(out, run);
  if (cpu) out << "Timings are CPU timings of the CPU executor, not GPU timings.\n";
  out << "Bandwidth in decimal GB/s (1e9 B/s), each input read once and each output written once.\n";
  if (!run.ok) out << "FAILED: " << run.message << "\n";
}

namespace {

// One CSV cell per field; a field that does not apply to the row's family (or to a variant that
// did not run) is an empty cell, so pandas reads it as NaN and no filter finds another family.
struct CsvRow {
  std::vector<std::string> cells;
  void text(const std::string& s) { cells.push_back(csvEscape(s)); }
  void empty() { cells.emplace_back(); }
  void number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    cells.emplace_back(buf);
  }
  template <class T>
  void integer(T v) {
    cells.push_back(std::to_string(v));
  }
  void numberIf(bool applies, double v) { applies ? number(v) : empty(); }
  template <class T>
  void integerIf(bool applies, T v) {
    applies ? integer(v) : empty();
  }
};

const char* kCsvHeader =
    "run,family,backend,device,variant,kernel,"
    "width,height,n,k,d,rows,cols,components,window,neighbours,"
    "threads_per_block,tile,rows_per_thread,block_x,block_y,"
    "median_ms,min_ms,max_ms,samples,launches,gbps,fraction_of_memcpy,fraction_of_copy_kernel,"
    "registers,shared_bytes,blocks_per_sm,iterations,stop_reason,inertia,verified,mismatches,error";

// Which run of the file (0-based, the JSON's runs[index]) and what ran where.
void problemCells(CsvRow& row, size_t index, const RunResult& run) {
  row.integer(index);
  row.text(toString(run.request.family));
  row.text(run.backend);
  row.text(run.device.name);
}

// The problem and launch cells: only the fields of the run's family.
void configCells(CsvRow& row, const RunRequest& r) {
  const bool transpose = r.family == Family::Transpose, knn = r.family == Family::Knn;
  const bool clustering = r.family == Family::KMeans || r.family == Family::KCenters;
  row.integerIf(transpose, r.transpose.width);
  row.integerIf(transpose, r.transpose.height);
  row.integerIf(clustering, r.clustering.n);
  row.integerIf(clustering, r.clustering.k);
  row.integerIf(clustering, r.clustering.d);
  row.integerIf(knn, r.knn.rows);
  row.integerIf(knn, r.knn.cols);
  row.integerIf(knn, r.knn.components);
  row.integerIf(knn, r.knn.window);
  row.integerIf(knn, r.knn.k);
  row.integer(r.launch.threadsPerBlock);
  row.integerIf(transpose, r.launch.tile);
  row.integerIf(transpose, r.launch.rowsPerThread);
  row.integerIf(knn, r.launch.blockX);
  row.integerIf(knn, r.launch.blockY);
}

}  // namespace

void writeCsv(const std::string& path, const ResultsFile& file) {
  std::ostringstream out;  // written whole or not at all (atomic_file.h)
  out << kCsvHeader << "\n";
  const size_t columns = std::count(kCsvHeader, kCsvHeader + std::strlen(kCsvHeader), ',') + 1;
  auto emit = [&](const CsvRow& row) {
    for (size_t i = 0; i < row.cells.size(); ++i) out << (i ? "," : "") << row.cells[i];
    out << "\n";
  };
  for (size_t index = 0; index < file.runs.size(); ++index) {
    const RunResult& run = file.runs[index];
    const RunRequest& r = run.request;
    // A run or variant that did not run: its identity and configuration, then only the error.
    auto notRun = [&](const std::string& variant, const std::string& error) {
      CsvRow row;
      problemCells(row, index, run);
      row.text(variant);
      row.empty();
      configCells(row, r);
      while (row.cells.size() + 1 < columns) row.empty();  // median_ms .. mismatches
      row.text(error);
      emit(row);
    };
    if (run.variants.empty()) notRun("", run.message);
    for (const auto& v : run.variants) {
      if (v.kernels.empty() || !v.ok) {
        notRun(v.variant, v.ok ? run.message : v.error);
        continue;
      }
      const bool kmeans = r.family == Family::KMeans;
      const ClusteringOutput* c = v.clustering ? &*v.clustering : nullptr;
      const Verification& ver = v.verification;
      for (const auto& k : v.kernels) {
        CsvRow row;
        problemCells(row, index, run);
        row.text(v.variant);
        row.text(k.name);
        configCells(row, r);
        const bool timed = k.timing.samples > 0;
        row.numberIf(timed, k.timing.medianMs);
        row.numberIf(timed, k.timing.minMs);
        row.numberIf(timed, k.timing.maxMs);
        row.integer(k.timing.samples);
        row.integer(k.launches);
        row.numberIf(timed && k.gbps > 0, k.gbps);
        row.numberIf(v.fractionOfMemcpy > 0, v.fractionOfMemcpy);
        row.numberIf(r.family == Family::Transpose && v.fractionOfCopyKernel > 0,
                     v.fractionOfCopyKernel);
        const auto& res = k.resources;
        row.integerIf(res.has_value(), res ? res->registersPerThread : 0);
        row.integerIf(res.has_value(), res ? res->staticSharedBytes + res->dynamicSharedBytes : 0);
        row.integerIf(res.has_value(), res ? res->maxActiveBlocksPerSM : 0);
        row.integerIf(kmeans && c, c ? c->iterations : 0);
        if (kmeans && c)
          row.text(toString(c->stopReason));
        else
          row.empty();
        row.numberIf(c != nullptr, c ? c->inertia : 0.0);
        if (ver.performed)
          row.text(ver.passed ? "yes" : "no");
        else
          row.empty();
        row.integerIf(ver.performed, ver.mismatches);
        row.empty();  // error: the variant ran
        emit(row);
      }
    }
  }
  writeFileAtomically(path, out.str());
}

void emitEvent(const nlohmann::json& event) {
  std::cout << event.dump() << "\n" << std::flush;
}

}  // namespace kernellab::cli
