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

const VARIANTS: [&str; 3] = ["default", "--raw-id", "--no-header --no-indent"];

#[derive(Default)]
struct Outcome {
    assembled: usize,
    /// Per variant: runs compared, identical runs, runs the reference refused.
    compared: [usize; 3],
    same: [usize; 3],
    ref_refused: [usize; 3],
    refused_lines: Vec<String>,
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
            out.push_str(&format!(
                "    line {}:\n      ref: {a}\n      our: {b}\n",
                i + 1
            ));
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
        // Every 10th case is also compared with `--no-header --no-indent`.
        let variants: &[usize] = if k % 10 == 0 { &[0, 1, 2] } else { &[0, 1] };
        for &variant in variants {
            let label = VARIANTS[variant];
            let mut dargs = vec!["--no-color"];
            let opts = match variant {
                0 => DisOptions::default(),
                1 => {
                    dargs.push("--raw-id");
                    DisOptions { raw_id: true, ..DisOptions::default() }
                }
                _ => {
                    dargs.extend(["--no-header", "--no-indent"]);
                    DisOptions { raw_id: false, header: false, indent: false }
                }
            };
            dargs.push(spv_s);
            let (dok, out, err) = run_tool(bin, "spirv-dis", &dargs);
            let ours = disassemble_bytes(&bytes, &opts);
            if !dok {
                // Not comparable: the reference prints nothing. We must still print.
                assert!(ours.is_ok(), "{}: we failed where only operands are wrong", job.name);
                o.ref_refused[variant] += 1;
                o.refused_lines.push(format!("  {} ({label}): {}", job.name, err.trim()));
                continue;
            }
            o.compared[variant] += 1;
            let expected = String::from_utf8_lossy(&out).into_owned();
            match &ours {
                Ok(t) if *t == expected => o.same[variant] += 1,
                Ok(t) => o
                    .mismatches
                    .push(format!("  {} ({label}):\n{}", job.name, first_diff(&expected, t))),
                Err(d) => o
                    .mismatches
                    .push(format!("  {} ({label}):\n    ours failed: {}\n", job.name, d.message)),
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
            for v in 0..3 {
                total.compared[v] += o.compared[v];
                total.same[v] += o.same[v];
                total.ref_refused[v] += o.ref_refused[v];
            }
            total.refused_lines.extend(o.refused_lines);
            total.mismatches.extend(o.mismatches);
        }
    });
    total
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

