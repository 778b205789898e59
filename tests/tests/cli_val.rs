//! `spvlab val`, run as a process: exit codes (0 valid, 1 invalid, 2 unreadable
//! input or bad usage), spirv-val's options (both spellings of
//! `--max-struct_depth`), the `--json` document parsed back, and problems in text
//! input shown at their line and column.
//!
//! Verdicts are never taken from our own output: each module's expected verdict
//! comes from the reference spirv-val run here on the same binary (the checks
//! that need it are skipped, with a SKIPPED line, when it is missing).

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use spvlab_tests::{assert_exit, reference_or_skip, run_tool, scratch};

/// A small valid compute shader.
const MODULE: &str = "\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main \"main\"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
";

/// The same module with an instruction given as raw words whose result id (1000)
/// is past the id bound, on line 9 (column 16).
const BAD_TEXT: &str = "\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main \"main\"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
               !0x00040015 !1000 !32 !0
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
";
const BAD_LINE: u64 = 9;
const BAD_COLUMN: u64 = 16;

fn run_with(args: &[&str], stdin: &[u8]) -> Output {
    spvlab_tests::run_spvlab(&spvlab_tests::root(), args, stdin)
}

fn run(args: &[&str]) -> Output {
    run_with(args, b"")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Files of one test: `in.spvasm` (the text), and, with the reference tools,
/// `in.spv` (assembled by the reference spirv-as) and the reference verdict.
struct Fixture {
    dir: PathBuf,
    asm: PathBuf,
    spv: PathBuf,
    tools: PathBuf,
}

impl Fixture {
    fn new(test: &str, src: &str) -> Option<Fixture> {
        let tools = reference_or_skip(test)?;
        let dir = scratch(&format!("cli-val-{test}"));
        let asm = dir.join("in.spvasm");
        let spv = dir.join("in.spv");
        std::fs::write(&asm, src).unwrap();
        let (ok, _, err) = run_tool(
            &tools,
            "spirv-as",
            &["--target-env", "spv1.6", s(&asm), "-o", s(&spv)],
        );
        assert!(ok, "reference spirv-as failed: {err}");
        Some(Fixture { dir, asm, spv, tools })
    }

    /// The reference spirv-val's verdict on `path` with `args`.
    fn reference_valid(&self, path: &Path, args: &[&str]) -> bool {
        let mut all = args.to_vec();
        all.push(s(path));
        run_tool(&self.tools, "spirv-val", &all).0
    }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The exit status spvlab val must give for the reference's verdict.
fn expected_exit(valid: bool) -> i32 {
    if valid { 0 } else { 1 }
}

#[test]
fn valid_module_exits_0_binary_text_and_stdin() {
    let Some(f) = Fixture::new("valid", MODULE) else { return };
    let want = expected_exit(f.reference_valid(&f.spv, &[]));
    assert_eq!(want, 0, "the reference rejects the fixture");
    for input in [&f.spv, &f.asm] {
        let o = run(&["val", s(input)]);
        assert_exit(&o, want);
        assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    }
    let bytes = std::fs::read(&f.spv).unwrap();
    assert_exit(&run_with(&["val", "-"], &bytes), want);
    assert_exit(&run_with(&["val"], MODULE.as_bytes()), want);
    // A binary with another extension is recognised by its magic number.
    let other = f.dir.join("module.bin");
    std::fs::write(&other, &bytes).unwrap();
    assert_exit(&run(&["val", s(&other)]), want);
}

#[test]
fn invalid_binary_exits_1_with_located_diagnostics() {
    let Some(f) = Fixture::new("invalid", MODULE) else { return };
    // Shrink the id bound (header word 3) below the ids in use.
    let mut bytes = std::fs::read(&f.spv).unwrap();
    bytes[12..16].copy_from_slice(&3u32.to_le_bytes());
    let bad = f.dir.join("bad.spv");
    std::fs::write(&bad, &bytes).unwrap();
    let want = expected_exit(f.reference_valid(&bad, &[]));
    assert_eq!(want, 1, "the reference accepts the fixture");
    let o = run(&["val", s(&bad)]);
    assert_exit(&o, want);
    let err = text(&o.stderr);
    assert!(err.contains("error["), "{err}");
    // Binary locations: the word and the instruction it belongs to.
    assert!(err.contains(" --> ") && err.contains(": word ") && err.contains("(instruction "), "{err}");
    assert!(err.contains(", Op"), "{err}");
}

#[test]
fn bad_binary_framing_is_invalid_not_unreadable() {
    let Some(f) = Fixture::new("framing", MODULE) else { return };
    // Not a whole number of words, and a wrong magic number.
    let mut bytes = std::fs::read(&f.spv).unwrap();
    bytes.push(0);
    let odd = f.dir.join("odd.spv");
    std::fs::write(&odd, &bytes).unwrap();
    assert_exit(&run(&["val", s(&odd)]), expected_exit(f.reference_valid(&odd, &[])));
    let mut bytes = std::fs::read(&f.spv).unwrap();
    bytes[0] ^= 0xff;
    let magic = f.dir.join("magic.spv");
    std::fs::write(&magic, &bytes).unwrap();
    assert_exit(&run(&["val", s(&magic)]), expected_exit(f.reference_valid(&magic, &[])));
}

#[test]
fn unreadable_input_exits_2() {
    let dir = scratch("cli-val-unreadable");
    let missing = dir.join("no-such-file.spv");
    let o = run(&["val", s(&missing)]);
    assert_exit(&o, 2);
    assert!(text(&o.stderr).contains("cannot read"), "{}", text(&o.stderr));
    // A folder is not readable as a module either.
    assert_exit(&run(&["val", s(&dir)]), 2);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["val", "--frobnicate", "x.spv"][..],
        &["val", "--target-env", "vulkan9.9", "x.spv"],
        &["val", "--target-env"],
        &["val", "--max-struct-depth"],
        &["val", "--max-struct-depth", "many", "x.spv"],
        &["val", "--max-struct_depth=-1", "x.spv"],
        &["val", "--max-frobs", "3", "x.spv"],
        &["val", "--json=yes", "x.spv"],
        &["val", "--relax-block-layout=1", "x.spv"],
        &["val", "a.spv", "b.spv"],
    ] {
        let o = run(args);
        assert_exit(&o, 2);
        assert!(text(&o.stderr).contains("spvlab val --help"), "{args:?}: {}", text(&o.stderr));
    }
    let o = run(&["val", "--help"]);
    assert_exit(&o, 0);
    assert!(text(&o.stdout).contains("--max-struct_depth"));
}

#[test]
fn spirv_val_options_are_accepted_like_the_reference() {
    let Some(f) = Fixture::new("options", MODULE) else { return };
    let cases: &[&[&str]] = &[
        &["--before-hlsl-legalization"],
        &["--relax-logical-pointer"],
        &["--relax-block-layout"],
        &["--uniform-buffer-standard-layout"],
        &["--scalar-block-layout"],
        &["--workgroup-scalar-block-layout"],
        &["--skip-block-layout"],
        &["--relax-struct-store"],
        &["--allow-localsizeid"],
        &["--max-struct-members", "10"],
        &["--max-struct_depth", "3"],
        &["--max-local-variables", "10"],
        &["--max-global-variables", "10"],
        &["--max-switch-branches", "10"],
        &["--max-function-args", "10"],
        &["--max-control-flow-nesting-depth", "10"],
        &["--max-access-chain-indexes", "10"],
        &["--max-id-bound", "1000"],
        &["--target-env", "vulkan1.3", "--relax-block-layout", "--scalar-block-layout"],
    ];
    for args in cases {
        let want = expected_exit(f.reference_valid(&f.spv, args));
        let mut all = vec!["val"];
        all.extend_from_slice(args);
        all.push(s(&f.spv));
        assert_exit(&run(&all), want);
    }
    // Our own spelling of the struct depth limit, and `=value`.
    for args in [&["--max-struct-depth", "3"][..], &["--max-struct-depth=3"], &["--max-struct_depth=3"]] {
        let want = expected_exit(f.reference_valid(&f.spv, &["--max-struct_depth", "3"]));
        let mut all = vec!["val"];
        all.extend_from_slice(args);
        all.push(s(&f.spv));
        assert_exit(&run(&all), want);
    }
}

#[test]
fn json_document_shape() {
    let Some(f) = Fixture::new("json", MODULE) else { return };
    // Valid: an empty list.
    let o = run(&["val", "--json", s(&f.spv)]);
    assert_exit(&o, expected_exit(f.reference_valid(&f.spv, &[])));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(doc["valid"], Value::Bool(true));
    assert_eq!(doc["diagnostics"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["target_env"], "spv1.6");

    // Invalid binary: every field, binary positions.
    let mut bytes = std::fs::read(&f.spv).unwrap();
    bytes[12..16].copy_from_slice(&3u32.to_le_bytes());
    let bad = f.dir.join("bad.spv");
    std::fs::write(&bad, &bytes).unwrap();
    let o = run(&["val", "--json", "--target-env", "vulkan1.0", s(&bad)]);
    assert_exit(&o, expected_exit(f.reference_valid(&bad, &["--target-env", "vulkan1.0"])));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(doc["valid"], Value::Bool(false));
    assert_eq!(doc["target_env"], "vulkan1.0");
    let diags = doc["diagnostics"].as_array().expect("diagnostics");
    assert!(!diags.is_empty());
    let words = (bytes.len() / 4) as u64;
    for d in diags {
        for key in [
            "code", "severity", "message", "line", "column", "end_line", "end_column",
            "word_offset", "related", "help", "explanation",
        ] {
            assert!(d.get(key).is_some(), "missing `{key}` in {d}");
        }
        assert!(d["code"].as_str().is_some_and(|c| c.contains('.')), "{d}");
        assert_eq!(d["severity"], "error");
        assert!(d["line"].is_null() && d["column"].is_null(), "{d}");
        let w = d["word_offset"].as_u64().expect("word offset");
        assert!((5..words).contains(&w), "{d}");
        assert!(d["related"].is_array());
    }
}

#[test]
fn text_input_is_located_at_line_and_column() {
    let Some(f) = Fixture::new("text", BAD_TEXT) else { return };
    let want = expected_exit(f.reference_valid(&f.spv, &[]));
    assert_eq!(want, 1, "the reference accepts the fixture");
    let o = run(&["val", s(&f.asm)]);
    assert_exit(&o, want);
    let err = text(&o.stderr);
    let at = format!("in.spvasm:{BAD_LINE}:{BAD_COLUMN}");
    assert!(err.contains(&at), "expected {at} in\n{err}");
    assert!(err.contains(&format!("{BAD_LINE} |                !0x00040015")), "{err}");
    assert!(err.contains("^^^"), "{err}");

    let o = run(&["val", "--json", s(&f.asm)]);
    assert_exit(&o, want);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(doc["valid"], Value::Bool(false));
    let d = &doc["diagnostics"][0];
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(BAD_LINE), Some(BAD_COLUMN)), "{d}");
    assert_eq!(d["end_line"].as_u64(), Some(BAD_LINE), "{d}");
    assert!(d["end_column"].as_u64() > d["column"].as_u64(), "{d}");
    // The instruction's words in the binary are kept beside the text position.
    assert!(d["word_offset"].as_u64().is_some_and(|w| w >= 5), "{d}");

    // Text that does not assemble: invalid, the assembler's errors at line:col.
    let broken = f.dir.join("broken.spvasm");
    std::fs::write(&broken, "OpCapability Shader\n%x = OpFMd %a\n").unwrap();
    let o = run(&["val", s(&broken)]);
    assert_exit(&o, 1);
    assert!(text(&o.stderr).contains("broken.spvasm:2:6"), "{}", text(&o.stderr));
    let o = run(&["val", "--json", s(&broken)]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    assert_eq!(doc["diagnostics"][0]["line"].as_u64(), Some(2));
    assert!(doc["diagnostics"][0]["word_offset"].is_null());
}

/// A module whose OpFAdd has two integer operands, on line 13 (`%a` at column
/// 30, `%b` at column 33).
const BAD_OPERANDS: &str = "\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
          %a = OpConstant %int 1
          %b = OpConstant %int 2
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %sum = OpFAdd %float %a %b
               OpReturn
               OpFunctionEnd
";

#[test]
fn a_wrong_operand_is_shown_at_its_column() {
    let Some(f) = Fixture::new("operands", BAD_OPERANDS) else { return };
    let want = expected_exit(f.reference_valid(&f.spv, &[]));
    assert_eq!(want, 1, "the reference accepts the fixture");
    let o = run(&["val", s(&f.asm)]);
    assert_exit(&o, want);
    let err = text(&o.stderr);
    assert!(err.contains("in.spvasm:13:30"), "{err}");
    assert!(err.contains("in.spvasm:13:33"), "{err}");
    assert!(err.contains("%a, of type %int"), "{err}");

    let o = run(&["val", "--json", s(&f.asm)]);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let at: Vec<_> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["line"].as_u64(), d["column"].as_u64(), d["end_column"].as_u64()))
        .collect();
    assert_eq!(at, [(Some(13), Some(30), Some(32)), (Some(13), Some(33), Some(35))], "{doc}");
}
