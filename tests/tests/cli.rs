//! The `spvlab` command line, run as a process: exit codes (0 ok, 1 bad input,
//! 2 bad usage), `-` for stdin / stdout, default output names, rustc-style
//! errors, and outputs compared with the reference spirv-as / spirv-dis.
//!
//! The binary is built once (`cargo build -p spvlab-cli`) into this test's own
//! target dir.

use std::path::Path;
use std::process::Output;

use spvlab_tests::{assert_exit, reference_or_skip, root, run_tool, scratch};

/// A small valid module (a compute shader writing to a buffer).
const MODULE: &str = "\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main \"main\"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %one = OpConstant %float 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
";

/// The same module with numeric ids out of order.
const NUMERIC: &str = "\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %7 \"main\"
OpExecutionMode %7 LocalSize 1 1 1
%20 = OpTypeVoid
%3 = OpTypeFunction %20
%7 = OpFunction %20 None %3
%9 = OpLabel
OpReturn
OpFunctionEnd
";

/// Run `spvlab args...` in `dir` with `stdin`.
fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    spvlab_tests::run_spvlab(dir, args, stdin)
}

fn run(args: &[&str]) -> Output {
    run_in(&root(), args, b"")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The reference spirv-as output for `text` (with `args`), or None (skipped).
fn reference_as(test: &str, text: &str, args: &[&str]) -> Option<Vec<u8>> {
    let bin = reference_or_skip(test)?;
    let dir = scratch(&format!("cli-ref-{test}"));
    let src = dir.join("in.spvasm");
    let out = dir.join("out.spv");
    std::fs::write(&src, text).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
    all.extend([src_s, "-o", out_s]);
    let (ok, _, err) = run_tool(&bin, "spirv-as", &all);
    assert!(ok, "reference spirv-as failed: {err}");
    Some(std::fs::read(&out).unwrap())
}

/// The reference spirv-dis output for `binary` (with `args`).
fn reference_dis(test: &str, binary: &[u8], args: &[&str]) -> Option<String> {
    let bin = reference_or_skip(test)?;
    let dir = scratch(&format!("cli-refdis-{test}"));
    let path = dir.join("in.spv");
    std::fs::write(&path, binary).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--no-color", path.to_str().unwrap()]);
    let (ok, out, err) = run_tool(&bin, "spirv-dis", &all);
    assert!(ok, "reference spirv-dis failed: {err}");
    Some(String::from_utf8(out).unwrap())
}

// ---- usage errors: exit 2 ----

#[test]
fn no_command_is_a_usage_error() {
    let o = run(&[]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("Usage: spvlab"), "{}", stderr(&o));
}

#[test]
fn unknown_command_is_a_usage_error() {
    let o = run(&["frobnicate"]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("unknown command `frobnicate`"), "{}", stderr(&o));
}

#[test]
fn unknown_flags_are_usage_errors() {
    for cmd in ["as", "dis"] {
        let o = run(&[cmd, "--bogus"]);
        assert_exit(&o, 2);
        assert!(stderr(&o).contains("unknown option `--bogus`"), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("spvlab {cmd} --help")), "{}", stderr(&o));
    }
}

#[test]
fn bad_target_env_is_a_usage_error() {
    let o = run(&["as", "--target-env", "vulkan9.9", "x.spvasm"]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("unknown target environment `vulkan9.9`"), "{}", stderr(&o));
    assert!(stderr(&o).contains("vulkan1.1spv1.4"), "lists the names: {}", stderr(&o));
}

#[test]
fn missing_option_values_are_usage_errors() {
    assert_exit(&run(&["as", "--target-env"]), 2);
    assert_exit(&run(&["as", "x.spvasm", "-o"]), 2);
    assert_exit(&run(&["dis", "x.spv", "-o"]), 2);
}

#[test]
fn flags_without_values_reject_one() {
    let o = run(&["dis", "--raw-id=yes", "x.spv"]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("`--raw-id` takes no value"), "{}", stderr(&o));
}

#[test]
fn two_inputs_are_a_usage_error() {
    assert_exit(&run(&["as", "a.spvasm", "b.spvasm"]), 2);
    assert_exit(&run(&["dis", "a.spv", "b.spv"]), 2);
}

// ---- help and version: exit 0 ----

