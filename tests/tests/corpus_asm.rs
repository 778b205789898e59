//! The assembler against the reference spirv-as on every corpus case, with and
//! without `--preserve-numeric-ids`: where the reference accepts, our words must be
//! identical; where it rejects, we must reject too.

use spvlab_core::TargetEnv;
use spvlab_core::text::asm::{AsmOptions, assemble};
use spvlab_tests::{Case, cases, corpus_or_skip, reference_or_skip, run_tool, scratch, words_of};
use std::path::Path;
use std::sync::Mutex;

#[derive(Default)]
struct Tally {
    accepted: usize,
    identical: usize,
    rejected: usize,
    rejected_agree: usize,
    failures: Vec<String>,
}

/// The name of the instruction holding word `at` of a module, for messages.
fn instruction_at(words: &[u32], at: usize) -> String {
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        let op = (words[i] & 0xffff) as u16;
        if at < i + n.max(1) {
            let name = spvlab_core::grammar::instruction(op).map_or("?", |d| d.name);
            return format!("{name} at word {i}");
        }
        i += n.max(1);
    }
    String::from("header")
}

pub fn first_difference(ours: &[u32], theirs: &[u32]) -> String {
    let n = ours.len().min(theirs.len());
    match (0..n).find(|&i| ours[i] != theirs[i]) {
        Some(i) => format!(
            "word {i}: ours {:#010x}, reference {:#010x} (in {})",
            ours[i],
            theirs[i],
            instruction_at(theirs, i)
        ),
        None => format!("lengths differ: ours {} words, reference {}", ours.len(), theirs.len()),
    }
}

fn check_case(bin: &Path, dir: &Path, idx: usize, case: &Case, preserve: bool, tally: &Mutex<Tally>) {
    let out = dir.join(format!("{idx}-{}.spv", preserve as u8));
    let path = case.path.to_string_lossy().into_owned();
    let out_s = out.to_string_lossy().into_owned();
    let mut args: Vec<String> = vec!["--target-env".into(), case.asm_env().into()];
    args.extend(case.meta_strings("asm_flags"));
    if preserve && !args.iter().any(|a| a == "--preserve-numeric-ids") {
        args.push("--preserve-numeric-ids".into());
    }
    args.push(path);
    args.push("-o".into());
    args.push(out_s);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, _, err) = run_tool(bin, "spirv-as", &argv);
    let env = TargetEnv::parse(case.asm_env()).expect("known asm_env");
    let opts = AsmOptions {
        env,
        preserve_numeric_ids: preserve || case.meta_strings("asm_flags").iter().any(|f| f == "--preserve-numeric-ids"),
    };
    let ours = assemble(&case.text, &opts);
    let mut t = tally.lock().unwrap();
    let tag = if preserve { " [preserve]" } else { "" };
    if ok {
        t.accepted += 1;
        let theirs = words_of(&std::fs::read(&out).expect("reference output"));
        let _ = std::fs::remove_file(&out);
        match ours {
            Ok(w) if w == theirs => t.identical += 1,
            Ok(w) => {
                let msg = format!("{}{tag}: {}", case.name, first_difference(&w, &theirs));
                t.failures.push(msg);
            }
            Err(e) => {
                let msg = format!("{}{tag}: reference accepts, we reject: {} ({})", case.name, e[0].message, e[0].code);
                t.failures.push(msg);
            }
        }
    } else {
        t.rejected += 1;
        match ours {
            Err(_) => t.rejected_agree += 1,
            Ok(_) => {
                let msg = format!("{}{tag}: reference rejects ({}), we accept", case.name, err.trim());
                t.failures.push(msg);
            }
        }
    }
}

