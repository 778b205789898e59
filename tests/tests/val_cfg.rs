//! The control-flow rules of the validator on small modules written in
//! SPIR-V assembly: each error's code, where it points (line:col of the
//! primary span and of the related spans), and that the message names blocks
//! by the module's OpNames. The verdicts of these modules were checked with
//! spirv-val v2025.5 (see `reference_agrees` below).

use spvlab_core::diag::line_col;
use spvlab_core::text::AsmOptions;
use spvlab_core::text::asm::assemble_with_map;
use spvlab_core::analysis::locate_all;
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Diagnostic, Severity, TargetEnv};

const HEAD: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
";

const TYPES: &str = "%void = OpTypeVoid
%fnty = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
";

/// Assemble, validate, locate; errors only.
fn check(src: &str, env: TargetEnv) -> Vec<Diagnostic> {
    let out = assemble_with_map(src, &AsmOptions { env, preserve_numeric_ids: false })
        .unwrap_or_else(|e| panic!("assembly failed: {e:?}"));
    let mut diags = validate_words(&out.words, &Options { env, ..Options::default() });
    locate_all(&out.map, &mut diags);
    diags.retain(|d| d.severity == Severity::Error);
    diags
}

fn at(src: &str, span: spvlab_core::Span) -> (u32, u32) {
    line_col(src, span.start)
}

fn one<'a>(diags: &'a [Diagnostic], code: &str) -> &'a Diagnostic {
    diags
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", diags.iter().map(|d| (d.code, &d.message)).collect::<Vec<_>>()))
}

const ENTERED_MID: &str = "OpName %main \"main\"
OpName %if_header \"if_header\"
OpName %then \"then\"
OpName %if_merge \"if_merge\"
OpName %after \"after\"
";

