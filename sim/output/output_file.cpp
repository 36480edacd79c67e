#include "sim/output/output_file.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <streambuf>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace bnsim {
namespace {

namespace fs = std::filesystem;

// ---- the temporary being written, removed if a signal ends the process --------------------
// Outputs are written one at a time, so one slot suffices. The handler only calls unlink() and
// raise(), which are async-signal-safe.
char g_temp_path[PATH_MAX];
volatile sig_atomic_t g_temp_live = 0;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGABRT, SIGXFSZ};

// Temporary folders (TempDir): a few at once (compare's simulated profile and its --out).
constexpr int kDirSlots = 4;
char g_dir_path[kDirSlots][PATH_MAX];
volatile sig_atomic_t g_dir_live[kDirSlots] = {};

// Removes a folder of files with system calls only (async-signal-safe: no opendir, no malloc).
// Entries are unlinked while listed, so the listing restarts until a pass finds none.
void remove_flat_dir(const char* path) {
    const int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        alignas(8) char buf[4096];
        for (int pass = 0; pass < 64; ++pass) {
            bool removed = false;
            lseek(fd, 0, SEEK_SET);
            for (;;) {
                const long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
                if (n <= 0) break;
                for (long off = 0; off < n;) {
                    // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[]
                    unsigned short reclen;
                    std::memcpy(&reclen, buf + off + 16, sizeof reclen);
                    const char* name = buf + off + 19;
                    if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))))
                        removed |= unlinkat(fd, name, 0) == 0;
                    off += reclen;
                }
            }
            if (!removed) break;
        }
        close(fd);
    }
    rmdir(path);
}

extern "C" void remove_temp_and_die(int sig) {
    if (g_temp_live) unlink(g_temp_path);
    g_temp_live = 0;
    for (int i = 0; i < kDirSlots; ++i)
        if (g_dir_live[i]) {
            g_dir_live[i] = 0;
            remove_flat_dir(g_dir_path[i]);
        }
    signal(sig, SIG_DFL);
    raise(sig);
}

void install_cleanup_handlers() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    for (int sig : kCleanupSignals) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // keep SIG_IGN (nohup) and others'
        struct sigaction sa {};
        sa.sa_handler = remove_temp_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
}

sigset_t cleanup_signals() {
    sigset_t s;
    sigemptyset(&s);
    for (int sig : kCleanupSignals) sigaddset(&s, sig);
    return s;
}

void set_live_temp(const std::string& p) {
    g_temp_live = 0;
    std::strncpy(g_temp_path, p.c_str(), sizeof g_temp_path - 1);
    g_temp_path[sizeof g_temp_path - 1] = '\0';
    g_temp_live = 1;
}

