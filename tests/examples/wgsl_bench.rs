//! The lowering's speed against naga's, on the corpus's valid compute modules
//! (the 844 valid modules marked runnable compute, the
//! "compute" rows of `tests/tests/wgsl_corpus.rs`), in one run (bench/wgsl.sh runs it).
//!
//! Both sides start from the same SPIR-V binary, assembled beforehand:
//! * ours: `binary::read_words_framing` + `Ir::build` (which parses the
//!   operands, once; the lowering refuses what it found wrong) + `cfg::analyze_for_lowering`
//!   (the analysis less what the lowering does not read) + `wgsl::lower`;
//! * naga: `front::spv::parse_u8_slice` + `Validator::validate` +
//!   `back::wgsl::write_string` (what `wgpu-naga` does with a module).
//!
//! Each module is timed `RUNS` times on each side, interleaved, after one
//! warm-up pass over the whole corpus; a module's time is its best run. Prints
//! the median and the total over all modules, and over the modules both
//! sides translate (naga gives up early on more than half of them, which
//! makes its median over all modules look cheaper than its work).
//!
//! `cargo run --release -p spvlab-tests --example wgsl_bench [-- --runs N]`;
//! `-- --loop ours|naga N` runs only one side N times over the corpus (for
//! `perf record` / callgrind; `bench/wgsl-callgrind.sh` counts each module's
//! instructions on both sides that way); `--module SPEC` keeps only the
//! modules at those places among the 844 (`7`, `400-440`, `3,9`); `--list`
//! prints each module's place and name.

use naga::valid::{Capabilities, ValidationFlags, Validator};
use serde_json::Value;
use spvlab_core::ir::Ir;
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::{TargetEnv, binary, cfg, wgsl};
use spvlab_tests::{cases, corpus_dir};
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn caps() -> Capabilities {
    Capabilities::default()
        | Capabilities::SHADER_FLOAT16
        | Capabilities::SHADER_FLOAT16_IN_FLOAT32
        | Capabilities::SUBGROUP
        | Capabilities::SUBGROUP_BARRIER
}

/// Ours, from the binary; whether the lowering gave WGSL.
#[inline(never)]
fn ours(words: &[u32]) -> bool {
    // The operands are parsed once, by Ir::build: the lowering refuses a
    // module whose operands `binary::read_words` would reject (Ir::problems).
    let Ok(module) = binary::read_words_framing(words) else { return false };
    let ir = Ir::build(module);
    let graph = cfg::analyze_for_lowering(&ir);
    let out = wgsl::lower(&ir, &graph, &wgsl::Options::default());
    black_box(&out).is_ok()
}