fn entered_mid_module() -> String {
    format!(
        "{HEAD}{ENTERED_MID}{TYPES}%main = OpFunction %void None %fnty
%entry = OpLabel
OpBranch %if_header
%if_header = OpLabel
OpSelectionMerge %if_merge None
OpBranchConditional %true %then %if_merge
%then = OpLabel
OpBranch %after
%if_merge = OpLabel
OpBranch %after
%after = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

/// `%then` leaves the selection for `%after`, which is then inside the
/// selection construct (dominated by the header, not by the merge block), so
/// the merge block `%if_merge` enters the construct without its header.
#[test]
fn construct_entered_in_the_middle() {
    let src = entered_mid_module();
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    let d = one(&diags, "cfg.construct-entered-mid");
    // Line 23: the OpBranch %after of %if_merge.
    assert_eq!(at(&src, d.span), (23, 1), "{}", d.message);
    assert!(d.message.contains("%if_merge") && d.message.contains("%after") && d.message.contains("%if_header"), "{}", d.message);
    let rel: Vec<(u32, u32)> = d.related.iter().map(|r| at(&src, r.span)).collect();
    assert_eq!(rel, vec![(17, 1), (24, 1)], "related: the header's label, the entered block's label");
    assert!(spvlab_core::valid::rules::rule(d.code).is_some_and(|r| r.explanation.contains("header")));
}

fn back_edge_module() -> String {
    format!(
        "{HEAD}OpName %main \"main\"
OpName %body \"body\"
OpName %exit \"exit\"
{TYPES}%main = OpFunction %void None %fnty
%entry = OpLabel
OpBranch %body
%body = OpLabel
OpBranchConditional %true %body %exit
%exit = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn back_edge_to_a_block_that_is_not_a_loop_header() {
    let src = back_edge_module();
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    let d = one(&diags, "cfg.back-edge-not-to-loop-header");
    assert_eq!(at(&src, d.span), (16, 1));
    assert!(d.message.contains("%body -> %body"), "{}", d.message);
    assert_eq!(d.related.iter().map(|r| at(&src, r.span)).collect::<Vec<_>>(), vec![(15, 1)]);
}

#[test]
fn selection_merge_must_precede_the_branch() {
    let src = format!(
        "{HEAD}OpName %main \"main\"
OpName %h \"h\"
OpName %m \"m\"
{TYPES}%main = OpFunction %void None %fnty
%entry = OpLabel
OpBranch %h
%h = OpLabel
OpSelectionMerge %m None
OpBranch %m
%m = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    let d = one(&diags, "cfg.merge-placement");
    assert_eq!(at(&src, d.span), (16, 1));
    assert!(d.message.contains("%h") && d.message.contains("OpSelectionMerge"), "{}", d.message);
    assert_eq!(d.related.iter().map(|r| at(&src, r.span)).collect::<Vec<_>>(), vec![(17, 1)]);
}

/// A loop whose continue target is not post-dominated by the back-edge block
/// (Fig. 9 left of Klimis et al.): the header is its own continue target.
#[test]
fn continue_construct_not_post_dominated() {
    let src = format!(
        "{HEAD}OpName %main \"main\"
OpName %loop \"loop\"
OpName %a \"a\"
OpName %latch \"latch\"
OpName %merge \"merge\"
{TYPES}%false = OpConstantFalse %bool
%main = OpFunction %void None %fnty
%entry = OpLabel
OpBranch %loop
%loop = OpLabel
OpLoopMerge %merge %loop None
OpBranch %a
%a = OpLabel
OpBranch %latch
%latch = OpLabel
OpBranchConditional %false %loop %merge
%merge = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    let d = one(&diags, "cfg.continue-not-post-dominated");
    assert_eq!(at(&src, d.span), (18, 1), "primary: the continue target's label");
    assert!(d.message.contains("continue target %loop") && d.message.contains("back-edge block %latch"), "{}", d.message);
    let rel: Vec<(u32, u32)> = d.related.iter().map(|r| at(&src, r.span)).collect();
    assert_eq!(rel, vec![(24, 1), (19, 1)], "the back edge's branch and the OpLoopMerge");
}

/// Two functions, each with its own error: both are reported.
#[test]
fn independent_errors_are_all_reported() {
    let src = format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpName %main \"main\"
OpName %other \"other\"
OpName %body \"body\"
OpName %if_header \"if_header\"
OpName %if_merge \"if_merge\"
OpName %after \"after\"
{TYPES}%main = OpFunction %void None %fnty
%entry = OpLabel
OpBranch %if_header
%if_header = OpLabel
OpSelectionMerge %if_merge None
OpBranchConditional %true %then %if_merge
%then = OpLabel
OpBranch %after
%if_merge = OpLabel
OpBranch %after
%after = OpLabel
OpReturn
OpFunctionEnd
%other = OpFunction %void None %fnty
%e2 = OpLabel
OpBranch %body
%body = OpLabel
OpBranchConditional %true %body %x
%x = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    one(&diags, "cfg.construct-entered-mid");
    one(&diags, "cfg.back-edge-not-to-loop-header");
    // %body's conditional branch is also an unstructured selection (spirv-val
    // marks only conditional-branch, switch and merge targets as seen).
    one(&diags, "cfg.selection-unstructured");
    assert_eq!(diags.len(), 3, "{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>());
}

const INTEL_HEAD: &str = "OpCapability Kernel
OpCapability Linkage
OpCapability UnstructuredLoopControlsINTEL
OpExtension \"SPV_INTEL_unstructured_loop_controls\"
OpMemoryModel Logical OpenCL
OpName %h \"h\"
OpName %e \"e\"
%void = OpTypeVoid
%bool = OpTypeBool
%t = OpConstantTrue %bool
%fn = OpTypeFunction %void
%f = OpFunction %void None %fn
";

/// SPV_INTEL_unstructured_loop_controls: OpLoopControlINTEL in the target of
/// a back edge that dominates the back-edge block, right before the branch.
#[test]
fn loop_control_intel_valid() {
    let src = format!(
        "{INTEL_HEAD}%e = OpLabel
OpBranch %h
%h = OpLabel
OpLoopControlINTEL 1
OpBranchConditional %t %h %x
%x = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    assert!(diags.is_empty(), "{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>());
}

/// Not in a loop header (the entry block is no back edge's target), and not
/// the second-to-last instruction of its block.
#[test]
fn loop_control_intel_invalid() {
    let src = format!(
        "{INTEL_HEAD}%e = OpLabel
OpLoopControlINTEL 1
OpBranch %h
%h = OpLabel
OpLoopControlINTEL 2
%c = OpCopyObject %bool %t
OpBranchConditional %t %h %x
%x = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let diags = check(&src, TargetEnv::parse("spv1.0").unwrap());
    let lc: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == "cfg.loop-control-intel").collect();
    assert_eq!(lc.len(), 2, "{:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>());
    assert_eq!(at(&src, lc[0].span), (14, 1));
    assert!(lc[0].message.contains("%e") && lc[0].message.contains("back edge"), "{}", lc[0].message);
    assert_eq!(at(&src, lc[1].span), (17, 1));
    assert!(lc[1].message.contains("immediately precede"), "{}", lc[1].message);
}

/// The reference validator gives the same verdicts on the Shader modules above.
#[test]
fn reference_agrees() {
    let Some(bin) = spvlab_tests::reference_or_skip("val_cfg::reference_agrees") else { return };
    let dir = spvlab_tests::scratch("val_cfg");
    for (name, src) in [("entered", entered_mid_module()), ("back", back_edge_module())] {
        let path = dir.join(format!("{name}.spvasm"));
        std::fs::write(&path, &src).unwrap();
        let spv = dir.join(format!("{name}.spv"));
        let (ok, _, err) = spvlab_tests::run_tool(&bin, "spirv-as", &[path.to_str().unwrap(), "-o", spv.to_str().unwrap()]);
        assert!(ok, "{err}");
        let (ok, _, _) = spvlab_tests::run_tool(&bin, "spirv-val", &[spv.to_str().unwrap()]);
        assert!(!ok, "{name}: spirv-val accepts it");
    }
}
