//! Our CFG DOT (core::analysis::dot, what the page draws and `spvlab cfg` prints)
//! against the reference `spirv-cfg`: for a sample of valid corpus modules with
//! control flow, the numbers of block nodes, merge edges and continue edges agree.
//!
//! spirv-cfg draws every function's blocks as `<id> [label=...]`, merge edges as
//! `a -> b [style=dashed]` and continue edges as `a -> b [style=dotted]`, plus a
//! legend (nodes and edges named `legend_...`), which is not counted.

use spvlab_core::TargetEnv;
use spvlab_core::analysis::Analysis;
use spvlab_core::analysis::dot::DotOptions;
use spvlab_core::analysis::report::AnalyzeReport;
use spvlab_core::valid::Options;

fn analyze(text: &str, env: TargetEnv) -> Analysis {
    Analysis::of_text(text, &Options { env, ..Options::default() })
}
use spvlab_tests::{Case, cases, corpus_or_skip, reference_or_skip, run_tool, scratch};

#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Counts {
    nodes: usize,
    merges: usize,
    continues: usize,
}

fn reference_counts(dot: &str) -> Counts {
    let mut c = Counts::default();
    for line in dot.lines() {
        let line = line.trim();
        if line.starts_with("legend_") {
            continue;
        }
        let head = line.split_whitespace().next().unwrap_or("");
        if !line.contains("->") && head.chars().all(|ch| ch.is_ascii_digit()) && !head.is_empty() && line[head.len()..].trim_start().starts_with("[label=") {
            c.nodes += 1;
        } else if line.contains("->") && line.contains("style=dashed") {
            c.merges += 1;
        } else if line.contains("->") && line.contains("style=dotted") {
            c.continues += 1;
        }
    }
    c
}

fn our_counts(dot: &str) -> Counts {
    Counts {
        nodes: dot.matches("[id=\"block-").count(),
        merges: dot.matches("class=\"edge merge").count(),
        continues: dot.matches("class=\"edge continue").count(),
    }
}

