//! The interpreter's speed: SPIR-V instructions executed per second
//! on a simple arithmetic loop kernel (natively; `bench/interp.sh` runs it).
//!
//! Usage: interp-bench [ITERATIONS] [INVOCATIONS]  (defaults 2,000,000 and 64)
//!
//! The kernel: each invocation loops ITERATIONS / INVOCATIONS times over an
//! integer multiply-add with a phi, then stores its sum; every sum is checked
//! against the closed form, so a wrong answer fails the benchmark.
use spvlab_core::interp::{self, Buffers, Options};
use spvlab_core::ir::Ir;
use spvlab_core::text::asm::{AsmOptions, assemble};
use std::time::Instant;

/// The kernel (shared with the wasm benchmark, bench/wasm).
const KERNEL: &str = include_str!("../../../bench/interp-kernel.spvasm");

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.replace(['_', ','], "").parse().expect("a number")).collect();
    let iterations = args.first().copied().unwrap_or(2_000_000);
    let groups = (args.get(1).copied().unwrap_or(64) / 64).max(1) as u32;
    let invocations = groups as u64 * 64;
    let n = (iterations / invocations).max(1) as u32;
    let words = assemble(KERNEL, &AsmOptions::default()).expect("the kernel assembles");
    let module = spvlab_core::binary::read_words(&words).expect("the kernel reads");
    let ir = Ir::build(module);
    let opts = Options { workgroups: [groups, 1, 1], max_steps: u64::MAX, push_constants: Some(n.to_le_bytes().to_vec()), ..Options::default() };
    let mut best = f64::INFINITY;
    let mut steps = 0;
    for _ in 0..5 {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), vec![0u8; invocations as usize * 4]);
        let t0 = Instant::now();
        let stats = interp::run(&ir, &opts, &mut buffers).expect("the kernel runs");
        best = best.min(t0.elapsed().as_secs_f64());
        steps = stats.steps;
        // s(0) = x; s(k+1) = 3 s(k) + k (mod 2^32).
        let out = &buffers[&(0, 0)];
        for x in 0..invocations as u32 {
            let mut s = x;
            for k in 0..n {
                s = s.wrapping_mul(3).wrapping_add(k);
            }
            let got = u32::from_le_bytes(out[x as usize * 4..x as usize * 4 + 4].try_into().unwrap());
            assert_eq!(got, s, "invocation {x}");
        }
    }
    println!(
        "interp-bench: {invocations} invocations x {n} iterations, {steps} instructions in {:.1} ms (best of 5): {:.1} M instructions/s",
        best * 1e3,
        steps as f64 / best / 1e6
    );
}
