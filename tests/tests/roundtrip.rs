//! Round trips between our assembler and our disassembler, on the corpus:
//!
//! * for every case, x = reference `spirv-as --target-env <asm_env>`; then
//!   `spvlab as --preserve-numeric-ids (spvlab dis --raw-id x)` must give back x, byte for byte;
//! * every module of `ext-probes` assembles with ours, disassembles, and re-assembles to the same
//!   words (equivalent text), OpConstantDataKHR included, which the reference rejects.

use spvlab_core::TargetEnv;
use spvlab_core::text::{AsmOptions, DisOptions, assemble, disassemble};
use spvlab_tests::{Case, cases, corpus_or_skip, reference_or_skip, run_tool, scratch, words_of};
use std::path::Path;

fn raw_ids() -> DisOptions {
    DisOptions { raw_id: true, ..DisOptions::default() }
}

/// Returns None when the round trip of `x` is exact, else a description of the failure.
fn round_trip(x: &[u32], env: TargetEnv) -> Option<String> {
    let text = match disassemble(x, &raw_ids()) {
        Ok(t) => t,
        Err(e) => return Some(format!("disassembly failed: {}", e.message)),
    };
    let opts = AsmOptions { env, preserve_numeric_ids: true };
    match assemble(&text, &opts) {
        Ok(y) if y == x => None,
        Ok(y) => {
            let at = x.iter().zip(&y).position(|(a, b)| a != b).unwrap_or(x.len().min(y.len()));
            Some(format!("words differ at word {at} (lengths {} vs {})", x.len(), y.len()))
        }
        Err(diags) => Some(format!(
            "re-assembly failed: {}",
            diags.iter().map(|d| d.message.as_str()).collect::<Vec<_>>().join("; ")
        )),
    }
}

fn reference_binary(bin: &Path, dir: &Path, i: usize, case: &Case) -> Option<Vec<u32>> {
    let out = dir.join(format!("{i}.spv"));
    let env = case.asm_env();
    let input = case.path.to_string_lossy();
    let out_s = out.to_string_lossy();
    let mut args = vec!["--target-env", env];
    let flags = case.meta_strings("asm_flags");
    args.extend(flags.iter().map(String::as_str));
    args.extend([input.as_ref(), "-o", out_s.as_ref()]);
    let (ok, _, _) = run_tool(bin, "spirv-as", &args);
    if !ok {
        return None;
    }
    std::fs::read(&out).ok().map(|b| words_of(&b))
}

#[test]
fn dis_raw_then_as_preserve_gives_back_the_binary() {
    let Some(corpus) = corpus_or_skip("roundtrip") else { return };
    let Some(bin) = reference_or_skip("roundtrip") else { return };
    let all = cases(&corpus);
    let dir = scratch("roundtrip");
    let threads = 2;
    let chunks: Vec<Vec<(usize, &Case)>> = (0..threads)
        .map(|t| all.iter().enumerate().filter(|(i, _)| i % threads == t).collect())
        .collect();
    let results: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let (bin, dir) = (&bin, &dir);
                s.spawn(move || {
                    let (mut tried, mut exact, mut failures) = (0, 0, Vec::new());
                    for &(i, case) in chunk {
                        let Some(x) = reference_binary(bin, dir, i, case) else { continue };
                        tried += 1;
                        let env = TargetEnv::parse(case.asm_env()).unwrap_or_default();
                        match round_trip(&x, env) {
                            None => exact += 1,
                            Some(why) => failures.push(format!("{}: {why}", case.name)),
                        }
                    }
                    (tried, exact, failures)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let tried: usize = results.iter().map(|r| r.0).sum();
    let exact: usize = results.iter().map(|r| r.1).sum();
    let failures: Vec<&String> = results.iter().flat_map(|r| &r.2).collect();
    println!("round trip exact on {exact}/{tried} binaries");
    for f in failures.iter().take(40) {
        println!("  {f}");
    }
    assert!(tried > 4000, "expected the corpus to assemble with the reference ({tried})");
    assert_eq!(exact, tried, "{} round trips were not exact", failures.len());
}

#[test]
fn ext_probes_round_trip_through_text() {
    let Some(corpus) = corpus_or_skip("ext_probes_round_trip") else { return };
    let dir = corpus.join("ext-probes");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    names.sort();
    assert_eq!(names.len(), 4, "expected the four probes in {}", dir.display());
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let opts = AsmOptions { env: TargetEnv::Spv1_6, preserve_numeric_ids: false };
        let words = assemble(&text, &opts)
            .unwrap_or_else(|d| panic!("{}: {:?}", path.display(), d.iter().map(|d| &d.message).collect::<Vec<_>>()));
        // Friendly-name disassembly re-assembles to the same words: the text is equivalent.
        let dis = disassemble(&words, &DisOptions::default()).unwrap();
        let again = assemble(&dis, &opts).unwrap_or_else(|d| panic!("{}: {d:?}\n{dis}", path.display()));
        assert_eq!(again, words, "{}:\n{dis}", path.display());
        // And the raw-id form round-trips exactly with preserved ids.
        assert_eq!(round_trip(&words, TargetEnv::Spv1_6), None, "{}", path.display());
        if path.file_name().unwrap() == "constdata.spvasm" {
            assert!(dis.contains("OpConstantDataKHR"), "{dis}");
        }
    }
}
