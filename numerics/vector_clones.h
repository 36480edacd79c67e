#pragma once
// BNSIM_VECTOR_CLONES marks a function of hot element loops to be compiled twice, for AVX2 and
// for the baseline x86-64, the one the processor supports chosen when the program loads (GCC
// and clang's target_clones). Only AVX2 is enabled, not FMA: every multiply and add still
// rounds on its own, and loops keep their order of additions, so both versions give the same
// bits; the AVX2 one handles twice as many elements per instruction.
#if defined(__x86_64__) && defined(__linux__) && (defined(__clang__) ? __clang_major__ >= 14 : defined(__GNUC__))
#define BNSIM_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define BNSIM_VECTOR_CLONES
#endif
