#include "sim/commands/output_file.h"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace bnsim {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(path + ": cannot open for writing");
        try {
            write(out);
        } catch (...) {
            out.close();
            std::remove(tmp.c_str());
            throw;
        }
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            throw std::runtime_error(path + ": write failed");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot write (" + ec.message() + ")");
    }
}

}  // namespace bnsim
