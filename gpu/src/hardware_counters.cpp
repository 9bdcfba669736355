// SPDX-License-Identifier: MIT
// Nsight Compute's metric set and CSV report (hardware_counters.h).
#include "kernellab/hardware_counters.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "kernellab/errors.h"

namespace kernellab {
namespace {

// Every metric, with where it goes and whether it is a count (summed over launches) or a rate
// (averaged). cp.async's global loads (LDGSTS) count as global loads.
enum class Into {
  Duration, LoadSectors, LoadRequests, StoreSectors, StoreRequests, SharedLoads, SharedStores,
  LoadConflicts, StoreConflicts, DramRead, DramWrite, L2Hit, Achieved, Theoretical, Threads
};
struct Metric {
  const char* name;
  Into into;
};
const std::vector<Metric>& metricTable() {
  static const std::vector<Metric> table = {
      {"gpu__time_duration.sum", Into::Duration},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", Into::LoadSectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", Into::LoadRequests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum", Into::LoadSectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum", Into::LoadRequests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", Into::StoreSectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", Into::StoreRequests},
      {"smsp__inst_executed_op_shared_ld.sum", Into::SharedLoads},
      {"smsp__inst_executed_op_shared_st.sum", Into::SharedStores},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", Into::LoadConflicts},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", Into::StoreConflicts},
      {"dram__bytes_read.sum", Into::DramRead},
      {"dram__bytes_write.sum", Into::DramWrite},
      {"lts__t_sector_hit_rate.pct", Into::L2Hit},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", Into::Achieved},
      {"sm__maximum_warps_per_active_cycle_pct", Into::Theoretical},
      {"smsp__thread_inst_executed_per_inst_executed.ratio", Into::Threads},
  };
  return table;
}

// One CSV record (RFC 4180 quoting: "..." with "" for a quote), from `text` at `pos`.
std::vector<std::string> csvRecord(const std::string& text, size_t& pos) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
        field += '"';
        ++pos;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ++pos;
      ++pos;
      break;
    } else {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

// A metric value: thousands separators dropped; "n/a" or empty: not a number (NaN).
double metricValue(std::string v) {
  std::string s;
  for (char c : v)
    if (c != ',' && c != ' ') s += c;
  if (s.empty() || s == "n/a" || s == "N/A") return NAN;
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  return end && *end == '\0' ? x : NAN;
}

// To base units (bytes, nanoseconds) when ncu printed scaled ones.
double toBase(double v, const std::string& unit) {
  static const std::map<std::string, double> scale = {
      {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"Gbyte", 1e9}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
      {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9}, {"us", 1e3}, {"ms", 1e6}};
  const auto it = scale.find(unit);
  return it == scale.end() ? v : v * it->second;
}

int column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

const std::vector<std::string>& profileMetrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& m : metricTable()) v.push_back(m.name);
    return v;
  }();
  return names;
}

std::vector<MeasuredCounters> parseNcuCsv(const std::string& text) {
  size_t pos = 0;
  std::vector<std::string> header;
  int kName = -1, kMetric = -1, kValue = -1, kUnit = -1, kId = -1;
  // ncu prints its own lines (==PROF== ...) and the application's before the report's header.
  while (pos < text.size()) {
    header = csvRecord(text, pos);
    kName = column(header, "Kernel Name");
    kMetric = column(header, "Metric Name");
    kValue = column(header, "Metric Value");
    if (kName >= 0 && kMetric >= 0 && kValue >= 0) break;
  }
  if (kName < 0 || kMetric < 0 || kValue < 0)
    throw InputError("not an Nsight Compute CSV report: no header line with \"Kernel Name\", "
                     "\"Metric Name\" and \"Metric Value\" (run ncu with --csv)");
  kUnit = column(header, "Metric Unit");
  kId = column(header, "ID");

  struct Sums {
    MeasuredCounters c;
    std::map<Into, std::pair<double, int>> rates;  // sum and count of the averaged metrics
    std::map<std::string, bool> launchIds;
  };
  std::vector<Sums> kernels;
  std::map<std::string, size_t> byName;
  const int width = std::max({kName, kMetric, kValue, kUnit, kId}) + 1;
  while (pos < text.size()) {
    const std::vector<std::string> row = csvRecord(text, pos);
    if (static_cast<int>(row.size()) < width) continue;  // blank or a trailing line
    const std::string& name = row[static_cast<size_t>(kName)];
    if (name.empty()) continue;
    auto found = byName.find(name);
    if (found == byName.end()) {
      found = byName.emplace(name, kernels.size()).first;
      kernels.push_back(Sums{});
      kernels.back().c.kernel = name;
    }
    Sums& k = kernels[found->second];
    const std::string id = kId >= 0 ? row[static_cast<size_t>(kId)] : std::to_string(pos);
    k.launchIds[id] = true;
    const std::string& metric = row[static_cast<size_t>(kMetric)];
    double v = metricValue(row[static_cast<size_t>(kValue)]);
    if (std::isnan(v)) continue;
    if (kUnit >= 0) v = toBase(v, row[static_cast<size_t>(kUnit)]);
    for (const auto& m : metricTable()) {
      if (metric != m.name) continue;
      MeasuredCounters& c = k.c;
      switch (m.into) {
        case Into::Duration: c.durationNs += v; break;
        case Into::LoadSectors: c.globalLoadSectors += v; break;
        case Into::LoadRequests: c.globalLoadRequests += v; break;
        case Into::StoreSectors: c.globalStoreSectors += v; break;
        case Into::StoreRequests: c.globalStoreRequests += v; break;
        case Into::SharedLoads: c.sharedLoadRequests += v; break;
        case Into::SharedStores: c.sharedStoreRequests += v; break;
        case Into::LoadConflicts: c.sharedLoadBankConflicts += v; break;
        case Into::StoreConflicts: c.sharedStoreBankConflicts += v; break;
        case Into::DramRead: c.dramBytesRead += v; break;
        case Into::DramWrite: c.dramBytesWritten += v; break;
        default: {
          auto& r = k.rates[m.into];
          r.first += v;
          r.second += 1;
        }
      }
    }
  }
  std::vector<MeasuredCounters> out;
  for (Sums& k : kernels) {
    MeasuredCounters c = k.c;
    c.launches = static_cast<int>(k.launchIds.size());
    auto mean = [&](Into into) {
      const auto it = k.rates.find(into);
      return it == k.rates.end() || it->second.second == 0 ? -1.0
                                                          : it->second.first / it->second.second;
    };
    c.l2HitRatePct = mean(Into::L2Hit);
    c.achievedOccupancyPct = mean(Into::Achieved);
    c.theoreticalOccupancyPct = mean(Into::Theoretical);
    c.threadsPerInstruction = mean(Into::Threads);
    out.push_back(c);
  }
  return out;
}

const MeasuredCounters* countersFor(const std::vector<MeasuredCounters>& measured,
                                    const std::string& kernel) {
  const std::string function = kernel.substr(0, kernel.find(' '));
  for (const auto& c : measured)
    if (c.kernel == function) return &c;
  return nullptr;
}

}  // namespace kernellab
