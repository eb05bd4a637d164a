#pragma once

// Saving a file over what may already be there (a model file, a PDF report): where the bytes go, and
// what a save must refuse to replace.

#include "headroom/support/Error.h"

#include <string>
#include <vector>

namespace headroom {

/// The file a save to `path` writes: the target of `path` when it is a symbolic link (followed through
/// a chain of links; a dangling link names the file to create), else `path`. An error naming the
/// problem when that file exists but is not a regular file (a folder, a FIFO, a device, a socket) or
/// is read-only, or when its folder does not exist. Saving writes a temporary file in the target's
/// folder and renames it over the target, so a link stays a link and a device is never replaced.
[[nodiscard]] Result<std::string> saveTarget(const std::string& path);
/// saveTarget(path), also refusing a target that is one of `inputs` (the files the output is made from:
/// `report model.json -o model.json` would replace the model with the PDF). Files are compared as files,
/// by device and inode, so a symbolic link, a hard link or another spelling of the path is caught too.
[[nodiscard]] Result<std::string> saveTarget(const std::string& path, const std::vector<std::string>& inputs);

/// Flushes `folder`'s entries to disk (fsync), so a file just renamed into it survives a crash.
/// Returns false with errno set when the folder cannot be opened or synced.
[[nodiscard]] bool syncFolder(const std::string& folder);

} // namespace headroom
