// The README's commands run as written: every `build/sim/bnsim ...` line of a ```sh block and of
// an inline code span runs from a copy of the repository root (its folders linked, the binary
// under test at build/sim/bnsim) and exits 0, and every output block that starts with
// "$ build/sim/bnsim ..." is what that command prints, verbatim (the build's version shown as
// VERSION). The synopsis block is ```text: placeholders, not commands.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_run.h"
#include "tests/source_paths.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;

namespace {

struct ReadmeCommand {
    int line;
    std::string command;   // as written, without the prompt or a trailing # comment
    std::string expected;  // the output shown under a "$ " prompt, or empty: exit status only
    bool shows_output = false;
};

std::string strip_comment(std::string s) {
    const auto hash = s.find("  #");
    if (hash != std::string::npos) s = s.substr(0, hash);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

std::vector<ReadmeCommand> readme_commands(const std::string& text) {
    std::vector<ReadmeCommand> out;
    std::istringstream in(text);
    std::string line, fence;  // fence: the open block's info string ("sh", "", ...), or "none"
    bool in_block = false;
    ReadmeCommand* shown = nullptr;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.rfind("```", 0) == 0) {
            in_block = !in_block;
            fence = in_block ? line.substr(3) : "";
            shown = nullptr;
            continue;
        }
        if (in_block) {
            if (shown) {
                shown->expected += line + "\n";
            } else if (line.rfind("$ build/sim/bnsim ", 0) == 0 && fence.empty()) {
                out.push_back({n, line.substr(2), "", true});
                shown = &out.back();
            } else if (fence == "sh" && line.rfind("build/sim/bnsim ", 0) == 0) {
                out.push_back({n, strip_comment(line), "", false});
            }
            continue;
        }
        // Inline code spans: `build/sim/bnsim ...`.
        for (size_t at = line.find("`build/sim/bnsim "); at != std::string::npos;
             at = line.find("`build/sim/bnsim ", at + 1)) {
            const auto end = line.find('`', at + 1);
            if (end != std::string::npos) out.push_back({n, line.substr(at + 1, end - at - 1), "", false});
        }
    }
    return out;
}

// The provenance line's version is the build's: shown as VERSION.
std::string with_version_placeholder(const std::string& out) {
    std::istringstream in(out);
    std::string line, r;
    while (std::getline(in, line)) {
        const std::string p = "provenance  bnsim ";
        if (line.rfind(p, 0) == 0) {
            const auto comma = line.find(',', p.size());
            if (comma != std::string::npos) line = p + "VERSION" + line.substr(comma);
        }
        r += line + "\n";
    }
    return r;
}

// A repository root of links to the real one, with the binary under test as build/sim/bnsim.
std::string readme_root() {
    const std::string root = bnsim::test::make_temp_dir("bnsim_readme");
    for (const char* d : {"configs", "kernels", "tests", "docs", "scripts"}) fs::create_symlink(kSrc + "/" + d, root + "/" + d);
    fs::create_directories(root + "/build/sim");
    const char* other = getenv("BNSIM_TEST_BINARY");
    fs::create_symlink(other && *other ? other : BNSIM_BINARY, root + "/build/sim/bnsim");
    return root;
}

}  // namespace

TEST_CASE("README: every command it shows runs as written, and shown outputs are verbatim") {
    // What it checks is the README's text; the commands' code runs under ASan in their own tests.
    if (BNSIM_UNDER_ASAN)
        bnsim::test::skip_test("the README's commands one after another (624 s under ASan, most of the sanitizer "
                               "run): run in the Release suite");
    const auto commands = readme_commands(bnsim::test::slurp(kSrc + "/README.md"));
    REQUIRE(commands.size() >= 10);
    const std::string root = readme_root();
    for (const auto& c : commands) {
        INFO("README.md:" << c.line << ": " << c.command);
        // Split on spaces (README commands quote nothing).
        std::vector<std::string> args;
        std::istringstream words(c.command.substr(std::string("build/sim/bnsim ").size()));
        for (std::string w; words >> w;) args.push_back(w);
        bnsim::test::CliOptions o;
        o.cwd = root;
        o.timeout_s = 300;
        const auto r = bnsim::test::run_bnsim(args, o);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 0);
        if (c.shows_output) CHECK(with_version_placeholder(r.out) == c.expected);
    }
}
