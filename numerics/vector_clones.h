#pragma once
// BNSIM_VECTOR_CLONES marks a function of hot element loops to be compiled twice, for AVX2 and
// for the baseline x86-64, the one the processor supports chosen when the program loads (GCC
// and clang's target_clones). Only AVX2 is enabled, not FMA: every multiply and add still
// rounds on its own, and loops keep their order of additions, so both versions give the same
// bits; the AVX2 one handles twice as many elements per instruction.
// GCC only: clang 14 names a multiversioned function with external linkage differently, so a
// call from another file (load_elems from channel_check.cpp) fails to link. The
// clang build (the sanitizer and fuzz build) runs the baseline loops, which give the same bits.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define BNSIM_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define BNSIM_VECTOR_CLONES
#endif
