// SPDX-License-Identifier: MIT
// Saved settings and the default request.
#include "app_settings.h"

#include <QObject>

#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/json_io.h"
#include "run_text.h"

namespace kernellab::app {

RunRequest defaultRequest() {
  // A small k-means demo when the build has clustering (it reads well and runs fast on the CPU),
  // else the first family's; each family's demo() fills in sizes worth showing.
  const FamilyDescriptor* family = findFamily(clustering::kKMeans);
  if (!family) family = families().front();
  RunRequest r;
  r.family = family->family;
  r.variants = {"all"};
  if (family->demo) family->demo(r);
  return r;
}

void saveRequest(QSettings& settings, const RunRequest& request) {
  settings.setValue(QStringLiteral("panel/request"),
                    QString::fromStdString(requestWithAllSections(request).dump()));
}

std::optional<RunRequest> loadSavedRequest(QSettings& settings) {
  const QString text = settings.value(QStringLiteral("panel/request")).toString();
  if (text.isEmpty()) return std::nullopt;
  try {
    return parseRequest(text.toStdString());
  } catch (const std::exception&) {
    return std::nullopt;  // written by a build that had other fields: start from the default
  }
}

QString launchHint(const RunRequest& r, bool* isError) {
  *isError = false;
  const FamilyDescriptor* family = findFamily(r.family);
  if (!family || !family->launchHint) return {};
  try {
    return QString::fromStdString(family->launchHint(r));
  } catch (const std::exception& e) {
    *isError = true;
    return inPanelTerms(QString::fromStdString(e.what()), r.family);
  }
}

}  // namespace kernellab::app
