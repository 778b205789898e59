//! `spvlab-fuzz [--iterations N] [--seed S] [--time-limit SECS] [--threads T]
//!  [--corpus DIR | --no-corpus] [--no-reference] [--check-roundtrip] [--crash-dir DIR]`
//!
//! Pushes mutated texts and binaries through spvlab's reader, assembler and
//! disassembler; exits 1 if any input panicked (the inputs are in the crash dir).

use spvlab_fuzz::harness::{Config, run};
use spvlab_fuzz::seeds::{self, SeedOptions};
use spvlab_fuzz::target::Spvlab;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str =
    "usage: spvlab-fuzz [--iterations N] [--seed S] [--time-limit SECS] [--threads T]
                   [--corpus DIR | --no-corpus] [--no-reference] [--check-roundtrip]
                   [--crash-dir DIR] [--max-seed-len BYTES] [--quiet]
  --iterations N     mutated inputs to run (default 1000000), over all threads
  --seed S           PRNG seed (default 1); the same seed gives the same inputs
  --time-limit SECS  stop after this many seconds even if N is not reached
  --threads T        worker threads (default 2)
  --corpus DIR       the corpus folder (default $SPVLAB_CORPUS, else ../shared/corpus)
  --no-reference     do not make seed binaries with the reference spirv-as
                     (default: $SPVLAB_SPIRV_TOOLS or .tools/venv, cached in target/fuzz-seeds)
  --check-roundtrip  also require assemble(disassemble --raw-id) == binary
  --crash-dir DIR    where crashing inputs go (default target/fuzz-crashes)";

fn main() -> ExitCode {
    let mut cfg = Config {
        iterations: 1_000_000,
        progress: Some(Duration::from_secs(10)),
        ..Config::default()
    };
    let mut sopts = SeedOptions::default();
    let mut target = Spvlab::default();
    let mut args = std::env::args().skip(1);
    let mut quiet = false;
    while let Some(a) = args.next() {
        let mut val = |name: &str| -> Result<String, String> {
            args.next().ok_or(format!("{name} needs a value"))
        };
        let r: Result<(), String> = (|| {
            match a.as_str() {
                "--iterations" | "-n" => cfg.iterations = parse_num(&val(&a)?)?,
                "--seed" | "-s" => cfg.seed = parse_num(&val(&a)?)?,
                "--time-limit" | "-t" => {
                    let v = val(&a)?;
                    let secs: f64 = v.parse().map_err(|_| format!("bad number `{v}`"))?;
                    cfg.time_limit = Some(Duration::from_secs_f64(secs.max(0.0)));
                }
                "--threads" | "-j" => cfg.threads = parse_num(&val(&a)?)?.max(1) as usize,
                "--corpus" => sopts.corpus = Some(PathBuf::from(val(&a)?)),
                "--no-corpus" => sopts.corpus = None,
                "--no-reference" => sopts.reference = None,
                "--check-roundtrip" => target.check_roundtrip = true,
                "--crash-dir" => cfg.crash_dir = Some(PathBuf::from(val(&a)?)),
                "--max-seed-len" => sopts.max_text_len = parse_num(&val(&a)?)? as usize,
                "--quiet" | "-q" => quiet = true,
                "-h" | "--help" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                _ => return Err(format!("unknown argument `{a}`")),
            }
            Ok(())
        })();
        if let Err(e) = r {
            eprintln!("spvlab-fuzz: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    if quiet {
        cfg.progress = None;
    }

    let t0 = Instant::now();
    let seeds = seeds::load(&sopts);
    println!(
        "spvlab-fuzz: {} seeds ({} corpus texts from {}, {} reference binaries{}) in {:.1}s",
        seeds.inputs.len(),
        seeds.corpus_texts,
        sopts
            .corpus
            .as_ref()
            .map_or("nowhere".into(), |c| c.display().to_string()),
        seeds.reference_binaries,
        if sopts.reference.is_none() {
            ", reference spirv-as not found"
        } else {
            ""
        },
        t0.elapsed().as_secs_f64()
    );
    println!(
        "spvlab-fuzz: seed {}, {} iterations{}, {} threads",
        cfg.seed,
        cfg.iterations,
        cfg.time_limit.map_or(String::new(), |t| format!(
            ", time limit {}s",
            t.as_secs_f64()
        )),
        cfg.threads
    );
    let report = run(&cfg, &seeds.inputs, &target);
    println!(
        "spvlab-fuzz: {} inputs ({} text, {} binary, {:.1} MB) in {:.2}s: {:.0} inputs/s, {} distinct outcomes, {} crashes",
        report.inputs,
        report.text_inputs,
        report.binary_inputs,
        report.bytes as f64 / 1e6,
        report.elapsed.as_secs_f64(),
        report.inputs_per_sec(),
        report.signatures,
        report.crashes.len()
    );
    println!(
        "spvlab-fuzz: {} valid modules ran in the interpreter (step budget 2,000 per invocation), {} runs finished without a run error",
        spvlab_fuzz::target::INTERP_MODULES.load(std::sync::atomic::Ordering::Relaxed),
        spvlab_fuzz::target::INTERP_FINISHED.load(std::sync::atomic::Ordering::Relaxed)
    );
    if report.crashes.is_empty() {
        ExitCode::SUCCESS
    } else {
        for c in &report.crashes {
            println!(
                "CRASH at {}: {}{}",
                c.location,
                c.message,
                c.path
                    .as_ref()
                    .map_or(String::new(), |p| format!(" (input: {})", p.display()))
            );
        }
        ExitCode::FAILURE
    }
}

fn parse_num(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.replace('_', "").parse(),
    };
    r.map_err(|_| format!("bad number `{s}`"))
}