#[test]
fn corpus_disassembly_matches_spirv_dis() {
    let Some(corpus) = corpus_or_skip("corpus_disassembly_matches_spirv_dis") else {
        return;
    };
    let Some(bin) = reference_or_skip("corpus_disassembly_matches_spirv_dis") else {
        return;
    };
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
    println!("corpus_dis: {n} cases, {} assembled by the reference", o.assembled);
    let mut pcts = [0.0; 3];
    for v in 0..3 {
        pcts[v] = pct(o.same[v], o.compared[v]);
        println!(
            "  {:<24} identical {}/{} ({:.2}%), reference refused {}",
            VARIANTS[v], o.same[v], o.compared[v], pcts[v], o.ref_refused[v]
        );
    }
    if !o.refused_lines.is_empty() {
        println!("the reference spirv-dis refused (not counted; we print these):");
        for l in &o.refused_lines {
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
    assert!(o.compared[2] > 0);
    for v in 0..3 {
        assert!(pcts[v] >= 99.0, "{}: only {:.2}% identical", VARIANTS[v], pcts[v]);
    }
}

#[test]
fn ext_probes_match_spirv_dis() {
    let Some(corpus) = corpus_or_skip("ext_probes_match_spirv_dis") else {
        return;
    };
    let Some(bin) = reference_or_skip("ext_probes_match_spirv_dis") else {
        return;
    };
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
        "ext-probes: {n} files, {} assembled by the reference; identical: default {}/{}, --raw-id {}/{}",
        o.assembled, o.same[0], o.compared[0], o.same[1], o.compared[1]
    );
    for m in &o.mismatches {
        print!("{m}");
    }
    assert!(
        o.assembled >= 3,
        "the reference should assemble at least 3 probes"
    );
    assert_eq!(o.compared[0], o.assembled, "the reference refused a probe");
    assert_eq!(o.same[0], o.compared[0], "default flags mismatches");
    assert_eq!(o.same[1], o.compared[1], "--raw-id mismatches");
    assert_eq!(o.same[2], o.compared[2], "--no-header --no-indent mismatches");
}

/// A module using many operand shapes: strings, masks with parameters, 64-bit
/// and 16-bit literals, OpSwitch, OpExtInst, OpSpecConstantOp, decorations.
const RICH: &str = r#"OpCapability Shader
OpCapability Int64
OpCapability Float16
OpCapability Float64
OpCapability Linkage
OpExtension "SPV_KHR_non_semantic_info"
%glsl = OpExtInstImport "GLSL.std.450"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
%other = OpExtInstImport "NonSemantic.Some.Set"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 8 4 1
OpSource GLSL 450 %file "void main() {}"
OpName %main "main"
OpName %v1 "a b"
OpName %v2 "a_b"
OpMemberName %st 0 "field"
OpDecorate %st Block
OpDecorate %gid BuiltIn GlobalInvocationId
OpMemberDecorate %st 0 Offset 0
OpDecorate %sc SpecId 3
OpDecorate %arr ArrayStride 16
%file = OpString "file \"q\" \\.comp"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%long = OpTypeInt 64 1
%float = OpTypeFloat 32
%half = OpTypeFloat 16
%double = OpTypeFloat 64
%v3uint = OpTypeVector %uint 3
%pin = OpTypePointer Input %v3uint
%gid = OpVariable %pin Input
%v1 = OpConstant %uint 6
%v2 = OpConstant %int -7
%c4 = OpConstant %uint 4
%l1 = OpConstant %long -5000000000
%f1 = OpConstant %float 0.1
%f2 = OpConstant %float 1e-40
%h1 = OpConstant %half 0.5
%d1 = OpConstant %double 1e300
%sc = OpSpecConstant %uint 9
%arr = OpTypeArray %float %c4
%st = OpTypeStruct %arr %uint
%pst = OpTypePointer StorageBuffer %st
%ptrf = OpTypePointer Function %float
%true = OpConstantTrue %bool
%sop = OpSpecConstantOp %uint IAdd %v1 %sc
%dsrc = OpExtInst %void %dbg DebugSource %file
%oth = OpExtInst %void %other 12 %file %v1
%main = OpFunction %void None %fn
%lab = OpLabel
%var = OpVariable %ptrf Function
OpStore %var %f1 Volatile|Aligned 4
%ld = OpLoad %float %var Aligned|Nontemporal 8
OpCopyMemory %var %var Aligned 4 Volatile
%x = OpExtInst %float %glsl FAbs %ld
%y = OpFAdd %float %x %x
%w = OpSConvert %long %v2
OpSelectionMerge %merge None
OpSwitch %w %merge 1 %merge 5000000000 %other_label
%other_label = OpLabel
OpLoopMerge %merge %other_label Unroll|DependencyLength 4
OpBranch %merge
%merge = OpLabel
%phi = OpPhi %uint %v1 %lab %c4 %other_label
OpReturn
OpFunctionEnd
"#;

fn assemble_with_reference(bin: &Path, dir: &Path, text: &str, env: &str) -> Vec<u8> {
    let src = dir.join("m.spvasm");
    let out = dir.join("m.spv");
    std::fs::write(&src, text).unwrap();
    let (ok, _, err) = run_tool(
        bin,
        "spirv-as",
        &[
            "--target-env",
            env,
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert!(ok, "reference spirv-as failed: {err}");
    std::fs::read(&out).unwrap()
}

const FRAMING_CODES: &[&str] = &[
    "bin.byte-length",
    "bin.truncated-header",
    "bin.bad-magic",
    "bin.bad-version",
    "bin.zero-word-count",
    "bin.truncated-instruction",
];

fn check_no_panic(words: &[u32]) {
    let _ = spvlab_core::binary::read_words(words);
    for raw in [false, true] {
        let opts = DisOptions {
            raw_id: raw,
            ..DisOptions::default()
        };
        if let Err(d) = spvlab_core::text::dis::disassemble(words, &opts) {
            assert!(
                FRAMING_CODES.contains(&d.code),
                "dis failed with {}",
                d.code
            );
        }
    }
}

/// Instruction start offsets of a well-formed word stream.
fn boundaries(words: &[u32]) -> Vec<usize> {
    let mut out = vec![5];
    let mut at = 5;
    while at < words.len() {
        at += (words[at] >> 16) as usize;
        out.push(at);
    }
    out
}

#[test]
fn truncations_and_corruptions_never_panic() {
    let Some(bin) = reference_or_skip("truncations_and_corruptions_never_panic") else {
        return;
    };
    let dir = scratch("corpus_dis_robust");
    let bytes = assemble_with_reference(&bin, &dir, RICH, "spv1.3");
    let words = spvlab_tests::words_of(&bytes);
    let m = spvlab_core::binary::read_words(&words).expect("the reference's module reads");
    assert_eq!(
        spvlab_core::binary::write_words(&m),
        words,
        "the writer round-trips"
    );
    assert_eq!(spvlab_core::binary::to_bytes(&m), bytes);

    // Every byte prefix.
    let bounds = boundaries(&words);
    for cut in 0..bytes.len() {
        let r = spvlab_core::binary::read_bytes(&bytes[..cut]);
        let d = disassemble_bytes(&bytes[..cut], &DisOptions::default());
        let whole = cut % 4 == 0 && cut >= 20 && bounds.contains(&(cut / 4));
        assert_eq!(r.is_ok(), whole, "read_bytes of a {cut}-byte prefix");
        assert_eq!(d.is_ok(), whole, "disassembly of a {cut}-byte prefix");
        if cut % 4 == 0 {
            check_no_panic(&words[..cut / 4]);
        }
    }

    // Random single-word corruptions (deterministic xorshift).
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut corrupted = 0;
    for _ in 0..4000 {
        let mut w = words.clone();
        let i = (next() % w.len() as u64) as usize;
        let r = next();
        w[i] = match r % 6 {
            0 => r as u32 ^ (r >> 32) as u32,
            1 => w[i] ^ (1 << ((r >> 8) % 32)),
            2 => 0,
            3 => u32::MAX,
            4 => (r >> 8) as u32 % 300,
            _ => ((((r >> 8) % 8) as u32) << 16) | ((r >> 16) as u32 % 400),
        };
        if w[i] != words[i] {
            corrupted += 1;
        }
        check_no_panic(&w);
        let mut b = Vec::new();
        for x in &w {
            b.extend_from_slice(&x.to_be_bytes());
        }
        let _ = spvlab_core::binary::read_bytes(&b);
    }
    assert!(corrupted > 3000);
}

#[test]
fn both_byte_orders_disassemble_the_same() {
    let Some(bin) = reference_or_skip("both_byte_orders_disassemble_the_same") else {
        return;
    };
    let dir = scratch("corpus_dis_endian");
    let le = assemble_with_reference(&bin, &dir, RICH, "spv1.3");
    let words = spvlab_tests::words_of(&le);
    let be = spvlab_core::binary::to_bytes_be(&words);
    assert_ne!(le, be);
    let a = spvlab_core::binary::read_bytes(&le).unwrap();
    let b = spvlab_core::binary::read_bytes(&be).unwrap();
    assert_eq!(a, b);
    let opts = DisOptions::default();
    let ta = disassemble_bytes(&le, &opts).unwrap();
    assert_eq!(ta, disassemble_bytes(&be, &opts).unwrap());
    // And the reference agrees on the little-endian text.
    let spv = dir.join("m.spv");
    let (ok, out, err) = run_tool(&bin, "spirv-dis", &["--no-color", spv.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(ta, String::from_utf8_lossy(&out));
}
