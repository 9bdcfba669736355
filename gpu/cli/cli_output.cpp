// SPDX-License-Identifier: MIT
// Tables, CSV and JSON-lines events for kernellab-cli.
#include "cli_output.h"

#include <cstdio>
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
        << " D=" << r.clustering.d << ", " << r.launch.threadsPerBlock << " threads per block";
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
    else if (ver.passed) out << "  yes (" << ver.compared << " elements, " << ver.note << ")";
    else out << "  NO: " << ver.mismatches << " of " << ver.compared << " differ; " << ver.note;
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

void writeCsv(const std::string& path, const ResultsFile& file) {
  std::ostringstream out;  // written whole or not at all (atomic_file.h)
  out << "family,backend,device,width,height,n,k,d,tile,threads_per_block,variant,kernel,"
         "median_ms,min_ms,max_ms,samples,gbps,fraction_of_memcpy,fraction_of_copy_kernel,"
         "registers,shared_bytes,blocks_per_sm,verified,mismatches,error\n";
  for (const auto& run : file.runs) {
    const RunRequest& r = run.request;
    auto prefix = [&] {
      std::ostringstream s;
      s << toString(r.family) << "," << run.backend << "," << csvEscape(run.device.name) << ","
        << r.transpose.width << "," << r.transpose.height << "," << r.clustering.n << ","
        << r.clustering.k << "," << r.clustering.d << "," << r.launch.tile << ","
        << r.launch.threadsPerBlock << ",";
      return s.str();
    };
    if (run.variants.empty()) {
      out << prefix() << ",,,,,,,,,,,,,," << csvEscape(run.message) << "\n";
      continue;
    }
    for (const auto& v : run.variants) {
      for (const auto& k : v.kernels) {
        out << prefix() << v.variant << "," << k.name << "," << k.timing.medianMs << ","
            << k.timing.minMs << "," << k.timing.maxMs << "," << k.timing.samples << "," << k.gbps
            << "," << v.fractionOfMemcpy << "," << v.fractionOfCopyKernel << ",";
        if (k.resources)
          out << k.resources->registersPerThread << ","
              << k.resources->staticSharedBytes + k.resources->dynamicSharedBytes << ","
              << k.resources->maxActiveBlocksPerSM << ",";
        else
          out << ",,,";
        out << (v.verification.performed ? (v.verification.passed ? "yes" : "no") : "") << ","
            << v.verification.mismatches << "," << csvEscape(v.error) << "\n";
      }
      if (v.kernels.empty())
        out << prefix() << v.variant << ",,,,,,,,,,,,," << csvEscape(v.error) << "\n";
    }
  }
  writeFileAtomically(path, out.str());
}

void emitEvent(const nlohmann::json& event) {
  std::cout << event.dump() << "\n" << std::flush;
}

}  // namespace kernellab::cli
