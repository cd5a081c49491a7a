#!/usr/bin/env bash
# Regenerates tests/data/rust-libm-erf-exp.vectors: erf(x) and exp(x) of the
# Rust `libm` crate (the one the reference's erf and gelu_erf call), computed
# by the crate itself, for the test of core/rust_libm.cpp. Needs rustc and
# Debian's librust-libm-dev (the crate's source, 0.2.1); CI does not run
# this, it reads the committed vectors.
#   usage: scripts/rust_libm_vectors.sh > tests/data/rust-libm-erf-exp.vectors
set -euo pipefail
crate=${LIBM_CRATE:-/usr/share/cargo/registry/libm-0.2.1}
rustc=${RUSTC:-$(command -v rustc || echo /root/.cargo/bin/rustc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$rustc" --edition 2018 --crate-type rlib --crate-name libm -O --cap-lints allow "$crate/src/lib.rs" -o "$work/liblibm.rlib"
cat >"$work/main.rs" <<'RS'
// Inputs: every interval edge of erf and exp, exactly and a few ulps either
// side; log-uniform draws inside each interval, both signs; f32 values (the
// erf of an f32 input is computed on f64(x)); and exp's arguments inside
// erf's tail. A fixed xorshift stream keeps the file reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 { self.0 ^= self.0 << 13; self.0 ^= self.0 >> 7; self.0 ^= self.0 << 17; self.0 }
    fn unit(&mut self) -> f64 { (self.next() >> 11) as f64 / (1u64 << 53) as f64 }
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 { (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp() }
}
fn near(x: f64, out: &mut Vec<f64>) {
    for d in -3i64..=3 { out.push(f64::from_bits((x.to_bits() as i64 + d) as u64)); }
}
fn main() {
    let mut r = Rng(0x9e3779b97f4a7c15);
    let mut erf_in: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 5e-324, -5e-324, 2.2250738585072014e-308];
    let edges = [3.725290298461914e-9, 0.84375, 1.25, 1.0 / 0.35, 6.0];
    for &e in edges.iter() { near(e, &mut erf_in); near(-e, &mut erf_in); }
    let bands = [(1e-300, 3.725290298461914e-9), (3.725290298461914e-9, 0.84375), (0.84375, 1.25), (1.25, 1.0 / 0.35), (1.0 / 0.35, 6.0), (6.0, 30.0)];
    for &(lo, hi) in bands.iter() {
        for i in 0..900 { let x = r.log_uniform(lo, hi); erf_in.push(if i % 2 == 0 { x } else { -x }); }
    }
    for _ in 0..2000 { let f = (r.unit() * 14.0 - 7.0) as f32; erf_in.push(f as f64); }
    let mut exp_in: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 709.782712893383973096, -708.39641853226410622, -745.13321910194110842];
    for &e in [3.725290298461914e-9, 0.34657359027997264, 1.0397207708399179, 708.3964185322641, 709.782712893383973096, 745.1332191019411].iter() {
        near(e, &mut exp_in); near(-e, &mut exp_in);
    }
    for _ in 0..1500 { exp_in.push(r.unit() * 1456.0 - 746.0); }
    for _ in 0..1500 { exp_in.push(-r.log_uniform(0.5, 40.0)); }
    for _ in 0..500 { exp_in.push(r.unit() * 2.0 - 1.0); }
    println!("# erf(x) and exp(x) of the Rust libm crate {} (x, result; f64 bits in hex)", env!("CRATE_VERSION"));
    for x in erf_in { println!("erf {:016x} {:016x}", x.to_bits(), libm::erf(x).to_bits()); }
    for x in exp_in { println!("exp {:016x} {:016x}", x.to_bits(), libm::exp(x).to_bits()); }
}
RS
CRATE_VERSION=$(basename "$crate") "$rustc" --edition 2018 -O --extern libm="$work/liblibm.rlib" "$work/main.rs" -o "$work/vectors"
"$work/vectors"
