#include "headroom/model/SaveTarget.h"

#include "headroom/support/Format.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace {

namespace fs = std::filesystem;

/// "a FIFO (named pipe)", for a message about a path that is not a regular file.
std::string describe(fs::file_type type)
{
    switch (type) {
    case fs::file_type::directory:
        return "a folder";
    case fs::file_type::fifo:
        return "a FIFO (named pipe)";
    case fs::file_type::character:
        return "a character device";
    case fs::file_type::block:
        return "a block device";
    case fs::file_type::socket:
        return "a socket";
    default:
        return "not a regular file";
    }
}

/// Whether `a` and `b` name the same file (the same device and inode, through any links).
bool sameFile(const std::string& a, const std::string& b)
{
    struct stat x
    {
    };
    struct stat y
    {
    };
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev
        && x.st_ino == y.st_ino;
}

} // namespace

Result<std::string> saveTarget(const std::string& path, const std::vector<std::string>& inputs)
{
    auto target = saveTarget(path);
    if (!target)
        return target;
    for (const auto& input : inputs) {
        if (!input.empty() && sameFile(target.value(), input)) {
            const std::string shown = input == path
                ? shortForMessage(path)
                : shortForMessage(path) + " (the same file as " + shortForMessage(input) + ")";
            return Error { shown
                    + ": is the file it is made from; writing there would replace it: choose another name",
                path };
        }
    }
    return target;
}

Result<std::string> saveTarget(const std::string& path)
{
    if (path.empty())
        return Error { "no file name given", "" };
    fs::path target { path };
    std::error_code ec;
    // Follow links the way open() would (at most 40 hops, as Linux's MAXSYMLINKS), keeping a dangling
    // link's target as the file to create.
    for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
        if (hops == 40)
            return Error { shortForMessage(path) + ": too many levels of symbolic links", path };
        const fs::path link = fs::read_symlink(target, ec);
        if (ec)
            return Error { shortForMessage(path) + ": cannot read the symbolic link (" + ec.message() + ")",
                path };
        target = link.is_absolute() ? link : target.parent_path() / link;
    }
    const std::string shown = target.string() == path
        ? shortForMessage(path)
        : shortForMessage(path) + " (a link to " + shortForMessage(target.string()) + ")";
    const auto status = fs::status(target, ec);
    if (fs::exists(status)) {
        if (!fs::is_regular_file(status))
            return Error {
                shown + ": is " + describe(status.type()) + ", not a regular file; choose a file name", path
            };
        const auto writeBits = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
        // The mode bits, not only access(): root may write anything, but a read-only file says "keep me".
        if ((status.permissions() & writeBits) == fs::perms::none || ::access(target.c_str(), W_OK) != 0)
            return Error { shown + ": the file is read-only; make it writable or choose another name", path };
        return target.string();
    }
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::is_directory(folder, ec))
        return Error { shown + ": cannot write here: the folder " + shortForMessage(folder.string())
                + " does not exist",
            path };
    // A name the folder's file system cannot hold fails only when the file is created or renamed into
    // place: say so before anything is written (a report is drawn first).
    const std::string name = target.filename().string();
    const long nameMax = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    if (nameMax > 0 && name.size() > static_cast<std::size_t>(nameMax))
        return Error { shown + ": the file name is " + formatCount(name.size()) + " bytes, more than the "
                + formatCount(static_cast<std::uint64_t>(nameMax))
                + " its folder's file system allows; choose a shorter name",
            path };
    const long pathMax = ::pathconf(folder.c_str(), _PC_PATH_MAX);
    if (pathMax > 0 && target.string().size() >= static_cast<std::size_t>(pathMax))
        return Error { shown + ": the path is " + formatCount(target.string().size())
                + " bytes, more than the " + formatCount(static_cast<std::uint64_t>(pathMax - 1))
                + " the system allows; choose a shorter one",
            path };
    return target.string();
}

bool syncFolder(const std::string& folder)
{
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool synced = ::fsync(fd) == 0;
    const int error = errno;
    ::close(fd);
    errno = error;
    return synced;
}

} // namespace headroom
