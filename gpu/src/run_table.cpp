// SPDX-License-Identifier: MIT
// printRunTable: the header, a row per variant, the family's details.
#include "kernellab/run_table.h"

#include <iomanip>
#include <iostream>
#include <ostream>

#include "kernellab/family.h"
#include "kernellab/text.h"

namespace kernellab {

void printRunTable(std::ostream& out, const RunResult& run) {
  const FamilyDescriptor* family = findFamily(run.request.family);
  const RunRequest& r = run.request;
  out << (family ? family->summary(r, true) : std::string(r.family.id())) << "; " << r.repetitions
      << " timed repetitions after " << r.warmup << " warm-up\n";
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
      << std::setw(7) << "smem" << std::setw(7) << "blk/SM"
      << "  verified\n";
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
    } else {
      out << std::setw(6) << "-" << std::setw(7) << "-" << std::setw(7) << "-";
    }
    const Verification& ver = v.verification;
    if (!ver.performed)
      out << "  not checked";
    else if (ver.passed && ver.approximate)
      out << "  approximate: " << ver.approximateMismatches << " of " << ver.compared
          << " labels not the nearest center (" << ver.note << ")";
    else if (ver.passed)
      out << "  yes (" << ver.compared << (ver.compared == 1 ? " value, " : " elements, ")
          << ver.note << ")";
    else
      out << "  NO: " << ver.mismatches << " of " << ver.compared << " differ; " << ver.note;
    if (!v.strategy.empty()) out << "; strategy " << v.strategy;
    if (!v.schedule.empty())
      out << "; schedule of " << v.schedule.size() << " blocks, recording overhead "
          << formatFixed(v.scheduleOverheadPct, 1) << "%";
    out << "\n";
  }
  if (family && family->details) family->details(out, run);
  if (cpu) out << "Timings are CPU timings of the CPU executor, not GPU timings.\n";
  out << "Bandwidth in decimal GB/s (1e9 B/s), each input read once and each output written "
         "once.\n";
  if (!run.ok) out << "FAILED: " << run.message << "\n";
}

RunHooks progressOnStderr() {
  RunHooks h;
  h.progress = [](const std::string& stage, double f) {
    std::cerr << "[" << formatFixed(100.0 * f, 0) << "%] " << stage << "\n";
  };
  return h;
}

}  // namespace kernellab
