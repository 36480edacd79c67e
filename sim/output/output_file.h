#pragma once
// Every file bnsim writes (--dump, --timeline, validate --outputs / --save-inputs) goes through
// OutputFile, so every output option behaves the same way:
//   -                       standard output
//   a FIFO or a character device (or a symlink to one), or the file standard output already is:
//                           written in place, never replaced (/dev/null stays a device)
//   a regular file, a new path, or a symlink to either:
//                           written to a unique temporary in the target's directory, synced, and
//                           renamed over the target; a symlink keeps pointing where it pointed.
//                           An error or a catchable signal (INT, TERM, HUP, QUIT, PIPE, ABRT)
//                           removes the temporary, so no half file is ever left at the path.
// Paths are checked when the OutputFile is made, before the run starts: an unusable path is a
// UsageError (exit status 2) at once, not after minutes of simulation.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bnsim {

// A command line that cannot work as given (exit status 2).
struct UsageError : std::runtime_error {
    explicit UsageError(const std::string& m) : std::runtime_error(m) {}
};

using FileContent = std::function<void(std::ostream&)>;

class OutputFile {
public:
    // option names the command-line option in errors ("--timeline"); stdout_taken says the
    // command prints its own result on standard output (--json), so "-" is refused.
    OutputFile(std::string option, const std::string& path, bool stdout_taken);

    bool is_stdout() const { return kind_ == Kind::stdout_fd; }
    const std::string& path() const { return path_; }
    void write(const FileContent& content) const;

private:
    enum class Kind { stdout_fd, in_place, replace };
    std::string option_;
    std::string path_;    // as given
    std::string target_;  // the file actually written (a symlink's final target)
    Kind kind_ = Kind::replace;
};

// A directory of output files (validate --outputs DIR, --save-inputs DIR). A missing directory
// is created when the first file is written; it is checked to be creatable up front.
class OutputDir {
public:
    OutputDir(std::string option, const std::string& dir);

    const std::string& path() const { return dir_; }
    void write(const std::string& name, const FileContent& content) const;

private:
    std::string option_;
    std::string dir_;
};

// A private temporary folder (mkdtemp under `parent`), removed with its files when destroyed
// and when a catchable signal ends the process. It holds files only, no subfolders.
class TempDir {
public:
    TempDir(const std::string& parent, const std::string& prefix);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    // The folder is no longer ours to remove (it was renamed into place).
    void release();

private:
    std::string path_;
    int slot_ = -1;
};

// A folder of outputs that appears whole or not at all (--profile-out, merge --out, the report
// folders). Files are written into a temporary folder beside the target; commit() puts it in the
// target's place by one exchange of names under a lock on the parent folder, so the target holds
// either the old set or the new one at every moment, and two runs never mix their files. The
// old set is then removed. Without commit (an error, a full disk, a signal) the temporary goes
// and the target is untouched.
// A target that exists must be a folder that is empty or holds only `own_files` (an earlier
// output of the same kind): replacing a folder of other files would delete them.
class StagedDir {
public:
    StagedDir(std::string option, const std::string& dir, std::vector<std::string> own_files);
    ~StagedDir();
    // Where the files go until commit().
    const OutputDir& files() const { return *files_; }
    const std::string& path() const { return dir_; }
    void commit();

private:
    std::string option_;
    std::string dir_;
    std::vector<std::string> own_;
    std::unique_ptr<TempDir> temp_;
    std::optional<OutputDir> files_;
};

// The names in `dir` that are not in `own` (at most a few, for a message); empty if dir is
// absent, empty, or holds only `own`.
std::vector<std::string> foreign_entries(const std::string& dir, const std::vector<std::string>& own);

}  // namespace bnsim
