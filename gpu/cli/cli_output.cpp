// SPDX-License-Identifier: MIT
// CSV and JSON-lines events for kernellab-cli.
#include "cli_output.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "kernellab/atomic_file.h"
#include "kernellab/errors.h"
#include "kernellab/family.h"
#include "kernellab/text.h"

namespace kernellab::cli {
namespace {

std::string csvEscape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else out += c;
  }
  return out + "\"";
}

// One CSV cell per field; a field that does not apply to the row's family (or to a variant that
// did not run) is an empty cell, so pandas reads it as NaN and no filter finds another family.
struct CsvRow {
  std::vector<std::string> cells;
  void text(const std::string& s) { cells.push_back(csvEscape(s)); }
  void empty() { cells.emplace_back(); }
  void number(double v) { cells.push_back(formatGeneral(v, 10)); }
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

// The columns of every family (each once, in the registry's order: the k-means and k-centers
// share n, k, d), between what identifies a row and the timings.
std::vector<const CsvColumn*> familyColumns() {
  std::vector<const CsvColumn*> out;
  for (const FamilyDescriptor* f : families())
    for (const CsvColumn& c : f->csvColumns)
      if (std::none_of(out.begin(), out.end(),
                       [&](const CsvColumn* o) { return o->name == c.name; }))
        out.push_back(&c);
  return out;
}

std::string csvHeader() {
  std::string h = "run,family,backend,device,variant,kernel";
  for (const CsvColumn* c : familyColumns()) h += "," + c->name;
  return h +
         ",threads_per_block,median_ms,min_ms,max_ms,samples,launches,gbps,fraction_of_memcpy,"
         "fraction_of_copy_kernel,registers,shared_bytes,blocks_per_sm,verified,mismatches,error";
}

// Which run of the file (0-based, the JSON's runs[index]) and what ran where.
void problemCells(CsvRow& row, size_t index, const RunResult& run) {
  row.integer(index);
  row.text(toString(run.request.family));
  row.text(run.backend);
  row.text(run.device.name);
}

// The family's cells (the others' columns empty), then the launch.
void configCells(CsvRow& row, const RunRequest& r, const VariantResult* v) {
  const FamilyDescriptor* family = findFamily(r.family);
  for (const CsvColumn* c : familyColumns()) {
    const bool ours = family && std::any_of(family->csvColumns.begin(), family->csvColumns.end(),
                                            [&](const CsvColumn& o) { return o.name == c->name; });
    if (!ours) {
      row.empty();
      continue;
    }
    // The family's own column of that name (k-means and k-centers differ in what they fill).
    for (const CsvColumn& o : family->csvColumns)
      if (o.name == c->name) row.text(o.cell(r, v));
  }
  row.integer(r.launch.threadsPerBlock);
}

}  // namespace

void writeCsv(const std::string& path, const ResultsFile& file) {
  std::ostringstream out;  // written whole or not at all (atomic_file.h)
  const std::string header = csvHeader();
  out << header << "\n";
  const size_t columns = std::count(header.begin(), header.end(), ',') + 1;
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
      configCells(row, r, nullptr);
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
      const Verification& ver = v.verification;
      for (const auto& k : v.kernels) {
        CsvRow row;
        problemCells(row, index, run);
        row.text(v.variant);
        row.text(k.name);
        configCells(row, r, &v);
        const bool timed = k.timing.samples > 0;
        row.numberIf(timed, k.timing.medianMs);
        row.numberIf(timed, k.timing.minMs);
        row.numberIf(timed, k.timing.maxMs);
        row.integer(k.timing.samples);
        row.integer(k.launches);
        row.numberIf(timed && k.gbps > 0, k.gbps);
        row.numberIf(v.fractionOfMemcpy > 0, v.fractionOfMemcpy);
        row.numberIf(v.fractionOfCopyKernel > 0, v.fractionOfCopyKernel);
        const auto& res = k.resources;
        row.integerIf(res.has_value(), res ? res->registersPerThread : 0);
        row.integerIf(res.has_value(), res ? res->staticSharedBytes + res->dynamicSharedBytes : 0);
        row.integerIf(res.has_value(), res ? res->maxActiveBlocksPerSM : 0);
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
