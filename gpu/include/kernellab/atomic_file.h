// SPDX-License-Identifier: MIT
// Output files that are written whole or not at all. A results file, a CSV or a labels file is
// first written to a temporary file in the same folder, flushed and fsynced, then renamed over
// the target (rename is atomic within a file system) and the folder fsynced: a kill -9 or a power
// cut leaves the old file or the new one, never half of either. And the output path is checked
// before a run starts, so an unwritable path loses no run.
#pragma once

#include <string>
#include <string_view>

namespace kernellab {

// Throws InputError("<option> <path>: ...") unless `path` can be written now: its folder exists
// and a file can be created in it, and an existing `path` is a regular file (not a directory, a
// device or a FIFO) that is writable. A symbolic link is followed: its target is what gets
// replaced. Also removes temporary files a killed writer of this path left behind.
void checkWritable(const std::string& path, const std::string& option);

// Writes `contents` to `path` atomically (see above); an existing file's permissions are kept.
// Throws InputError with the path and the system's reason; the temporary file is removed then.
void writeFileAtomically(const std::string& path, std::string_view contents);

}  // namespace kernellab