fn run(preserve: bool, test: &str) {
    let Some(corpus) = corpus_or_skip(test) else { return };
    let Some(bin) = reference_or_skip(test) else { return };
    let all = cases(&corpus);
    assert!(!all.is_empty(), "no corpus cases found");
    let dir = scratch(test);
    let tally = Mutex::new(Tally::default());
    let threads = 2;
    std::thread::scope(|s| {
        for k in 0..threads {
            let (all, bin, dir, tally) = (&all, &bin, &dir, &tally);
            s.spawn(move || {
                for (i, case) in all.iter().enumerate().skip(k).step_by(threads) {
                    check_case(bin, dir, i, case, preserve, tally);
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    println!(
        "{test}: {} cases; reference accepts {}, identical {} ({:.2}%); reference rejects {}, we reject {} ({:.2}%)",
        all.len(),
        t.accepted,
        t.identical,
        100.0 * t.identical as f64 / t.accepted.max(1) as f64,
        t.rejected,
        t.rejected_agree,
        100.0 * t.rejected_agree as f64 / t.rejected.max(1) as f64,
    );
    for f in t.failures.iter().take(40) {
        println!("MISMATCH {f}");
    }
    assert!(t.failures.is_empty(), "{} mismatches (first: {})", t.failures.len(), t.failures[0]);
    assert!(t.accepted > 4000, "the reference accepted only {} cases", t.accepted);
}

#[test]
fn corpus_identical_to_spirv_as() {
    run(false, "corpus_identical_to_spirv_as");
}

#[test]
fn corpus_identical_to_spirv_as_preserving_numeric_ids() {
    run(true, "corpus_identical_to_spirv_as_preserving_numeric_ids");
}

/// The four extension probes: the three the reference knows are identical; the
/// constant-data one is checked against SPV_KHR_constant_data by hand.
#[test]
fn ext_probes() {
    let test = "ext_probes";
    let Some(corpus) = corpus_or_skip(test) else { return };
    let Some(bin) = reference_or_skip(test) else { return };
    let dir = scratch(test);
    let probes = corpus.join("ext-probes");
    let opts = AsmOptions { env: TargetEnv::Spv1_6, preserve_numeric_ids: false };
    for name in ["untyped.spvasm", "vla.spvasm", "loopctl.spvasm"] {
        let path = probes.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let out = dir.join(format!("{name}.spv"));
        let (ok, _, err) = run_tool(
            &bin,
            "spirv-as",
            &["--target-env", "spv1.6", path.to_str().unwrap(), "-o", out.to_str().unwrap()],
        );
        assert!(ok, "reference rejects {name}: {err}");
        let theirs = words_of(&std::fs::read(&out).unwrap());
        let ours = assemble(&text, &opts).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(ours, theirs, "{name}: {}", first_difference(&ours, &theirs));
        println!("ext probe {name}: identical ({} words)", ours.len());
    }
    // constdata.spvasm: the reference v2025.5 does not know SPV_KHR_constant_data.
    let text = std::fs::read_to_string(probes.join("constdata.spvasm")).unwrap();
    let (ok, _, _) = run_tool(&bin, "spirv-as", &[probes.join("constdata.spvasm").to_str().unwrap(), "-o", dir.join("cd.spv").to_str().unwrap()]);
    assert!(!ok, "the reference is expected not to know OpConstantDataKHR");
    let w = assemble(&text, &opts).unwrap_or_else(|e| panic!("constdata: {e:?}"));
    // Walk to the OpConstantDataKHR instruction (opcode 5147 per the extension spec).
    let mut i = 5;
    let mut found = None;
    while i < w.len() {
        let n = (w[i] >> 16) as usize;
        if w[i] & 0xffff == 5147 {
            found = Some(&w[i..i + n]);
        }
        assert!(n > 0);
        i += n;
    }
    let inst = found.expect("an OpConstantDataKHR instruction");
    // "%cd = OpConstantDataKHR %arr 1 2 3 4": ids in order of appearance are
    // %uint=1, %c4=2, %arr=3, %cd=4; word count 4 + 4 data words = 7 words:
    // opcode word, Result Type, Result <id>, then the literal data words.
    assert_eq!(inst, [7 << 16 | 5147, 3, 4, 1, 2, 3, 4]);
    // The capability ConstantDataKHR is 5146 in the spec.
    assert!(w.windows(2).any(|p| p == [2 << 16 | 17, 5146]), "OpCapability ConstantDataKHR");
    println!("ext probe constdata.spvasm: OpConstantDataKHR words {inst:x?}");
}

/// Timing against the reference on a large module (all corpus cases concatenated,
/// ids renamed apart, until 6 MB). Prints the ratio; asserts only identity.
/// Run with `cargo test --release -p spvlab-tests --test corpus_asm -- --ignored --nocapture`.
#[test]
#[ignore]
fn large_module_timing() {
    let test = "large_module_timing";
    let Some(corpus) = corpus_or_skip(test) else { return };
    let Some(bin) = reference_or_skip(test) else { return };
    let mut big = String::new();
    for (k, case) in cases(&corpus).iter().enumerate() {
        if case.asm_env() != "spv1.0" {
            continue;
        }
        let mut out = String::with_capacity(case.text.len() + 1024);
        let mut in_string = false;
        let b = case.text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c == b'"' && (i == 0 || b[i - 1] != b'\\') {
                in_string = !in_string;
            }
            if c == b';' && !in_string {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            out.push(c as char);
            if c == b'%' && !in_string {
                out.push_str(&format!("c{k}_"));
            }
            i += 1;
        }
        if !out.is_ascii() {
            continue;
        }
        big.push_str(&out);
        big.push('\n');
        if big.len() > 6 << 20 {
            break;
        }
    }
    let dir = scratch(test);
    let p = dir.join("big.spvasm");
    std::fs::write(&p, &big).unwrap();
    let o = dir.join("big.spv");
    let mut ref_best = f64::MAX;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let (ok, _, err) = run_tool(&bin, "spirv-as", &["--target-env", "spv1.0", p.to_str().unwrap(), "-o", o.to_str().unwrap()]);
        ref_best = ref_best.min(t.elapsed().as_secs_f64());
        assert!(ok, "{err}");
    }
    let theirs = words_of(&std::fs::read(&o).unwrap());
    let opts = AsmOptions { env: TargetEnv::Spv1_0, preserve_numeric_ids: false };
    let mut ours_best = f64::MAX;
    let mut ours = Vec::new();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let text = std::fs::read_to_string(&p).unwrap();
        ours = assemble(&text, &opts).unwrap();
        ours_best = ours_best.min(t.elapsed().as_secs_f64());
    }
    assert_eq!(ours, theirs, "{}", first_difference(&ours, &theirs));
    println!(
        "{test}: {:.1} MB, {} words; spirv-as {:.1} ms, ours {:.1} ms (ratio {:.3})",
        big.len() as f64 / 1e6,
        ours.len(),
        ref_best * 1e3,
        ours_best * 1e3,
        ours_best / ref_best
    );
}