#[test]
fn help_and_version() {
    let o = run(&["--help"]);
    assert_exit(&o, 0);
    assert!(stdout(&o).contains("as ") && stdout(&o).contains("dis "), "{}", stdout(&o));
    let o = run(&["--version"]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), format!("spvlab {}\n", env!("CARGO_PKG_VERSION")));
    for cmd in ["as", "dis"] {
        let o = run(&[cmd, "--help"]);
        assert_exit(&o, 0);
        assert!(stdout(&o).starts_with(&format!("spvlab {cmd}:")), "{}", stdout(&o));
        let h = run(&["help", cmd]);
        assert_exit(&h, 0);
        assert_eq!(stdout(&h), stdout(&o));
    }
    let o = run(&["as", "--help"]);
    for flag in ["--target-env", "--preserve-numeric-ids", "-o <file>"] {
        assert!(stdout(&o).contains(flag), "as --help lacks {flag}");
    }
    let o = run(&["dis", "--help"]);
    for flag in ["--raw-id", "--no-header", "--no-indent", "-o <file>"] {
        assert!(stdout(&o).contains(flag), "dis --help lacks {flag}");
    }
}

// ---- unreadable or bad input: exit 1 ----

#[test]
fn missing_input_files() {
    let dir = scratch("cli-missing");
    let o = run_in(&dir, &["as", "nope.spvasm"], b"");
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("cannot read `nope.spvasm`"), "{}", stderr(&o));
    assert!(!dir.join("out.spv").exists(), "no output on failure");
    let o = run_in(&dir, &["dis", "nope.spv"], b"");
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("cannot read `nope.spv`"), "{}", stderr(&o));
}

#[test]
fn a_directory_is_unreadable() {
    let dir = scratch("cli-dir");
    let o = run_in(&dir, &["dis", "."], b"");
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("cannot read `.`"), "{}", stderr(&o));
}

