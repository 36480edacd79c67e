#pragma once
// BNSIM_UNDER_ASAN is 1 in an AddressSanitizer build (scripts/setup.sh sanitize). There the
// allocator is ASan's, not glibc's (a sweep point's heap set-up does not apply), and memory
// limits and peak-RSS figures do not hold: ASan's shadow memory reserves terabytes of address
// space and its quarantine and redzones add to every process's resident set.
// gcc says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define BNSIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BNSIM_UNDER_ASAN 1
#endif
#endif
#ifndef BNSIM_UNDER_ASAN
#define BNSIM_UNDER_ASAN 0
#endif
