// What the CPU running kconform can do, for the code paths chosen at run
// time (the build targets baseline x86-64; these are compiled with
// [[gnu::target]] and taken only where the CPU has the instructions).
#pragma once

namespace kc {

// AVX2 and FMA (x86-64; false elsewhere).
bool cpu_has_avx2_fma();
// AVX-512 F and DQ, with AVX2 and FMA (x86-64; false elsewhere).
bool cpu_has_avx512();

}  // namespace kc
