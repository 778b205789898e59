//! Fleshing's raw speed, one thread: random structured CFGs generated
//! (`flesh::generate`, with and without the paper's knobs) and fleshed
//! (`flesh::flesh`, basic mode), per second; no validation, no run.
//!
//! `cargo run --release -p spvlab-tests --example flesh_bench -- [N] [BLOCKS]`
//! (defaults 100000 and 14); `bench/flesh.sh` runs it.

use spvlab_core::flesh::{self, Config, Knobs, Options};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let blocks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(14);
    for (what, knobs, count) in [("no knobs", Knobs::default(), n), ("the paper's knobs", Knobs::paper(), n / 100)] {
        let cfg = Config { blocks, max_depth: 3, knobs, ..Config::default() };
        let t = Instant::now();
        let (mut total_blocks, mut skeletons) = (0usize, Vec::with_capacity(count as usize));
        for seed in 0..count {
            let (s, _) = flesh::generate(seed, cfg);
            total_blocks += s.blocks.len();
            skeletons.push(s);
        }
        let made = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut fleshed = 0u64;
        for (seed, s) in skeletons.iter().enumerate() {
            if flesh::flesh(s, &Options { seed: seed as u64, ..Options::default() }).is_ok() {
                fleshed += 1;
            }
        }
        let fl = t.elapsed().as_secs_f64();
        println!(
            "{blocks}-block CFGs, {what}: {count} generated in {made:.3} s ({:.0}/s, {:.1} blocks on average); {fleshed} fleshed in {fl:.3} s ({:.0}/s)",
            count as f64 / made,
            total_blocks as f64 / count as f64,
            fleshed as f64 / fl
        );
    }
}
