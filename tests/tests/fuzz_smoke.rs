//! A short fuzz run (20,000 mutated inputs, fixed seed) through spvlab's reader,
//! assembler and disassembler: no input may panic. The full run is `./x fuzz`
//! (one million inputs); this one keeps every `cargo test` honest.
//!
//! Seeds: the built-in ones always; the corpus texts and their reference binaries
//! (cached in target/fuzz-seeds) when the corpus and the reference tools are there.

use spvlab_fuzz::harness::{Config, run};
use spvlab_fuzz::seeds::{self, SeedOptions};
use spvlab_fuzz::target::Spvlab;

#[test]
fn fuzz_smoke_no_panics() {
    let opts = SeedOptions {
        corpus: spvlab_tests::corpus_dir(),
        reference: spvlab_tests::reference_bin(),
        ..SeedOptions::default()
    };
    if opts.corpus.is_none() {
        eprintln!("fuzz_smoke: corpus not found, fuzzing from the built-in seeds only");
    }
    let seeds = seeds::load(&opts);
    assert!(seeds.inputs.len() >= seeds::builtin().len());
    let dir = spvlab_tests::scratch("fuzz_smoke");
    let cfg = Config {
        iterations: 20_000,
        seed: 0x5eed,
        crash_dir: Some(dir.clone()),
        ..Config::default()
    };
    let report = run(&cfg, &seeds.inputs, &Spvlab::default());
    eprintln!(
        "fuzz_smoke: {} inputs ({} text, {} binary) from {} seeds, {} distinct outcomes",
        report.inputs,
        report.text_inputs,
        report.binary_inputs,
        seeds.inputs.len(),
        report.signatures
    );
    assert_eq!(report.inputs, 20_000 + seeds.inputs.len() as u64);
    assert!(
        report.text_inputs > 5_000 && report.binary_inputs > 5_000,
        "both kinds must be fuzzed"
    );
    let crashes: Vec<String> = report
        .crashes
        .iter()
        .map(|c| {
            format!(
                "{} at {} (input saved to {:?})",
                c.message, c.location, c.path
            )
        })
        .collect();
    assert!(
        crashes.is_empty(),
        "{} inputs panicked:\n{}",
        crashes.len(),
        crashes.join("\n")
    );
}
