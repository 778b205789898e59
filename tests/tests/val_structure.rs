//! The module-structure rules of the validator (layout, ids, SSA, functions,
//! adjacency, limits, misc): invalid modules, located diagnostics.
//!
//! Each module is assembled with the source map, validated, and its
//! diagnostics located in the text; the tests check the code, the line and
//! column of the primary span, the related spans and the names in the message.
//! Where the reference SPIRV-Tools are installed, each module is also checked to
//! be rejected by spirv-val (and the valid ones accepted), so that the verdicts
//! come from the oracle, not from our own output.

use spvlab_core::diag::line_col;
use spvlab_core::text::asm::{AsmOptions, assemble_with_map};
use spvlab_core::analysis::locate_all;
use spvlab_core::valid::{Options, rules, validate_words};
use spvlab_core::{Diagnostic, Severity, TargetEnv};
use spvlab_tests::{reference_bin, run_tool, scratch};

fn check(src: &str, env: &str, flags: &[&str]) -> Vec<Diagnostic> {
    let env_v = TargetEnv::parse(env).unwrap();
    let out = assemble_with_map(
        src,
        &AsmOptions {
            env: env_v,
            preserve_numeric_ids: false,
        },
    )
    .expect("the test module assembles");
    let mut opts = Options {
        env: env_v,
        ..Options::default()
    };
    opts.apply_args(flags.iter().copied()).unwrap();
    let mut diags = validate_words(&out.words, &opts);
    locate_all(&out.map, &mut diags);
    for d in &diags {
        assert!(
            rules::rule(d.code).is_some(),
            "{} has no RULES entry",
            d.code
        );
    }
    diags
}

/// spirv-val's verdict on the module, if the reference tools are installed.
fn reference_valid(name: &str, src: &str, env: &str, flags: &[&str]) -> Option<bool> {
    let bin = reference_bin()?;
    let dir = scratch(&format!("val_structure_{name}"));
    let text = dir.join("m.spvasm");
    let spv = dir.join("m.spv");
    std::fs::write(&text, src).unwrap();
    let (ok, _, err) = run_tool(
        &bin,
        "spirv-as",
        &[
            "--target-env",
            env,
            "-o",
            spv.to_str().unwrap(),
            text.to_str().unwrap(),
        ],
    );
    assert!(ok, "spirv-as rejects the test module {name}: {err}");
    let mut args = vec!["--target-env", env];
    args.extend(flags.iter().flat_map(|f| f.split_whitespace()));
    args.push(spv.to_str().unwrap());
    let (valid, _, err) = run_tool(&bin, "spirv-val", &args);
    assert!(!err.contains("USAGE"), "spirv-val did not run: {err}");
    Some(valid)
}

/// Validate an invalid module: spirv-val agrees it is invalid; returns the errors.
fn invalid(name: &str, src: &str, env: &str, flags: &[&str]) -> Vec<Diagnostic> {
    if let Some(v) = reference_valid(name, src, env, flags) {
        assert!(!v, "{name}: spirv-val accepts the module");
    } else {
        eprintln!("SKIPPED reference check of {name}: SPIRV-Tools not found");
    }
    let d: Vec<_> = check(src, env, flags)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(!d.is_empty(), "{name}: no error reported");
    d
}

fn at(src: &str, d: &Diagnostic) -> (u32, u32) {
    line_col(src, d.span.start)
}

/// The line and column where `needle` starts in `src`.
fn line_of(src: &str, needle: &str) -> (u32, u32) {
    let at = src
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in the module"));
    line_col(src, at as u32)
}

/// Name ids with OpName (after the memory model), as front ends do.
fn named(src: &str, names: &[&str]) -> String {
    let mut debug = String::new();
    for n in names {
        debug.push_str(&format!("OpName %{n} \"{n}\"\n"));
    }
    src.replacen("GLSL450\n", &format!("GLSL450\n{debug}"), 1)
}

fn text(src: &str, s: spvlab_core::Span) -> &str {
    &src[s.start as usize..s.end as usize]
}

const HEAD: &str = "OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%bool = OpTypeBool
%int = OpTypeInt 32 0
%one = OpConstant %int 1
%true = OpConstantTrue %bool
%fn = OpTypeFunction %void
";