// ---- an ostream onto a file descriptor, remembering the first write error -------------------
class FdStreambuf : public std::streambuf {
public:
    explicit FdStreambuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
    int error() const { return error_; }

protected:
    int overflow(int c) override {
        if (drain() != 0) return traits_type::eof();
        if (c != traits_type::eof()) {
            *pptr() = char(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain(); }

private:
    int drain() {
        const char* p = pbase();
        size_t left = size_t(pptr() - pbase());
        while (left > 0 && !error_) {
            const ssize_t n = ::write(fd_, p, left);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                error_ = n < 0 ? errno : EIO;
                break;
            }
            p += n;
            left -= size_t(n);
        }
        setp(buf_, buf_ + sizeof buf_);
        return error_ ? -1 : 0;
    }
    int fd_;
    int error_ = 0;
    char buf_[1 << 16];
};

// Writes content to fd; returns 0 or the errno of the first failure.
int fill_fd(int fd, const FileContent& content) {
    FdStreambuf buf(fd);
    std::ostream out(&buf);
    content(out);
    out.flush();
    return buf.error() ? buf.error() : (out ? 0 : EIO);
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

std::string parent_of(const std::string& p) {
    const std::string d = fs::path(p).parent_path().string();
    return d.empty() ? "." : d;
}

// Follows a chain of symlinks from p to the path that is not a symlink (it may not exist).
std::string final_target(const std::string& p, const std::string& option) {
    std::string cur = p;
    for (int hop = 0; hop < 40; ++hop) {
        struct stat st;
        if (lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        std::error_code ec;
        const fs::path to = fs::read_symlink(cur, ec);
        if (ec) throw UsageError(option + " " + in_quotes(p) + ": cannot read the symlink " + in_quotes(cur) + " (" + ec.message() + ")");
        cur = to.is_absolute() ? to.string() : (fs::path(parent_of(cur)) / to).string();
    }
    throw UsageError(option + " " + in_quotes(p) + ": too many levels of symlinks; expected a file path");
}

// The directory a new file will be created in must exist and be writable.
void need_writable_dir(const std::string& dir, const std::string& option, const std::string& path) {
    struct stat st;
    if (stat(dir.c_str(), &st) != 0)
        throw UsageError(option + " " + in_quotes(path) + ": directory " + in_quotes(dir) + " does not exist (" +
                         std::strerror(errno) + ")");
    if (!S_ISDIR(st.st_mode))
        throw UsageError(option + " " + in_quotes(path) + ": " + in_quotes(dir) + " is not a directory");
    if (access(dir.c_str(), W_OK | X_OK) != 0)
        throw UsageError(option + " " + in_quotes(path) + ": cannot create files in " + in_quotes(dir) + " (" +
                         std::strerror(errno) + ")");
}

bool same_file(const struct stat& a, int fd) {
    struct stat b;
    return fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

mode_t current_umask() {
    const mode_t mask = umask(0);
    umask(mask);
    return mask;
}

mode_t new_file_mode() {
    const mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

}  // namespace

OutputFile::OutputFile(std::string option, const std::string& path, bool stdout_taken)
    : option_(std::move(option)), path_(path), target_(path) {
    if (path.empty()) throw UsageError(option_ + " '': expected a file path, or - for standard output");
    struct stat st;
    if (path == "-") {
        kind_ = Kind::stdout_fd;
    } else if (stat(path.c_str(), &st) == 0) {  // the kernel follows every link, /proc's too
        if (same_file(st, STDOUT_FILENO)) {
            kind_ = Kind::stdout_fd;  // e.g. /dev/stdout: the open file, not a fresh one at offset 0
        } else if (S_ISREG(st.st_mode)) {
            target_ = final_target(path, option_);
            need_writable_dir(parent_of(target_), option_, path);
            kind_ = Kind::replace;
        } else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
            if (access(path.c_str(), W_OK) != 0)
                throw UsageError(option_ + " " + in_quotes(path) + ": not writable (" + std::strerror(errno) + ")");
            kind_ = Kind::in_place;
        } else {
            const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISSOCK(st.st_mode) ? "a socket" : "a block device";
            throw UsageError(option_ + " " + in_quotes(path) + ": is " + what +
                             "; expected a file path, a FIFO, a character device or - for standard output");
        }
    } else if (errno == ENOENT || errno == ENOTDIR) {  // a new file, possibly behind a dangling symlink
        target_ = final_target(path, option_);
        need_writable_dir(parent_of(target_), option_, path);
        kind_ = Kind::replace;
    } else {
        throw UsageError(option_ + " " + in_quotes(path) + ": " + std::strerror(errno) + "; expected a writable file path");
    }
    if (kind_ == Kind::stdout_fd && stdout_taken)
        throw UsageError(option_ + " " + in_quotes(path) + ": standard output already carries the --json report; "
                         "write the file to a path");
}

void OutputFile::write(const FileContent& content) const {
    const std::string what = option_ + " " + in_quotes(path_) + ": ";
    if (kind_ == Kind::stdout_fd) {
        std::cout.flush();
        if (const int err = fill_fd(STDOUT_FILENO, content))
            throw UsageError(what + "writing to standard output failed (" + std::strerror(err) + ")");
        return;
    }
    if (kind_ == Kind::in_place) {
        const int fd = open(target_.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) throw UsageError(what + "cannot open for writing (" + std::strerror(errno) + ")");
        const int err = fill_fd(fd, content);
        close(fd);
        if (err) throw UsageError(what + "write failed (" + std::strerror(err) + ")");
        return;
    }
    // A unique, visibly temporary name next to the target: concurrent runs never share one.
    const std::string dir = parent_of(target_);
    std::string tmpl = dir + "/." + fs::path(target_).filename().string() + ".bnsim-XXXXXX.tmp";
    install_cleanup_handlers();
    // Creating the file and registering it for cleanup happen with the cleanup signals held,
    // so a signal in between cannot leave it behind.
    const sigset_t cleanup = cleanup_signals();
    sigset_t previous;
    sigprocmask(SIG_BLOCK, &cleanup, &previous);
    const int fd = mkostemps(&tmpl[0], 4, O_CLOEXEC);
    const int create_errno = errno;
    if (fd >= 0) set_live_temp(tmpl);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    if (fd < 0)
        throw UsageError(what + "cannot create a temporary file in " + in_quotes(dir) + " (" + std::strerror(create_errno) + ")");
    auto discard = [&] {
        unlink(tmpl.c_str());
        g_temp_live = 0;
    };
    // The final file gets the permissions a plain create would give, or the replaced file's.
    struct stat old;
    fchmod(fd, stat(target_.c_str(), &old) == 0 ? (old.st_mode & 07777) : new_file_mode());
    int err = 0;
    try {
        err = fill_fd(fd, content);
    } catch (...) {
        close(fd);
        discard();
        throw;
    }
    if (!err && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    if (err) {
        discard();
        throw UsageError(what + "write failed (" + std::strerror(err) + ")");
    }
    if (rename(tmpl.c_str(), target_.c_str()) != 0) {
        err = errno;
        discard();
        throw UsageError(what + "cannot replace the file (" + std::strerror(err) + ")");
    }
    g_temp_live = 0;
    // Make the rename itself durable; failure here loses nothing already written.
    const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

OutputDir::OutputDir(std::string option, const std::string& dir) : option_(std::move(option)), dir_(dir) {
    if (dir.empty()) throw UsageError(option_ + " '': expected a directory");
    if (dir == "-") throw UsageError(option_ + " '-': expected a directory (several files cannot go to standard output)");
    // The directory, or the nearest existing ancestor it will be created in, must be writable.
    std::string d = dir;
    for (int depth = 0;; ++depth) {
        struct stat st;
        if (stat(d.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                throw UsageError(option_ + " " + in_quotes(dir) + ": " + in_quotes(d) + " is not a directory");
            if (access(d.c_str(), W_OK | X_OK) != 0)
                throw UsageError(option_ + " " + in_quotes(dir) + ": cannot create files in " + in_quotes(d) + " (" +
                                 std::strerror(errno) + ")");
            return;
        }
        if (errno != ENOENT && errno != ENOTDIR)
            throw UsageError(option_ + " " + in_quotes(dir) + ": " + in_quotes(d) + ": " + std::strerror(errno) +
                             "; expected a writable directory");
        const std::string up = parent_of(d);
        if (up == d || depth > 256) return;  // nothing above to check
        d = up;
    }
}

void OutputDir::write(const std::string& name, const FileContent& content) const {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) throw UsageError(option_ + " " + in_quotes(dir_) + ": cannot create the directory (" + ec.message() + ")");
    OutputFile(option_, (fs::path(dir_) / name).string(), false).write(content);
}

// ---- temporary and staged folders ------------------------------------------------------------

TempDir::TempDir(const std::string& parent, const std::string& prefix) {
    std::string tmpl = parent + "/" + prefix + "XXXXXX";
    install_cleanup_handlers();
    // Made and registered with the cleanup signals held: a signal in between cannot leave it.
    const sigset_t cleanup = cleanup_signals();
    sigset_t previous;
    sigprocmask(SIG_BLOCK, &cleanup, &previous);
    const bool made = mkdtemp(&tmpl[0]) != nullptr;
    const int made_errno = errno;
    if (made) {
        for (int i = 0; i < kDirSlots; ++i)
            if (!g_dir_live[i] && tmpl.size() < PATH_MAX) {
                std::strncpy(g_dir_path[i], tmpl.c_str(), PATH_MAX - 1);
                g_dir_path[i][PATH_MAX - 1] = '\0';
                g_dir_live[i] = 1;
                slot_ = i;
                break;
            }
    }
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    if (!made)
        throw UsageError("cannot create a temporary folder in " + in_quotes(parent) + " (" + std::strerror(made_errno) + ")");
    path_ = tmpl;
}

TempDir::~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
    release();
}

void TempDir::release() {
    if (slot_ >= 0) g_dir_live[slot_] = 0;
    slot_ = -1;
    path_.clear();
}

std::vector<std::string> foreign_entries(const std::string& dir, const std::vector<std::string>& own) {
    std::vector<std::string> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    size_t n = 0;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (std::find(own.begin(), own.end(), name) != own.end()) continue;
        if (out.size() < 3) out.push_back(name);
        ++n;
    }
    if (n > out.size()) out.push_back("and " + std::to_string(n - out.size()) + " more");
    return out;
}

StagedDir::StagedDir(std::string option, const std::string& dir, std::vector<std::string> own_files)
    : option_(std::move(option)), dir_(fs::path(dir).lexically_normal().string()), own_(std::move(own_files)) {
    // "prof/" names the folder prof (its name, not an empty one after the slash).
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    OutputDir check(option_, dir);  // the target, or its nearest ancestor, is a writable folder
    struct stat st;
    // A symlink to a folder stands for that folder (the link stays); a link to nothing is refused
    // now, not after the run.
    if (lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        std::error_code ec;
        const fs::path to = fs::canonical(dir, ec);
        if (ec || stat(to.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            throw UsageError(option_ + " " + in_quotes(dir) + ": a symlink to no folder; expected a folder path");
        dir_ = to.string();
    }
    if (stat(dir_.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) throw UsageError(option_ + " " + in_quotes(dir) + ": exists and is not a folder");
        const auto foreign = foreign_entries(dir_, own_);
        if (!foreign.empty()) {
            std::string names;
            for (const auto& f : foreign) names += (names.empty() ? "" : ", ") + f;
            throw UsageError(option_ + " " + in_quotes(dir) + ": holds files bnsim did not write there (" + names +
                             "); expected a new or empty folder, or one an earlier " + option_ + " wrote");
        }
    }
    std::error_code ec;
    const std::string parent = parent_of(dir_);
    fs::create_directories(parent, ec);
    if (ec) throw UsageError(option_ + " " + in_quotes(dir) + ": cannot create " + in_quotes(parent) + " (" + ec.message() + ")");
    std::string name = fs::path(dir_).filename().string();
    if (name.empty() || name == "." || name == "..") throw UsageError(option_ + " " + in_quotes(dir) + ": expected a folder name");
    temp_ = std::make_unique<TempDir>(parent, "." + name + ".bnsim-");
    files_.emplace(option_, temp_->path());
}

StagedDir::~StagedDir() = default;

void StagedDir::commit() {
    const std::string& target = dir_;
    const std::string parent = parent_of(target);
    const std::string what = option_ + " " + in_quotes(dir_) + ": ";
    // The folder gets the permissions a plain mkdir would give (mkdtemp makes it 0700).
    chmod(temp_->path().c_str(), 0777 & ~current_umask());
    const int pfd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) throw UsageError(what + "cannot open " + in_quotes(parent) + " (" + std::strerror(errno) + ")");
    struct Unlock {
        int fd;
        ~Unlock() {
            flock(fd, LOCK_UN);
            close(fd);
        }
    } unlock{pfd};
    flock(pfd, LOCK_EX);  // one commit at a time into this parent; held for a few renames
    struct stat st;
    if (stat(target.c_str(), &st) == 0) {
        // Checked again under the lock: another run may have filled it meanwhile.
        if (!S_ISDIR(st.st_mode) || !foreign_entries(target, own_).empty())
            throw UsageError(what + "changed while this run wrote its files (now holds files bnsim did not write there)");
        if (renameat2(AT_FDCWD, temp_->path().c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
            // A filesystem without name exchange: move the old folder aside first (still never a
            // mix: the target is briefly absent, not half-written).
            TempDir aside(parent, "." + fs::path(target).filename().string() + ".bnsim-old-");
            if (rename(target.c_str(), aside.path().c_str()) != 0)  // onto the empty folder: allowed
                throw UsageError(what + "cannot replace the folder (" + std::strerror(errno) + ")");
            if (rename(temp_->path().c_str(), target.c_str()) != 0) {
                const int err = errno;
                rename(aside.path().c_str(), target.c_str());
                throw UsageError(what + "cannot replace the folder (" + std::strerror(err) + ")");
            }
            temp_->release();
            fsync(pfd);
            return;  // `aside`, now the old files, is removed as it goes out of scope
        }
        // temp_ now names the old files; its destructor removes them.
        temp_.reset();
    } else {
        if (rename(temp_->path().c_str(), target.c_str()) != 0)
            throw UsageError(what + "cannot move the results into place (" + std::strerror(errno) + ")");
        temp_->release();
    }
    fsync(pfd);
}

}  // namespace bnsim
