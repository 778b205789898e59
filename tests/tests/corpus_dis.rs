//! The disassembler against the reference spirv-dis v2025.5 on the whole corpus.
//!
//! Each case is assembled with the reference spirv-as (`--target-env <asm_env>`),
//! then disassembled by the reference spirv-dis and by us, with default flags and
//! with `--raw-id`; the texts must be identical for at least 99% of the cases.

use spvlab_core::text::dis::{DisOptions, disassemble_bytes};
use spvlab_tests::{cases, corpus_or_skip, reference_or_skip, run_tool, scratch};
use std::path::{Path, PathBuf};

struct Job {
    name: String,
    path: PathBuf,
    env: String,
    flags: Vec<String>,
}

#[derive(Default)]
struct Outcome {
    assembled: usize,
    same_default: usize,
    same_raw: usize,
    /// Runs where the reference spirv-dis refused the binary (we still print it).
    ref_refused: Vec<String>,
    mismatches: Vec<String>,
}

fn first_diff(expected: &str, got: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let n = e.len().max(g.len());
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..n {
        let a = e.get(i).copied().unwrap_or("<none>");
        let b = g.get(i).copied().unwrap_or("<none>");
        if a != b {
            out.push_str(&format!("    line {}:\n      ref: {a}\n      our: {b}\n", i + 1));
            shown += 1;
            if shown == 3 {
                break;
            }
        }
    }
    out
}

fn run_jobs(bin: &Path, dir: &Path, jobs: &[Job], tag: usize) -> Outcome {
    let mut o = Outcome::default();
    for (k, job) in jobs.iter().enumerate() {
        let spv = dir.join(format!("{tag}-{k}.spv"));
        let spv_s = spv.to_str().unwrap();
        let mut args: Vec<&str> = vec!["--target-env", &job.env];
        args.extend(job.flags.iter().map(String::as_str));
        args.extend([job.path.to_str().unwrap(), "-o", spv_s]);
        let (ok, _, _) = run_tool(bin, "spirv-as", &args);
        if !ok {
            continue;
        }
        let bytes = std::fs::read(&spv).unwrap();
        o.assembled += 1;
        for raw in [false, true] {
            let mut dargs = vec!["--no-color"];
            if raw {
                dargs.push("--raw-id");
            }
            dargs.push(spv_s);
            let (dok, out, err) = run_tool(bin, "spirv-dis", &dargs);
            let opts = DisOptions { raw_id: raw, ..DisOptions::default() };
            let ours = disassemble_bytes(&bytes, &opts);
            let expected = String::from_utf8_lossy(&out).into_owned();
            if !dok {
                // Not comparable: the reference prints nothing. We must still print.
                assert!(ours.is_ok(), "{}: we failed where only operands are wrong", job.name);
                o.ref_refused.push(format!("  {} ({}): {}", job.name, if raw { "--raw-id" } else { "default" }, err.trim()));
                continue;
            }
            let same = match (&ours, dok) {
                (Ok(t), true) => *t == expected,
                _ => false,
            };
            if same {
                if raw {
                    o.same_raw += 1;
                } else {
                    o.same_default += 1;
                }
            } else {
                let detail = match (&ours, dok) {
                    (Ok(t), true) => first_diff(&expected, t),
                    (Err(d), _) => format!("    ours failed: {}\n", d.message),
                    (Ok(_), false) => format!("    reference failed: {err}\n"),
                };
                o.mismatches.push(format!(
                    "  {} ({}):\n{detail}",
                    job.name,
                    if raw { "--raw-id" } else { "default" }
                ));
            }
        }
        let _ = std::fs::remove_file(&spv);
    }
    o
}

fn run_parallel(bin: &Path, dir: &Path, jobs: Vec<Job>) -> Outcome {
    let threads = 2usize;
    let chunk = jobs.len().div_ceil(threads).max(1);
    let mut total = Outcome::default();
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .enumerate()
            .map(|(t, c)| s.spawn(move || run_jobs(bin, dir, c, t)))
            .collect();
        for h in handles {
            let o = h.join().unwrap();
            total.assembled += o.assembled;
            total.same_default += o.same_default;
            total.same_raw += o.same_raw;
            total.mismatches.extend(o.mismatches);
            total.ref_refused.extend(o.ref_refused);
        }
    });
    total
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 { 100.0 } else { 100.0 * a as f64 / b as f64 }
}

#[test]
fn corpus_disassembly_matches_spirv_dis() {
    let Some(corpus) = corpus_or_skip("corpus_disassembly_matches_spirv_dis") else { return };
    let Some(bin) = reference_or_skip("corpus_disassembly_matches_spirv_dis") else { return };
    let dir = scratch("corpus_dis");
    let jobs: Vec<Job> = cases(&corpus)
        .into_iter()
        .map(|c| Job {
            env: c.asm_env().to_string(),
            flags: c.meta_strings("asm_flags"),
            name: c.name.clone(),
            path: c.path.clone(),
        })
        .collect();
    let n = jobs.len();
    let o = run_parallel(&bin, &dir, jobs);
    let refused_def = o.ref_refused.iter().filter(|l| l.contains("(default)")).count();
    let refused_raw = o.ref_refused.len() - refused_def;
    let (nd, nr) = (o.assembled - refused_def, o.assembled - refused_raw);
    let d = pct(o.same_default, nd);
    let r = pct(o.same_raw, nr);
    println!(
        "corpus_dis: {} cases, {} assembled by the reference; identical: default {}/{nd} ({d:.2}%), --raw-id {}/{nr} ({r:.2}%)",
        n, o.assembled, o.same_default, o.same_raw
    );
    if !o.ref_refused.is_empty() {
        println!("the reference spirv-dis refused ({}), not counted:", o.ref_refused.len());
        for l in &o.ref_refused {
            println!("{l}");
        }
    }
    if !o.mismatches.is_empty() {
        println!("mismatches ({}):", o.mismatches.len());
        for m in o.mismatches.iter().take(40) {
            print!("{m}");
        }
    }
    assert!(o.assembled > n / 2, "too few cases assembled: {}", o.assembled);
    assert!(d >= 99.0, "default flags: only {d:.2}% identical");
    assert!(r >= 99.0, "--raw-id: only {r:.2}% identical");
}

#[test]
fn ext_probes_match_spirv_dis() {
    let Some(corpus) = corpus_or_skip("ext_probes_match_spirv_dis") else { return };
    let Some(bin) = reference_or_skip("ext_probes_match_spirv_dis") else { return };
    let dir = scratch("corpus_dis_probes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("ext-probes"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("spvasm"))
        .collect();
    files.sort();
    let jobs: Vec<Job> = files
        .into_iter()
        .map(|p| Job {
            name: p.file_name().unwrap().to_string_lossy().into_owned(),
            path: p,
            env: "spv1.6".into(),
            flags: vec![],
        })
        .collect();
    let n = jobs.len();
    let o = run_jobs(&bin, &dir, &jobs, 0);
    println!(
        "ext-probes: {n} files, {} assembled by the reference; identical: default {}, --raw-id {}",
        o.assembled, o.same_default, o.same_raw
    );
    for m in &o.mismatches {
        print!("{m}");
    }
    assert!(o.assembled >= 3, "the reference should assemble at least 3 probes");
    assert_eq!(o.same_default, o.assembled, "default flags mismatches");
    assert_eq!(o.same_raw, o.assembled, "--raw-id mismatches");
}
