// SPDX-License-Identifier: MIT
// The table of every shown run's variants: times, bandwidth, verification. The Results view, the
// report and the CSV export share it.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "app_types.h"

namespace kernellab::app {

struct TableData {
  QStringList headers;
  QVector<QStringList> rows;
  QVector<bool> rowFailed;  // highlight: failed to run or to verify
};

TableData buildResultsTable(const RunSelection& selection);
QString tableToCsv(const TableData& table);

}  // namespace kernellab::app
