// SPDX-License-Identifier: MIT
// What the window remembers between starts (QSettings) and the request it starts with.
#pragma once

#include <QSettings>
#include <optional>

#include "kernellab/request.h"

namespace kernellab::app {

// Transpose until the clustering family is in the build; then a small clustering demo.
kernellab::RunRequest defaultRequest();

void saveRequest(QSettings& settings, const kernellab::RunRequest& request);
// The saved request, or nothing when none is saved or it no longer parses.
std::optional<kernellab::RunRequest> loadSavedRequest(QSettings& settings);

// One line under the launch settings: the block shape the request gives, or why it is invalid.
QString launchHint(const kernellab::RunRequest& request, bool* isError);

}  // namespace kernellab::app