#[test]
fn undefined_id_is_reported_once_without_cascade() {
    let src = format!(
        "{HEAD}%f = OpFunction %void None %fn
%entry = OpLabel
%a = OpIAdd %int %missing %one
%b = OpIAdd %int %a %missing
%c = OpIMul %int %b %missing
OpReturn
OpFunctionEnd
"
    );
    let src = named(&src, &["missing"]);
    let d = invalid("undefined", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "one root error, no cascade: {d:#?}");
    assert_eq!(d[0].code, "ids.undefined");
    assert!(d[0].message.contains("%missing"), "{}", d[0].message);
    assert_eq!(at(&src, &d[0]), line_of(&src, "%a = OpIAdd"));
    assert!(text(&src, d[0].span).starts_with("%a = OpIAdd"));
}

#[test]
fn use_before_definition_points_at_the_definition() {
    let src = format!(
        "{HEAD}%f = OpFunction %void None %fn
%entry = OpLabel
%a = OpIAdd %int %b %one
%b = OpIAdd %int %one %one
OpReturn
OpFunctionEnd
"
    );
    let src = named(&src, &["a", "b"]);
    let d = invalid("use_before_def", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "ids.use-before-definition");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%a = OpIAdd"));
    assert!(d[0].message.contains("%b"));
    assert_eq!(d[0].related.len(), 1);
    assert!(text(&src, d[0].related[0].span).starts_with("%b = OpIAdd"));
}

#[test]
fn undefined_forward_reference() {
    let src = HEAD.replacen(
        "%void = OpTypeVoid",
        "OpName %nowhere \"nowhere\"\n%void = OpTypeVoid",
        1,
    );
    let d = invalid("forward", &src, "spv1.3", &[]);
    assert_eq!(d[0].code, "ids.undefined-forward-reference");
    assert_eq!(at(&src, &d[0]), (4, 1));
    assert!(d[0].message.contains("%nowhere"));
}