/// Assemble a corpus case with the reference spirv-as (its target env and
/// flags) into `out`; returns `out`.
fn reference_assemble(bin: &std::path::Path, case: &Case, out: &std::path::Path) -> std::path::PathBuf {
    let mut args = vec!["--target-env", case.asm_env()];
    let flags = case.meta_strings("asm_flags");
    args.extend(flags.iter().map(String::as_str));
    args.extend([case.path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let (ok, _, err) = run_tool(bin, "spirv-as", &args);
    assert!(ok, "{}: spirv-as failed: {err}", case.name);
    out.to_path_buf()
}

#[test]
fn dot_counts_agree_with_spirv_cfg() {
    let Some(corpus) = corpus_or_skip("dot_counts_agree_with_spirv_cfg") else { return };
    let Some(bin) = reference_or_skip("dot_counts_agree_with_spirv_cfg") else { return };
    if !bin.join("spirv-cfg").exists() {
        eprintln!("SKIPPED dot_counts_agree_with_spirv_cfg: spirv-cfg not found in {}", bin.display());
        return;
    }
    let dir = scratch("cfg_dot");
    let all: Vec<_> = cases(&corpus)
        .into_iter()
        .filter(|c| c.name.contains("spirv-samples/") || c.name.contains("cfg-mutants/"))
        .filter(|c| c.meta_str("expected") == "valid")
        .filter(|c| c.text.contains("OpBranch") || c.text.contains("OpSwitch"))
        .collect();
    assert!(!all.is_empty(), "no valid cases with control flow");
    let step = (all.len() / 200).max(1);
    let (mut checked, mut failures) = (0, Vec::new());
    let (mut merges, mut continues) = (0, 0);
    for case in all.iter().step_by(step) {
        let spv = reference_assemble(&bin, case, &dir.join("m.spv"));
        let spv_s = spv.to_str().unwrap();
        let dot_path = dir.join("m.dot");
        let (ok, _, err) = run_tool(&bin, "spirv-cfg", &[spv_s, "-o", dot_path.to_str().unwrap()]);
        if !ok {
            failures.push(format!("{}: spirv-cfg failed: {err}", case.name));
            continue;
        }
        let reference = reference_counts(&std::fs::read_to_string(&dot_path).unwrap());
        let env = TargetEnv::parse(case.target_env()).unwrap_or_default();
        let a = analyze(&case.text, env);
        assert!(a.assembled(), "{}: did not assemble", case.name);
        let mut ours = Counts::default();
        for f in &a.cfg().functions {
            let c = our_counts(&a.dot(Some(f.id), &DotOptions::default()).unwrap());
            ours.nodes += c.nodes;
            ours.merges += c.merges;
            ours.continues += c.continues;
        }
        if ours != reference {
            failures.push(format!("{}: ours {ours:?}, spirv-cfg {reference:?}", case.name));
        }
        merges += reference.merges;
        continues += reference.continues;
        checked += 1;
    }
    println!("cfg_dot: {checked} modules, {merges} merge and {continues} continue edges compared; {} disagree", failures.len());
    assert!(checked >= 100, "only {checked} modules checked");
    assert!(merges > 0 && continues > 0, "the sample has no merge or continue edges");
    assert!(failures.is_empty(), "{} disagree:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn reference_format_is_read_as_expected() {
    let dot = "digraph {\nlegend_merge_src [shape=plaintext, label=\"\"];\nlegend_merge_src -> legend_merge_dest [label=\" merge\",style=dashed];\n32 [label=\"32\nFn 1 entry\", shape=box];\n32 -> 33;\n33 [label=\"33\"];\n33 -> 34 [style=dashed];\n33 -> 34 [style=dotted];\n}";
    assert_eq!(reference_counts(dot), Counts { nodes: 2, merges: 1, continues: 1 });
}

/// A module of about `lines` lines: one function with a chain of loops, each
/// holding an if/else.
pub fn big_module(lines: usize) -> String {
    let mut s = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\nOpName %main \"main\"\n%void = OpTypeVoid\n%bool = OpTypeBool\n%int = OpTypeInt 32 1\n%int_1 = OpConstant %int 1\n%c = OpConstantTrue %bool\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%entry = OpLabel\nOpBranch %h0\n",
    );
    let mut k = 0;
    while s.lines().count() + 20 < lines {
        s.push_str(&format!(
            "%h{k} = OpLabel\nOpLoopMerge %m{k} %ct{k} None\nOpBranch %b{k}\n%b{k} = OpLabel\n%x{k} = OpIAdd %int %int_1 %int_1\nOpSelectionMerge %j{k} None\nOpBranchConditional %c %t{k} %e{k}\n%t{k} = OpLabel\nOpBranch %j{k}\n%e{k} = OpLabel\nOpBranch %j{k}\n%j{k} = OpLabel\nOpBranchConditional %c %ct{k} %m{k}\n%ct{k} = OpLabel\nOpBranch %h{k}\n%m{k} = OpLabel\nOpBranch %h{}\n",
            k + 1
        ));
        k += 1;
    }
    s.push_str(&format!("%h{k} = OpLabel\nOpReturn\nOpFunctionEnd\n"));
    s
}

#[test]
fn analyze_time_on_a_1000_line_module() {
    let text = big_module(1000);
    let a = analyze(&text, TargetEnv::default());
    assert!(a.is_valid(), "{:?}", a.diagnostics().first());
    let n = 20;
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(AnalyzeReport::of(&analyze(&text, TargetEnv::default())));
    }
    let per = t.elapsed() / n;
    let report = AnalyzeReport::of(&a);
    let f = &report.functions[0];
    let t = std::time::Instant::now();
    let dot = a.dot(None, &DotOptions::default()).unwrap();
    let dot_time = t.elapsed();
    println!(
        "analyze: {} lines, {} blocks, {} constructs: {per:?} per call; to_dot: {dot_time:?} ({} bytes)",
        text.lines().count(),
        f.blocks.len(),
        f.constructs.len(),
        dot.len()
    );
    assert_eq!(our_counts(&dot).nodes, f.blocks.len());
}

/// The names of the labels, in module order, as spirv-dis prints them
/// (`%name = OpLabel`).
fn reference_label_names(dis: &str) -> Vec<String> {
    dis.lines()
        .filter_map(|l| {
            let (lhs, rhs) = l.split_once('=')?;
            (rhs.trim() == "OpLabel").then(|| lhs.trim().trim_start_matches('%').to_owned())
        })
        .collect()
}

/// The names the graph gives its blocks: for a binary, the names spirv-dis
/// prints (OpName first, else the number); for the text it was assembled
/// from, the text's own (`%name` of each `%name = OpLabel`), in the report,
/// the DOT node labels and the listing.
#[test]
fn block_names_are_spirv_dis_names_for_binaries_and_the_texts_names_for_texts() {
    let Some(corpus) = corpus_or_skip("block_names") else { return };
    let Some(bin) = reference_or_skip("block_names") else { return };
    let dir = scratch("cfg_dot_names");
    let all: Vec<_> = cases(&corpus)
        .into_iter()
        .filter(|c| c.name.contains("spirv-samples/") || c.name.contains("cfg-mutants/"))
        .filter(|c| c.meta_str("expected") == "valid" && c.text.contains("OpBranch"))
        .collect();
    let step = (all.len() / 60).max(1);
    let (mut checked, mut blocks, mut named) = (0, 0, 0);
    for case in all.iter().step_by(step) {
        let spv = reference_assemble(&bin, case, &dir.join("n.spv"));
        let spv_s = spv.to_str().unwrap();
        let (ok, out, err) = run_tool(&bin, "spirv-dis", &[spv_s]);
        assert!(ok, "{}: spirv-dis failed: {err}", case.name);
        let want = reference_label_names(&String::from_utf8(out).unwrap());
        let env = TargetEnv::parse(case.target_env()).unwrap_or_default();
        let opts = Options { env, ..Options::default() };

        // The binary: spirv-dis's names, in the report and on the graph.
        let b = Analysis::of_bytes(&std::fs::read(&spv).unwrap(), &opts);
        let r = AnalyzeReport::of(&b);
        let got: Vec<String> = r.functions.iter().flat_map(|f| f.blocks.iter().map(|b| b.name.clone())).collect();
        assert_eq!(got, want, "{}", case.name);
        for f in &r.functions {
            let dot = b.dot(Some(f.id), &DotOptions::default()).unwrap();
            for blk in &f.blocks {
                let label = format!("b{} [id=\"block-{}\" class=\"{}", blk.id, blk.id, "block");
                assert!(dot.contains(&label), "{}: {label}", case.name);
                assert!(dot.contains(&format!("label=\"%{}\"", blk.name)), "{}: %{} not on the graph", case.name, blk.name);
            }
        }

        // The text: the names it gives its labels (every label of a text is
        // named by it), in the report, the DOT and the listing.
        let t = analyze(&case.text, env);
        let texts: Vec<String> = case
            .text
            .lines()
            .filter_map(|l| {
                let (lhs, rhs) = l.split_once('=')?;
                (rhs.split(';').next()?.trim() == "OpLabel").then(|| lhs.trim().trim_start_matches('%').to_owned())
            })
            .collect();
        let r = AnalyzeReport::of(&t);
        let got: Vec<String> = r.functions.iter().flat_map(|f| f.blocks.iter().map(|b| b.name.clone())).collect();
        assert_eq!(got, texts, "{}", case.name);
        for f in &r.functions {
            let dot = t.dot(Some(f.id), &DotOptions::default()).unwrap();
            for blk in &f.blocks {
                assert!(dot.contains(&format!("label=\"%{}\"", blk.name)), "{}: %{} not on the graph", case.name, blk.name);
                assert_eq!(blk.listing.first().map(String::as_str), Some(format!("%{} = OpLabel", blk.name).as_str()), "{}", case.name);
                named += usize::from(!blk.name.bytes().all(|c| c.is_ascii_digit()));
            }
            blocks += f.blocks.len();
        }
        checked += 1;
    }
    println!("block names: {checked} modules, {blocks} blocks ({named} named by the text, not numbers)");
    assert!(checked >= 30, "only {checked} modules checked");
    assert!(named > 0, "the sample has no named blocks");
}
