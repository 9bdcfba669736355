// SPDX-License-Identifier: MIT
// Atomic output files: temporary file in the same folder, fsync, rename, fsync the folder.
#include "kernellab/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "kernellab/errors.h"

namespace kernellab {
namespace {

std::string errnoText() { return std::strerror(errno); }

std::string folderOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string baseOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The file a write replaces: `path`, or the target of a symbolic link (so the link survives).
std::string resolveTarget(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return path;  // a dangling link: replaced by the new file
  std::string out(real);
  std::free(real);
  return out;
}

// Temporary names are "." + name + ".kltmp-<pid>-<random>": hidden, never "*.json", and
// recognisable, so a later writer can remove what a killed one left.
std::string tempPrefix(const std::string& target) { return "." + baseOf(target) + ".kltmp-"; }

std::string tempNameFor(const std::string& target) {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(::getpid())
                                                                       << 32);
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%d-%08llx", static_cast<int>(::getpid()),
                static_cast<unsigned long long>(rng() & 0xffffffffull));
  return folderOf(target) + "/" + tempPrefix(target) + suffix;
}

void removeOrphans(const std::string& target) {
  const std::string folder = folderOf(target), prefix = tempPrefix(target);
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    // Only a writer that no longer runs: another process may be writing its own copy right now.
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::unlink((folder + "/" + name).c_str());
  }
  ::closedir(dir);
}

const char* typeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Tests only: KERNELLAB_TEST_SLOW_WRITE_MS=<ms> sleeps that long after every chunk, so a test can
// kill the writer in the middle of a write every time (tests/cli/tst_cli_hostile.cpp).
int slowWriteMs() {
  const char* v = std::getenv("KERNELLAB_TEST_SLOW_WRITE_MS");
  return v ? std::atoi(v) : 0;
}

}  // namespace

void checkWritable(const std::string& path, const std::string& option) {
  const std::string who = option + " " + path + ": ";
  if (path.empty()) throw InputError(option + ": the path is empty");
  const std::string target = resolveTarget(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(who + "is a directory; name a file to write");
    if (!S_ISREG(st.st_mode))
      throw InputError(who + "is " + typeName(st.st_mode) +
                       ", not a regular file; name a file to write");
    if (::access(target.c_str(), W_OK) != 0)
      throw InputError(who + "the file is not writable: " + errnoText());
  }
  const std::string folder = folderOf(target);
  struct stat fs {};
  if (::stat(folder.c_str(), &fs) != 0)
    throw InputError(who + "the folder '" + folder + "' does not exist");
  if (!S_ISDIR(fs.st_mode)) throw InputError(who + "'" + folder + "' is not a folder");
  removeOrphans(target);
  // The real test: create (and remove) a file there. access() says yes to root on /proc. Named
  // unlike the writer's temporary file, so nothing mistakes one for the other.
  const std::string probe =
      folderOf(target) + "/." + baseOf(target) + ".klprobe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw InputError(who + "cannot create a file in '" + folder + "': " + errnoText());
  ::close(fd);
  ::unlink(probe.c_str());
}

void writeFileAtomically(const std::string& path, std::string_view contents) {
  const std::string target = resolveTarget(path);
  struct stat old {};
  const bool existed = ::stat(target.c_str(), &old) == 0;
  if (existed && !S_ISREG(old.st_mode))
    throw InputError("cannot write '" + path + "': it is " + typeName(old.st_mode));
  const std::string temp = tempNameFor(target);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    throw InputError("cannot write '" + path + "': cannot create a file in '" + folderOf(target) +
                     "': " + errnoText());
  auto fail = [&](const std::string& step) {
    const std::string why = errnoText();
    ::close(fd);
    ::unlink(temp.c_str());
    throw InputError("failed writing '" + path + "' (" + step + "): " + why);
  };
  if (existed) ::fchmod(fd, old.st_mode & 07777);  // keep the old file's permissions
  const int pauseMs = slowWriteMs();
  constexpr size_t kChunk = 1 << 20;
  size_t done = 0;
  while (done < contents.size()) {
    const size_t n = std::min(kChunk, contents.size() - done);
    const ssize_t w = ::write(fd, contents.data() + done, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<size_t>(w);
    if (pauseMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
  }
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const std::string why = errnoText();
    ::unlink(temp.c_str());
    throw InputError("failed writing '" + path + "' (close): " + why);
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string why = errnoText();
    ::unlink(temp.c_str());
    throw InputError("cannot write '" + path + "' (rename): " + why);
  }
  // The rename is durable once the folder's entry is on disk.
  const int dir = ::open(folderOf(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace kernellab