#[test]
fn definition_must_dominate_use() {
    let src = format!(
        "{HEAD}%f = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %then %else
%then = OpLabel
%eleven = OpIAdd %int %one %one
OpBranch %merge
%else = OpLabel
%use = OpIAdd %int %eleven %one
OpBranch %merge
%merge = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let src = named(&src, &["eleven", "then", "else"]);
    let d = invalid("dominate", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "ssa.def-does-not-dominate-use");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%use = OpIAdd"));
    for n in ["%eleven", "%then", "%else"] {
        assert!(d[0].message.contains(n), "{n} in {}", d[0].message);
    }
    assert!(text(&src, d[0].related[0].span).starts_with("%eleven = OpIAdd"));
    assert!(text(&src, d[0].related[1].span).starts_with("%then = OpLabel"));
}

#[test]
fn phi_rules() {
    // Wrong predecessor count, and a phi after a non-phi instruction.
    let src = format!(
        "{HEAD}%f = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %then %merge
%then = OpLabel
OpBranch %merge
%merge = OpLabel
%p = OpPhi %int %one %then
OpReturn
OpFunctionEnd
"
    );
    let src = named(&src, &["p", "merge"]);
    let d = invalid("phi_count", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "ssa.phi-predecessor-count");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%p = OpPhi"));
    assert!(
        d[0].message.contains("%p") && d[0].message.contains("%merge"),
        "{}",
        d[0].message
    );

    let src = format!(
        "{HEAD}%f = OpFunction %void None %fn
%entry = OpLabel
OpBranch %next
%next = OpLabel
%x = OpIAdd %int %one %one
%p = OpPhi %int %one %entry
OpReturn
OpFunctionEnd
"
    );
    let d = invalid("phi_order", &src, "spv1.3", &[]);
    assert_eq!(d[0].code, "adjacency.phi-not-first");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%p = OpPhi"));
    assert!(text(&src, d[0].related[0].span).starts_with("%x = OpIAdd"));
}

#[test]
fn function_variable_at_module_scope_is_outside_any_function() {
    // spirv-val: "Variables can not have a function[7] storage class outside
    // of a function". One entry, at the variable, saying where it is.
    let src = format!(
        "{HEAD}%ptr = OpTypePointer Function %int
%v = OpVariable %ptr Function
%f = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let d = invalid("function_variable_at_module_scope", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "adjacency.variable-not-first");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%v = OpVariable"));
    assert_eq!(d[0].message, "OpVariable with Function storage class outside any function");
    assert!(d[0].related.is_empty(), "{:?}", d[0].related);
    // After the last function too.
    let src = format!(
        "{HEAD}%ptr = OpTypePointer Function %int
%f = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
%v = OpVariable %ptr Function
"
    );
    let d = invalid("function_variable_after_functions", &src, "spv1.3", &[]);
    let v: Vec<_> = d.iter().filter(|d| d.code == "adjacency.variable-not-first").collect();
    assert_eq!(v.len(), 1, "{d:#?}");
    assert_eq!(v[0].message, "OpVariable with Function storage class outside any function");
}

#[test]
fn several_independent_errors_are_all_reported() {
    // Two functions, each with its own problem: an OpVariable after another
    // instruction, and an OpReturn in a function returning a value.
    let src = format!(
        "{HEAD}%ptr = OpTypePointer Function %int
%fint = OpTypeFunction %int
%f = OpFunction %void None %fn
%entry = OpLabel
%x = OpIAdd %int %one %one
%v = OpVariable %ptr Function
OpReturn
OpFunctionEnd
%g = OpFunction %int None %fint
%g_entry = OpLabel
%v2 = OpVariable %ptr Function
%y = OpIAdd %int %one %one
%v3 = OpVariable %ptr Function
OpReturnValue %one
OpFunctionEnd
"
    );
    let d = invalid("several", &src, "spv1.3", &[]);
    let codes: Vec<_> = d.iter().map(|d| (d.code, at(&src, d).0)).collect();
    assert_eq!(
        codes,
        [
            (
                "adjacency.variable-not-first",
                line_of(&src, "%v = OpVariable").0
            ),
            (
                "adjacency.variable-not-first",
                line_of(&src, "%v3 = OpVariable").0
            )
        ],
        "{d:#?}"
    );
}

#[test]
fn function_call_rules() {
    // A pointer into Input passed to a function in Logical addressing.
    let src = "OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%int = OpTypeInt 32 0
%ptr = OpTypePointer Input %int
%func_ty = OpTypeFunction %void %ptr
%caller = OpFunction %void None %func_ty
%p = OpFunctionParameter %ptr
%1 = OpLabel
%call = OpFunctionCall %void %callee %p
OpReturn
OpFunctionEnd
%callee = OpFunction %void None %func_ty
%param = OpFunctionParameter %ptr
%2 = OpLabel
OpReturn
OpFunctionEnd
";
    let src = &named(src, &["p", "callee"]);
    let d = invalid("call_storage", src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "function.pointer-argument-storage-class");
    assert_eq!(at(src, &d[0]), line_of(src, "%call = OpFunctionCall"));
    assert!(
        d[0].message.contains("%p") && d[0].message.contains("Input"),
        "{}",
        d[0].message
    );

    // Argument type mismatch: related span is the callee.
    let src = format!(
        "{HEAD}%fint = OpTypeFunction %void %int
%f = OpFunction %void None %fn
%entry = OpLabel
%r = OpFunctionCall %void %g %true
OpReturn
OpFunctionEnd
%g = OpFunction %void None %fint
%x = OpFunctionParameter %int
%g_entry = OpLabel
OpReturn
OpFunctionEnd
"
    );
    let src = named(&src, &["g"]);
    let d = invalid("call_arg_type", &src, "spv1.3", &[]);
    assert_eq!(d[0].code, "function.call-argument-type");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%r = OpFunctionCall"));
    assert!(
        d[0].message.contains("%true")
            && d[0].message.contains("%bool")
            && d[0].message.contains("%g")
    );
    assert!(text(&src, d[0].related[0].span).starts_with("%g = OpFunction"));
}

#[test]
fn layout_rules() {
    // A missing OpFunctionEnd at the end of the module.
    let src = named(
        &format!("{HEAD}%f = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\n"),
        &["f"],
    );
    let d = invalid("no_end", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "layout.missing-function-end");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%f = OpFunction"));
    assert!(d[0].message.contains("%f"));
    assert!(text(&src, d[0].related[0].span).starts_with("OpReturn"));

    // An annotation after the types.
    let src = format!("{HEAD}OpDecorate %one RelaxedPrecision\n");
    let d = invalid("late_decorate", &src, "spv1.3", &[]);
    assert_eq!(d[0].code, "layout.section-order");
    assert_eq!(at(&src, &d[0]), line_of(&src, "OpDecorate"));
    assert!(d[0].message.contains("OpDecorate") && d[0].message.contains("annotations"));
}

#[test]
fn limits_follow_the_options() {
    let src = "OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
%int = OpTypeInt 32 0
%s1 = OpTypeStruct %int
%s2 = OpTypeStruct %s1
%s3 = OpTypeStruct %s2 %int %int
";
    let flags = ["--max-struct-depth", "2", "--max-struct-members", "2"];
    let src = &named(src, &["s3"]);
    let d = invalid("limits", src, "spv1.3", &flags);
    let codes: Vec<_> = d.iter().map(|d| (d.code, at(src, d).0)).collect();
    let line = line_of(src, "%s3 = OpTypeStruct").0;
    assert_eq!(
        codes,
        [
            ("limits.struct-members", line),
            ("limits.struct-depth", line)
        ],
        "{d:#?}"
    );
    assert!(d[1].message.contains("%s3") && d[1].message.contains('3'));
    // With the default limits, the same module is valid.
    assert!(reference_valid("limits_ok", src, "spv1.3", &[]).unwrap_or(true));
    assert!(check(src, "spv1.3", &[]).is_empty());
}

#[test]
fn undef_of_storage_only_type() {
    let src = "OpCapability Shader
OpCapability Linkage
OpCapability StorageBuffer16BitAccess
OpExtension \"SPV_KHR_16bit_storage\"
OpMemoryModel Logical GLSL450
%short = OpTypeInt 16 0
%undef = OpUndef %short
";
    let d = invalid("undef16", src, "spv1.0", &[]);
    assert_eq!(d[0].code, "types.undef-type");
    assert_eq!(at(src, &d[0]), (7, 1));
    // spirv-dis's friendly name for a 16-bit unsigned integer type.
    assert!(d[0].message.contains("%ushort"), "{}", d[0].message);
}

#[test]
fn every_code_has_an_explained_rule() {
    for r in rules::all() {
        assert!(
            !r.explanation.is_empty() && !r.summary.is_empty(),
            "{}",
            r.code
        );
    }
    for code in [
        "ids.undefined",
        "ids.use-before-definition",
        "ids.undefined-forward-reference",
        "layout.missing-function-end",
        "adjacency.phi-not-first",
        "ssa.def-does-not-dominate-use",
        "function.pointer-argument-storage-class",
        "limits.struct-depth",
        "types.undef-type",
    ] {
        assert!(rules::rule(code).is_some(), "{code}");
    }
}

/// A type where a value is expected, in instructions whose opcodes are numbered
/// among the untyped-pointer ones (4417..4426) but take values: spirv-val
/// rejects them, as it does any other value operand that names a type.
#[test]
fn a_type_is_not_a_value_for_the_ballot_instructions() {
    let src = "OpCapability Shader
OpCapability SubgroupBallotKHR
OpExtension \"SPV_KHR_shader_ballot\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpSubgroupFirstInvocationKHR %uint %uint
OpReturn
OpFunctionEnd
";
    let d = invalid("first_invocation_type_operand", src, "vulkan1.1", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "ids.operand-is-type");
    assert_eq!(at(src, &d[0]), line_of(src, "%x = OpSubgroupFirstInvocationKHR"));
    assert!(d[0].message.contains("%uint"), "{}", d[0].message);
}

/// One mistake, one diagnostic: an id that is a type, used as two operands of
/// one instruction, is reported once (spirv-val rejects the module).
#[test]
fn a_type_used_twice_in_one_instruction_is_one_error() {
    let src = format!(
        "{HEAD}%f = OpFunction %void None %fn
%entry = OpLabel
%x = OpIAdd %int %int %int
OpReturn
OpFunctionEnd
"
    );
    let d = invalid("type_twice", &src, "spv1.3", &[]);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "ids.operand-is-type");
    assert_eq!(at(&src, &d[0]), line_of(&src, "%x = OpIAdd"));
}
