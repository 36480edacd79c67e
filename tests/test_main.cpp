#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <iostream>

#include <sysc/kernel/sc_simcontext.h>

namespace {

// SystemC elaborates once per simulation context. simulate() makes a fresh context for each run,
// but the cases that build modules and call sc_start themselves (the DMA scheduler's) use the
// current one, so each needs a process of its own once another case has simulated (ctest runs
// one case per process). Run directly, the binary would run them all in one and such a case
// fails with SystemC's E529 ("insert module failed: elaboration done"); this says why.
struct OneElaborationPerProcess : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    bool elaborated_before = false;

    void testCaseStarting(Catch::TestCaseInfo const& info) override {
        TestEventListenerBase::testCaseStarting(info);
        elaborated_before = sc_core::sc_curr_simcontext && sc_core::sc_curr_simcontext->elaboration_done();
    }
    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        TestEventListenerBase::testCaseEnded(stats);
        if (elaborated_before && stats.totals.assertions.failed > 0)
            std::cerr << "bnsim_tests: \"" << stats.testInfo.name
                      << "\" ran after another case had already elaborated SystemC in this process. Each case "
                         "needs its own process: run `ctest --test-dir build`, or one case at a time: "
                         "bnsim_tests \"<case name>\"\n";
    }
};

}  // namespace

CATCH_REGISTER_LISTENER(OneElaborationPerProcess)
