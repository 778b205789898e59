//! Library-level timing of `assemble` and `disassemble` on the big module
//! (`cargo bench -p spvlab-fuzz --bench codec`; harness = false).
//!
//! Inputs: `$SPVLAB_BENCH_TEXT` (else `target/bench/big.spvasm`, else generated
//! in-process by gen-big's generator) and `$SPVLAB_BENCH_BINARY` (else
//! `target/bench/big.spv`, made by the reference spirv-as in bench/run.sh; else
//! our own assembler's output). `$BENCH_RUNS` sets N (best of N, default 10).
//! Writes the results to `target/bench/native.json` for the wasm comparison.

#![allow(clippy::result_large_err)] // the Err type is core's Diagnostic

use spvlab_core::text::{AsmOptions, DisOptions, assemble, disassemble};
use spvlab_fuzz::input::{fnv64, words_of};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let r = black_box(f());
        best = best.min(t.elapsed());
        last = Some(r);
    }
    (best, last.expect("at least one run"))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let root = spvlab_fuzz::seeds::root();
    let dir = root.join("target/bench");
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let text_path = std::env::var_os("SPVLAB_BENCH_TEXT")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("big.spvasm"));
    let text = std::fs::read_to_string(&text_path).unwrap_or_else(|_| {
        eprintln!(
            "codec bench: {} not found, generating the module in-process",
            text_path.display()
        );
        spvlab_fuzz::r#gen::big_module(1, 6_000_000)
    });
    let opts = AsmOptions::default();
    let (t_asm, asm) = best_of(runs, || assemble(&text, &opts));
    let bin_path = std::env::var_os("SPVLAB_BENCH_BINARY")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.join("big.spv"));
    let words = match std::fs::read(&bin_path) {
        Ok(b) => words_of(&b),
        Err(_) => asm.clone().unwrap_or_default(),
    };
    let dopts = DisOptions::default();
    let (t_dis, dis) = best_of(runs, || disassemble(&words, &dopts));

    let mb = text.len() as f64 / 1e6;
    println!(
        "spvlab library timings, best of {runs} (text {:.2} MB, binary {:.2} MB):",
        mb,
        words.len() as f64 * 4.0 / 1e6
    );
    let asm_hash = asm
        .as_ref()
        .ok()
        .map(|w| fnv64(&spvlab_fuzz::input::bytes_of(w)));
    let dis_hash = dis.as_ref().ok().map(|t| fnv64(t.as_bytes()));
    match &asm {
        Ok(w) => println!(
            "  assemble    {:9.2} ms  ({:.1} MB/s of text, {} words)",
            ms(t_asm),
            mb / t_asm.as_secs_f64(),
            w.len()
        ),
        Err(d) => println!(
            "  assemble    {:9.2} ms  FAILED [{}] {} (spvlab numbers pending)",
            ms(t_asm),
            d.first().map_or("", |d| d.code),
            d.first().map_or("", |d| d.message.as_str())
        ),
    }
    match &dis {
        Ok(t) => println!(
            "  disassemble {:9.2} ms  ({:.1} MB/s of text out)",
            ms(t_dis),
            t.len() as f64 / 1e6 / t_dis.as_secs_f64()
        ),
        Err(d) => println!(
            "  disassemble {:9.2} ms  FAILED [{}] {} (spvlab numbers pending)",
            ms(t_dis),
            d.code,
            d.message
        ),
    }
    let hex = |h: Option<u64>| h.map_or("null".to_string(), |h| format!("\"{h:016x}\""));
    let json = format!(
        "{{\"runs\": {runs}, \"text_bytes\": {}, \"binary_words\": {}, \"assemble_ms\": {:.4}, \"assemble_ok\": {}, \"assemble_fnv\": {}, \"disassemble_ms\": {:.4}, \"disassemble_ok\": {}, \"disassemble_fnv\": {}}}\n",
        text.len(),
        words.len(),
        ms(t_asm),
        asm.is_ok(),
        hex(asm_hash),
        ms(t_dis),
        dis.is_ok(),
        hex(dis_hash)
    );
    let _ = std::fs::create_dir_all(&dir);
    match std::fs::write(dir.join("native.json"), json) {
        Ok(()) => println!("  (written to {})", dir.join("native.json").display()),
        Err(e) => eprintln!("codec bench: cannot write native.json: {e}"),
    }
}