/// naga's SPIR-V path; a panic counts as a failure.
#[inline(never)]
fn naga(bytes: &[u8]) -> bool {
    std::panic::catch_unwind(|| {
        let opts = naga::front::spv::Options::default();
        let Ok(m) = naga::front::spv::parse_u8_slice(bytes, &opts) else { return false };
        let Ok(info) = Validator::new(ValidationFlags::all(), caps()).validate(&m) else { return false };
        black_box(naga::back::wgsl::write_string(&m, &info, naga::back::wgsl::WriterFlags::empty())).is_ok()
    })
    .unwrap_or(false)
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5usize;
    let mut only: Option<(String, usize)> = None;
    let mut keep: Option<Vec<(usize, usize)>> = None;
    let mut list = false;
    let mut k = 0;
    while k < args.len() {
        match args[k].as_str() {
            "--runs" => {
                runs = args.get(k + 1).and_then(|s| s.parse().ok()).unwrap_or(runs);
                k += 1;
            }
            "--loop" => {
                let side = args.get(k + 1).cloned().unwrap_or_default();
                let n = args.get(k + 2).and_then(|s| s.parse().ok()).unwrap_or(100);
                only = Some((side, n));
                k += 2;
            }
            "--module" => {
                let spec = args.get(k + 1).cloned().unwrap_or_default();
                let ranges: Option<Vec<(usize, usize)>> = spec
                    .split(',')
                    .map(|r| match r.split_once('-') {
                        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
                        None => r.parse().ok().map(|a| (a, a)),
                    })
                    .collect();
                let Some(ranges) = ranges else {
                    eprintln!("wgsl_bench: --module takes places or ranges, as 7, 400-440 or 3,9");
                    std::process::exit(2);
                };
                keep = Some(ranges);
                k += 1;
            }
            "--list" => list = true,
            a => {
                eprintln!("wgsl_bench: unknown argument {a}");
                std::process::exit(2);
            }
        }
        k += 1;
    }
    let Some(corpus) = corpus_dir() else {
        eprintln!("wgsl_bench: corpus not found (set SPVLAB_CORPUS)");
        std::process::exit(2);
    };
    let manifest: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap()).unwrap();
    let valid: HashMap<&str, bool> =
        manifest.iter().filter_map(|e| Some((e["file"].as_str()?, e["valid"].as_bool()?))).collect();
    // (name, words, bytes) of every valid compute module.
    let mut mods: Vec<(String, Vec<u32>, Vec<u8>)> = Vec::new();
    // WGSL_BENCH_FILTER=SUBSTRING: only the modules whose name holds it (profiling one module).
    let filter = std::env::var("WGSL_BENCH_FILTER").ok();
    for case in cases(&corpus) {
        if valid.get(case.name.as_str()) != Some(&true) {
            continue;
        }
        let asm = AsmOptions { env: TargetEnv::parse(case.asm_env()).unwrap_or_default(), preserve_numeric_ids: false };
        // The 844: the modules the corpus marks runnable compute.
        if case.meta_str("runnable") != "compute" {
            continue;
        }
        if filter.as_ref().is_some_and(|f| !case.name.contains(f.as_str())) {
            continue;
        }
        let Ok(words) = assemble(&case.text, &asm) else { continue };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        mods.push((case.name.clone(), words, bytes));
    }
    if list {
        for (place, (name, _, _)) in mods.iter().enumerate() {
            println!("{place}\t{name}");
        }
        return;
    }
    if let Some(ranges) = &keep {
        let mut place = 0;
        mods.retain(|_| {
            place += 1;
            ranges.iter().any(|&(a, b)| (a..=b).contains(&(place - 1)))
        });
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    if let Some((side, n)) = only.as_ref().filter(|o| o.0 == "phases") {
        // Total time of each phase of ours, over n passes.
        let mut t = [Duration::ZERO; 4];
        for _ in 0..*n {
            for (_, words, _) in &mods {
                let t0 = Instant::now();
                let Ok(module) = binary::read_words_framing(words) else { continue };
                let t1 = Instant::now();
                let ir = Ir::build(module);
                let t2 = Instant::now();
                let graph = cfg::analyze_for_lowering(&ir);
                let t3 = Instant::now();
                black_box(wgsl::lower(&ir, &graph, &wgsl::Options::default()).is_ok());
                let t4 = Instant::now();
                for (k, d) in [t1 - t0, t2 - t1, t3 - t2, t4 - t3].into_iter().enumerate() {
                    t[k] += d;
                }
            }
        }
        println!(
            "{side}: read_words {:?}  Ir::build {:?}  cfg::analyze {:?}  wgsl::lower {:?}",
            t[0], t[1], t[2], t[3]
        );
        return;
    }
    if let Some((side, n)) = only {
        let t = Instant::now();
        for _ in 0..n {
            for (_, words, bytes) in &mods {
                if side == "naga" {
                    naga(bytes);
                } else {
                    ours(words);
                }
            }
        }
        println!("{side}: {} passes over {} modules in {:.3} s", n, mods.len(), t.elapsed().as_secs_f64());
        return;
    }
    // Warm-up, and who translates what.
    let ok: Vec<(bool, bool)> = mods.iter().map(|(_, w, b)| (ours(w), naga(b))).collect();
    let (mut to, mut tn) = (Vec::new(), Vec::new());
    for (_, words, bytes) in &mods {
        let (mut bo, mut bn) = (Duration::MAX, Duration::MAX);
        for _ in 0..runs {
            let t0 = Instant::now();
            ours(words);
            let t1 = Instant::now();
            naga(bytes);
            let t2 = Instant::now();
            bo = bo.min(t1 - t0);
            bn = bn.min(t2 - t1);
        }
        to.push(bo);
        tn.push(bn);
    }
    std::panic::set_hook(hook);
    let both: Vec<usize> = (0..mods.len()).filter(|&i| ok[i].0 && ok[i].1).collect();
    let pick = |v: &[Duration], ix: &[usize]| ix.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let all: Vec<usize> = (0..mods.len()).collect();
    println!(
        "modules: {} valid compute; ours translates {}, naga {}, both {}; best of {runs} runs each",
        mods.len(),
        ok.iter().filter(|o| o.0).count(),
        ok.iter().filter(|o| o.1).count(),
        both.len()
    );
    for (label, ix) in [("all", &all), ("both", &both)] {
        let (o, n) = (pick(&to, ix), pick(&tn, ix));
        let (mo, mn) = (median(&o), median(&n));
        let (so, sn): (Duration, Duration) = (o.iter().sum(), n.iter().sum());
        println!(
            "{label:<5} median ours {:8.1} us  naga {:8.1} us  ratio {:.2}x   total ours {:8.1} ms  naga {:8.1} ms  ratio {:.2}x",
            us(mo),
            us(mn),
            us(mo) / us(mn),
            us(so) / 1e3,
            us(sn) / 1e3,
            us(so) / us(sn)
        );
    }
    if std::env::var_os("WGSL_BENCH_SLOWEST").is_some() {
        let mut ix: Vec<usize> = (0..mods.len()).collect();
        ix.sort_by_key(|&i| std::cmp::Reverse(to[i]));
        for &i in ix.iter().take(15) {
            println!("  {:8.1} us ours  {:8.1} us naga  {}", us(to[i]), us(tn[i]), mods[i].0);
        }
        println!("around ours' median:");
        for &i in ix.iter().skip(ix.len() / 2 - 3).take(7) {
            println!("  {:8.1} us ours  {:8.1} us naga  {}", us(to[i]), us(tn[i]), mods[i].0);
        }
    }
}