#[test]
fn non_utf8_text_is_bad_input() {
    let o = run_in(&root(), &["as", "-", "-o", "-"], b"OpCapability \xff\n");
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("not UTF-8"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn partial_words_are_bad_input() {
    let o = run_in(&root(), &["dis", "-"], &[0x03, 0x02, 0x23, 0x07, 0x00]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("bin.byte-length"), "{}", stderr(&o));
    assert!(stderr(&o).contains("<stdin>"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn bad_magic_is_bad_input() {
    let dir = scratch("cli-bad-magic");
    std::fs::write(dir.join("zero.spv"), [0u8; 20]).unwrap();
    let o = run_in(&dir, &["dis", "zero.spv"], b"");
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("zero.spv"), "names the file: {}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn unwritable_output_is_an_error() {
    let dir = scratch("cli-unwritable");
    std::fs::write(dir.join("m.spvasm"), MODULE).unwrap();
    let o = run_in(&dir, &["dis", "-o", "no/such/dir/out.txt", "-"], &[0; 3]);
    assert_exit(&o, 1); // the input is bad before anything is written
    let o = run_in(&dir, &["as", "m.spvasm", "-o", "no/such/dir/out.spv"], b"");
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("no/such/dir/out.spv"), "{}", stderr(&o));
}

// ---- the finished product: these need the assembler / disassembler ----

#[test]
fn assembly_errors_are_located_rustc_style() {
    let dir = scratch("cli-located");
    let text = "OpCapability Shader\nOpBogus %x\n";
    std::fs::write(dir.join("bad.spvasm"), text).unwrap();
    let o = run_in(&dir, &["as", "bad.spvasm"], b"");
    assert_exit(&o, 1);
    let err = stderr(&o);
    assert!(err.contains("error["), "a coded error: {err}");
    assert!(err.contains(" --> bad.spvasm:2:1"), "located on line 2: {err}");
    assert!(err.contains("2 | OpBogus %x"), "the line is quoted: {err}");
    assert!(err.contains("  | ^"), "with a caret: {err}");
    assert!(!dir.join("out.spv").exists(), "no output on failure");
}

#[test]
fn as_writes_out_spv_by_default_like_spirv_as() {
    let dir = scratch("cli-default-out");
    std::fs::write(dir.join("m.spvasm"), MODULE).unwrap();
    let o = run_in(&dir, &["as", "m.spvasm"], b"");
    assert_exit(&o, 0);
    assert!(o.stdout.is_empty(), "nothing on stdout");
    let ours = std::fs::read(dir.join("out.spv")).expect("out.spv written");
    assert_eq!(&ours[..4], &[0x03, 0x02, 0x23, 0x07], "little-endian magic");
    if let Some(reference) = reference_as("as_writes_out_spv_by_default_like_spirv_as", MODULE, &[]) {
        assert_eq!(ours, reference);
    }
}

#[test]
fn as_reads_stdin_and_writes_stdout() {
    let o = run_in(&root(), &["as", "-", "-o", "-"], MODULE.as_bytes());
    assert_exit(&o, 0);
    assert_eq!(&o.stdout[..4], &[0x03, 0x02, 0x23, 0x07]);
    // No file argument also means stdin.
    let o2 = run_in(&root(), &["as", "-o", "-"], MODULE.as_bytes());
    assert_exit(&o2, 0);
    assert_eq!(o.stdout, o2.stdout);
    if let Some(reference) = reference_as("as_reads_stdin_and_writes_stdout", MODULE, &[]) {
        assert_eq!(o.stdout, reference);
    }
}

#[test]
fn as_flags_match_spirv_as() {
    let cases: &[(&str, &[&str])] = &[
        (MODULE, &["--target-env", "vulkan1.0"]),
        (MODULE, &["--target-env", "spv1.3"]),
        (NUMERIC, &["--preserve-numeric-ids"]),
        (NUMERIC, &[]),
    ];
    for (text, flags) in cases {
        let mut args = vec!["as"];
        args.extend_from_slice(flags);
        args.extend(["-", "-o", "-"]);
        let o = run_in(&root(), &args, text.as_bytes());
        assert_exit(&o, 0);
        if let Some(reference) = reference_as("as_flags_match_spirv_as", text, flags) {
            assert_eq!(o.stdout, reference, "spvlab as {flags:?}");
        }
    }
}

#[test]
fn every_target_env_writes_the_version_word_spirv_as_writes() {
    for &(env, _) in spvlab_core::env::TARGET_ENVS {
        let flags = ["--target-env", env];
        let o = run_in(&root(), &["as", "--target-env", env, "-", "-o", "-"], MODULE.as_bytes());
        assert_exit(&o, 0);
        let Some(reference) = reference_as("every_target_env", MODULE, &flags) else { return };
        assert_eq!(o.stdout, reference, "spvlab as --target-env {env}");
    }
}

#[test]
fn dis_matches_spirv_dis() {
    let test = "dis_matches_spirv_dis";
    let Some(binary) = reference_as(test, MODULE, &[]) else { return };
    let dir = scratch("cli-dis");
    std::fs::write(dir.join("m.spv"), &binary).unwrap();
    for flags in [&[][..], &["--raw-id"], &["--no-header"], &["--no-indent"], &["--raw-id", "--no-header", "--no-indent"]] {
        let mut args = vec!["dis"];
        args.extend_from_slice(flags);
        args.push("m.spv");
        let o = run_in(&dir, &args, b"");
        assert_exit(&o, 0);
        let reference = reference_dis(test, &binary, flags).unwrap();
        assert_eq!(stdout(&o), reference, "spvlab dis {flags:?}");
    }
}

#[test]
fn dis_reads_stdin_writes_files_and_takes_big_endian() {
    let test = "dis_reads_stdin_writes_files_and_takes_big_endian";
    let Some(binary) = reference_as(test, MODULE, &[]) else { return };
    let reference = reference_dis(test, &binary, &[]).unwrap();
    let dir = scratch("cli-dis-io");
    let o = run_in(&dir, &["dis", "-"], &binary);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), reference);
    let o = run_in(&dir, &["dis", "-o", "m.spvasm"], &binary);
    assert_exit(&o, 0);
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(dir.join("m.spvasm")).unwrap(), reference);
    let big: Vec<u8> = binary.chunks_exact(4).flat_map(|c| [c[3], c[2], c[1], c[0]]).collect();
    let o = run_in(&dir, &["dis", "-"], &big);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), reference, "a big-endian binary reads the same");
}

#[test]
fn round_trip_through_pipes() {
    let o = run_in(&root(), &["as", "-o", "-", "-"], MODULE.as_bytes());
    assert_exit(&o, 0);
    let d = run_in(&root(), &["dis", "--raw-id"], &o.stdout);
    assert_exit(&d, 0);
    let again = run_in(&root(), &["as", "--preserve-numeric-ids", "-o", "-"], &d.stdout);
    assert_exit(&again, 0);
    assert_eq!(again.stdout, o.stdout, "as . dis --raw-id . as is the identity");
}
