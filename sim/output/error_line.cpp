#include "sim/output/error_line.h"

#include <filesystem>
#include <new>
#include <stdexcept>

#include "configfile/config_error.h"
#include "kernels/kernel_target.h"
#include "sim/output/output_file.h"

namespace bnsim {

ErrorLine error_line(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const ConfigError& x) {
        return {std::string("bnsim: config error: ") + x.what(), 2};
    } catch (const UsageError& x) {
        return {std::string("bnsim: ") + x.what(), 2};
    } catch (const KernelError& x) {
        return {std::string("bnsim: ") + x.what(), 2};
    } catch (const std::bad_alloc&) {
        // Inputs are sized before work starts; this is the backstop, in bnsim's words.
        return {"bnsim: out of memory: the input needs more than this machine has; expected a smaller shape or grid", 2};
    } catch (const std::filesystem::filesystem_error& x) {
        return {"bnsim: " + x.path1().string() + ": " + x.code().message(), 2};
    } catch (const std::exception& x) {
        return {std::string("bnsim: error: ") + x.what(), 1};
    } catch (...) {
        return {"bnsim: error: unknown exception", 1};
    }
}

}  // namespace bnsim
