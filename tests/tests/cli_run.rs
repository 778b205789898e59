//! `spvlab run`, run as a process: a small kernel written here, its buffers
//! given in the input language, its output read back by the buffers' types;
//! the step budget; exit codes (0 the run finished, 1 bad input or a run
//! error, 2 bad usage). The expected values are worked out by hand from the
//! SPIR-V semantics of the kernel (OpIMul, OpIAdd and OpFMul on the values
//! given).

use std::process::Output;

use serde_json::Value;
use spvlab_tests::{assert_exit, reference_or_skip, root, run_spvlab, run_tool, scratch};

/// out.data[i] = in.data[i] * MUL + i and out.f[i] = fin.data[i] * 0.5, for
/// i = GlobalInvocationId.x; MUL is spec constant 0 (default 3).
const KERNEL: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %out %in %fin
               OpExecutionMode %main LocalSize 4 1 1
               OpName %out "out"
               OpName %in "in"
               OpName %fin "fin"
               OpMemberName %Out 0 "data"
               OpMemberName %Out 1 "f"
               OpMemberName %In 0 "data"
               OpMemberName %Fin 0 "data"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %mul SpecId 0
               OpDecorate %arr4 ArrayStride 4
               OpDecorate %farr4 ArrayStride 4
               OpDecorate %rarr ArrayStride 4
               OpDecorate %frarr ArrayStride 4
               OpDecorate %Out Block
               OpDecorate %In Block
               OpDecorate %Fin Block
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %Out 1 Offset 16
               OpMemberDecorate %In 0 Offset 0
               OpMemberDecorate %Fin 0 Offset 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 1
               OpDecorate %fin DescriptorSet 0
               OpDecorate %fin Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_4 = OpConstant %uint 4
       %half = OpConstant %float 0.5
        %mul = OpSpecConstant %uint 3
     %v3uint = OpTypeVector %uint 3
   %p_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %p_v3uint Input
       %arr4 = OpTypeArray %uint %uint_4
      %farr4 = OpTypeArray %float %uint_4
       %rarr = OpTypeRuntimeArray %uint
      %frarr = OpTypeRuntimeArray %float
        %Out = OpTypeStruct %arr4 %farr4
         %In = OpTypeStruct %rarr
        %Fin = OpTypeStruct %frarr
      %p_Out = OpTypePointer StorageBuffer %Out
       %p_In = OpTypePointer StorageBuffer %In
      %p_Fin = OpTypePointer StorageBuffer %Fin
     %p_uint = OpTypePointer StorageBuffer %uint
    %p_float = OpTypePointer StorageBuffer %float
        %out = OpVariable %p_Out StorageBuffer
         %in = OpVariable %p_In StorageBuffer
        %fin = OpVariable %p_Fin StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
        %src = OpAccessChain %p_uint %in %uint_0 %i
          %x = OpLoad %uint %src
         %xm = OpIMul %uint %x %mul
          %y = OpIAdd %uint %xm %i
        %dst = OpAccessChain %p_uint %out %uint_0 %i
               OpStore %dst %y
       %fsrc = OpAccessChain %p_float %fin %uint_0 %i
         %fx = OpLoad %float %fsrc
         %fy = OpFMul %float %fx %half
       %fdst = OpAccessChain %p_float %out %uint_1 %i
               OpStore %fdst %fy
               OpReturn
               OpFunctionEnd
"#;

/// A loop that never ends: its header branches back to itself.
const ENDLESS: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %true = OpConstantTrue %bool
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
               OpLoopMerge %merge %loop None
               OpBranchConditional %true %loop %merge
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
"#;

const IN: &str = "--buffer=0.1=u32: 1 2 3 4";
const FIN: &str = "--buffer=0.2=f32: 1 3 -2 1e3";

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn run_prints_each_buffer_by_its_type() {
    let o = run_spvlab(&root(), &["run", "-", IN, FIN], KERNEL.as_bytes());
    assert_exit(&o, 0);
    let out = stdout(&o);
    // 1*3+0, 2*3+1, 3*3+2, 4*3+3; 1*0.5, 3*0.5, -2*0.5, 1000*0.5.
    let expected = "\
set 0 binding 0: out (storage buffer, 32 bytes)
  out.data[0] = 3
  out.data[1] = 7
  out.data[2] = 11
  out.data[3] = 15
  out.f[0] = 0.5
  out.f[1] = 1.5
  out.f[2] = -1.0
  out.f[3] = 500.0
set 0 binding 1: in (storage buffer, 16 bytes)
  in.data[0] = 1
  in.data[1] = 2
  in.data[2] = 3
  in.data[3] = 4
set 0 binding 2: fin (storage buffer, 16 bytes)
  fin.data[0] = 1.0
  fin.data[1] = 3.0
  fin.data[2] = -2.0
  fin.data[3] = 1000.0
";
    assert_eq!(out, expected);

    // The spec constant overridden: 1*5+0, 2*5+1, 3*5+2, 4*5+3; seq for `in`.
    let o = run_spvlab(&root(), &["run", "-", "--spec", "0=5", "--buffer", "0.1=seq:1,1,4", FIN], KERNEL.as_bytes());
    assert_exit(&o, 0);
    let out = stdout(&o);
    for l in ["out.data[0] = 5\n", "out.data[1] = 11\n", "out.data[2] = 17\n", "out.data[3] = 23\n"] {
        assert!(out.contains(l), "missing {l:?} in\n{out}");
    }
}

#[test]
fn run_json_and_binary_input() {
    let o = run_spvlab(&root(), &["run", "--json", "-", IN, FIN], KERNEL.as_bytes());
    assert_exit(&o, 0);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["entryPoint"], "main");
    assert_eq!(v["invocations"], 4);
    let b = &v["buffers"][0];
    assert_eq!((b["set"].as_u64(), b["binding"].as_u64(), b["name"].as_str()), (Some(0), Some(0), Some("out")));
    assert_eq!(b["value"]["data"], serde_json::json!([3, 7, 11, 15]));
    assert_eq!(b["value"]["f"], serde_json::json!([0.5, 1.5, -1.0, 500.0]));

    // The same module as a binary (assembled by the reference spirv-as).
    let Some(bin) = reference_or_skip("run_json_and_binary_input") else { return };
    let dir = scratch("cli-run-binary");
    std::fs::write(dir.join("k.spvasm"), KERNEL).unwrap();
    let (ok, _, err) =
        run_tool(&bin, "spirv-as", &[dir.join("k.spvasm").to_str().unwrap(), "-o", dir.join("k.spv").to_str().unwrap()]);
    assert!(ok, "spirv-as: {err}");
    let b = run_spvlab(&dir, &["run", "--json", "k.spv", IN, FIN], b"");
    assert_exit(&b, 0);
    assert_eq!(b.stdout, o.stdout, "a binary runs as its text does");
}

#[test]
fn endless_loop_ends_with_the_step_budget_error() {
    let o = run_spvlab(&root(), &["run", "--max-steps", "100", "-"], ENDLESS.as_bytes());
    assert_exit(&o, 1);
    let err = stderr(&o);
    // Located at the loop's conditional branch: its line and first column in the text.
    let line = ENDLESS.lines().position(|l| l.contains("OpBranchConditional")).unwrap() + 1;
    let col = ENDLESS.lines().nth(line - 1).unwrap().find("Op").unwrap() + 1;
    let want = format!(
        "<stdin>:{line}:{col}: error: did not terminate after 100 steps; invocation (0,0,0) was in block %loop"
    );
    assert!(err.contains(&want), "missing {want:?} in\n{err}");
    // With --trace, the path up to the error: %entry, then %loop round and
    // round (one compressed segment), and the back edge's count.
    let o = run_spvlab(&root(), &["run", "--max-steps", "100", "--trace", "0", "-"], ENDLESS.as_bytes());
    assert_exit(&o, 1);
    let out = stdout(&o);
    let l = |name: &str| ENDLESS.lines().position(|x| x.trim() == format!("%{name} = OpLabel")).unwrap() + 1;
    assert!(out.starts_with("path of invocation (0,0,0): "), "{out}");
    assert!(out.contains(&format!("\n  %entry (line {})\n  %loop ×", l("entry"))), "{out}");
    assert!(out.contains("edges taken (all invocations):\n  %entry -> %loop: 1\n  %loop -> %loop: "), "{out}");
    assert!(stderr(&o).contains(&want));
    // With --json, the error as data on stdout: its kind and fields, where
    // it is, and the same message; the text stays on stderr.
    let o = run_spvlab(&root(), &["run", "--json", "--max-steps", "100", "-"], ENDLESS.as_bytes());
    assert_exit(&o, 1);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let e = &v["error"];
    assert_eq!(e["kind"], "noTermination", "{v}");
    assert_eq!(e["steps"], 100, "{v}");
    assert!(e["block"].is_u64(), "{v}");
    assert_eq!(e["invocation"], serde_json::json!([0, 0, 0]), "{v}");
    assert_eq!((e["line"].as_u64(), e["column"].as_u64()), (Some(line as u64), Some(col as u64)), "{v}");
    assert!(want.ends_with(e["message"].as_str().unwrap()), "{v}");
    assert!(stderr(&o).contains(&want));
}

#[test]
fn bad_usage_exits_2_with_a_located_message() {
    let cases: &[(&[&str], &str)] = &[
        (&["--buffer", "0.1=u32: 1 x"], "--buffer 0.1=`u32: 1 x`: column 8: `x` is not a u32"),
        (&["--buffer", "0.1=u8: 255 256"], "column 9: `256` does not fit in u8"),
        (&["--buffer", "0.1=nonsense"], "column 1: expected `zeros`"),
        (&["--buffer", "0.1=seq:0,1"], "give its element count N"),
        (&["--buffer", "0.0=u32: 1 2 3 4 5 6 7 8 9"], "column 22: the buffer holds 32 bytes"),
        (&["--buffer", "0.0=zeros:2"], "column 7: an element count is for a buffer that ends in a runtime array"),
        (&["--buffer", "0.9=zeros"], "binds no buffer at 0.9 (its buffers: 0.0, 0.1, 0.2)"),
        (&["--buffer", "zeros"], "--buffer wants SET.BINDING=SPEC"),
        (&["--dispatch", "0,1,1"], "--dispatch: `0` is not a positive number"),
        (&["--spec", "9=1"], "no spec constant with SpecId 9"),
        (&["--spec", "0=-1"], "is not a u32"),
        (&["--entry", "other"], "--entry `other`: no GLCompute, Kernel or Fragment entry point of that name"),
        (&["--max-steps", "x"], "--max-steps: `x` is not a positive number"),
        (&["--seed", "-1"], "--seed: `-1` is not a number"),
    ];
    for (args, want) in cases {
        let mut a = vec!["run", "-"];
        a.extend_from_slice(args);
        let o = run_spvlab(&root(), &a, KERNEL.as_bytes());
        assert_exit(&o, 2);
        assert!(stderr(&o).contains(want), "{args:?}: missing {want:?} in\n{}", stderr(&o));
    }
}

#[test]
fn invalid_input_and_run_errors_exit_1() {
    // Not valid (a float stored through a pointer to uint): refused with the
    // validator's diagnostics.
    let bad = KERNEL.replace("OpStore %dst %y", "OpStore %dst %fy");
    let o = run_spvlab(&root(), &["run", "-", IN, FIN], bad.as_bytes());
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("error["), "{}", stderr(&o));
    // `in` left as zeros: its runtime array has no elements, so the first
    // load reads past its end, at the OpLoad of line `%x = OpLoad`.
    let o = run_spvlab(&root(), &["run", "-", FIN], KERNEL.as_bytes());
    assert_exit(&o, 1);
    let line = KERNEL.lines().position(|l| l.contains("%x = OpLoad")).unwrap() + 1;
    let err = stderr(&o);
    assert!(err.contains(&format!("<stdin>:{line}:")) && err.contains("out-of-bounds"), "{err}");
}

/// Paths known by reading: `%self` loops 3 times on itself, `%spin` and
/// `%spin2` 4 times as a pair; then invocation 0 (x = 0) takes the switch's
/// case 0 to `%zero`, which calls `%f`, and invocation 1 the default `%other`.
const TRACED: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 2 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
       %p_in = OpTypePointer Input %v3uint
        %gid = OpVariable %p_in Input
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u3 = OpConstant %uint 3
         %u4 = OpConstant %uint 4
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
               OpBranch %self
       %self = OpLabel
          %j = OpPhi %uint %u0 %entry %jn %self
         %jn = OpIAdd %uint %j %u1
        %jlt = OpULessThan %bool %jn %u3
               OpLoopMerge %mid %self None
               OpBranchConditional %jlt %self %mid
        %mid = OpLabel
               OpBranch %spin
       %spin = OpLabel
          %i = OpPhi %uint %u0 %mid %in %spin2
               OpLoopMerge %sel %spin2 None
               OpBranch %spin2
      %spin2 = OpLabel
         %in = OpIAdd %uint %i %u1
        %ilt = OpULessThan %bool %in %u4
               OpBranchConditional %ilt %spin %sel
        %sel = OpLabel
               OpSelectionMerge %done None
               OpSwitch %x %other 0 %zero
       %zero = OpLabel
          %r = OpFunctionCall %void %f
               OpBranch %done
      %other = OpLabel
               OpBranch %done
       %done = OpLabel
               OpReturn
               OpFunctionEnd
          %f = OpFunction %void None %fn
     %fentry = OpLabel
               OpReturn
               OpFunctionEnd
"#;

/// The line of `%name = OpLabel` in `text`.
fn label_line(text: &str, name: &str) -> usize {
    let def = format!("%{name} = OpLabel");
    text.lines().position(|l| l.trim() == def).expect("the label") + 1
}

#[test]
fn run_trace_prints_the_compressed_path_and_the_edges() {
    let o = run_spvlab(&root(), &["run", "-", "--trace", "0,0,0", "--trace=1"], TRACED.as_bytes());
    assert_exit(&o, 0);
    let l = |n: &str| label_line(TRACED, n);
    let common = format!(
        "  %entry (line {})\n  %self ×3 (line {})\n  %mid (line {})\n  ×4:\n    %spin (line {})\n    %spin2 (line {})\n  %sel (line {})\n",
        l("entry"), l("self"), l("mid"), l("spin"), l("spin2"), l("sel")
    );
    let want = format!(
        "no buffers bound\n\
         path of invocation (0,0,0): 17 blocks\n{common}  %zero (line {})\n  %fentry in %f (line {})\n  %done (line {})\n\
         path of invocation (1,0,0): 16 blocks\n{common}  %other (line {})\n  %done (line {})\n\
         edges taken (all invocations):\n  %entry -> %self: 2\n  %self -> %self: 4\n  %self -> %mid: 2\n  %mid -> %spin: 2\n  \
         %spin -> %spin2: 8\n  %spin2 -> %spin: 6\n  %spin2 -> %sel: 2\n  %sel -> %zero: 1\n  %sel -> %other: 1\n  \
         %zero -> %done: 1\n  %other -> %done: 1\n",
        l("zero"), l("fentry"), l("done"), l("other"), l("done")
    );
    assert_eq!(stdout(&o), want);
    // No --trace: no trace.
    let o = run_spvlab(&root(), &["run", "-"], TRACED.as_bytes());
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "no buffers bound\n");
}

#[test]
fn run_trace_json_and_bad_invocations() {
    let o = run_spvlab(&root(), &["run", "--json", "-", "--trace", "1,0"], TRACED.as_bytes());
    assert_exit(&o, 0);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let t = &v["trace"];
    let p = &t["paths"][0];
    assert_eq!(p["invocation"], serde_json::json!([1, 0, 0]));
    assert_eq!(p["blocks"], 16);
    let segs = p["segments"].as_array().expect("segments");
    // entry, self x3, mid, (spin spin2) x4, then sel other done once.
    let shape: Vec<(Vec<&str>, u64)> = segs
        .iter()
        .map(|s| {
            let names = s["blocks"].as_array().unwrap().iter().map(|b| b["label"].as_str().unwrap()).collect();
            (names, s["count"].as_u64().unwrap())
        })
        .collect();
    let flat: Vec<(Vec<&str>, u64)> = vec![
        (vec!["entry"], 1),
        (vec!["self"], 3),
        (vec!["mid"], 1),
        (vec!["spin", "spin2"], 4),
        (vec!["sel", "other", "done"], 1),
    ];
    assert_eq!(shape, flat);
    assert_eq!(segs[1]["blocks"][0]["line"], label_line(TRACED, "self"));
    let e = &t["edges"][1];
    assert_eq!((e["from"].as_str(), e["to"].as_str(), e["count"].as_u64()), (Some("self"), Some("self"), Some(4)));
    for (arg, want) in [("2,0,0", "--trace 2,0,0: no such invocation in the grid"), ("a", "--trace wants X,Y,Z")] {
        let o = run_spvlab(&root(), &["run", "-", "--trace", arg], TRACED.as_bytes());
        assert_exit(&o, 2);
        assert!(stderr(&o).contains(want), "{arg}: {}", stderr(&o));
    }
}

#[test]
fn run_amber_writes_a_file_that_passes() {
    let dir = scratch("cli-run-amber");
    let file = dir.join("k.amber");
    let f = file.to_str().unwrap();
    let o = run_spvlab(&root(), &["run", "-", IN, FIN, "--spec", "0=5", "--amber", f], KERNEL.as_bytes());
    assert_exit(&o, 0);
    let text = std::fs::read_to_string(&file).expect("the Amber file");
    // out.data: 1*5+0, 2*5+1, 3*5+2, 4*5+3; out.f: halves of 1 3 -2 1000 (uint and
    // float members together: uint32 words, 0.5f = 0x3f000000 = 1056964608, 1.5f =
    // 0x3fc00000 = 1069547520, -1.0f = 0xbf800000 = 3212836864, 500.0f = 0x43fa0000 =
    // 1140457472).
    for l in [
        "EXPECT out IDX 0 EQ 5 11 17 23 1056964608 1069547520 3212836864 1140457472\n",
        "BUFFER in DATA_TYPE uint32 STD430 DATA\n  1 2 3 4\nEND\n",
        "BUFFER fin DATA_TYPE float STD430 DATA\n  1 3 -2 1000\nEND\n",
        "  ATTACH shader ENTRY_POINT main SPECIALIZE 0 AS uint32 5\n",
        "  BIND BUFFER out AS storage DESCRIPTOR_SET 0 BINDING 0\n",
        "RUN pipeline 1 1 1\n",
    ] {
        assert!(text.contains(l), "missing {l:?} in\n{text}");
    }
    let o = run_spvlab(&root(), &["amber", f], b"");
    assert_exit(&o, 0);
    // A changed expectation fails.
    std::fs::write(&file, text.replace("EQ 5 11 17 23", "EQ 5 11 17 24")).unwrap();
    let o = run_spvlab(&root(), &["amber", f], b"");
    assert_exit(&o, 1);
}

// ---- The four extensions and OpenCL kernels ----
// The gallery's four extension modules and one case per extension written
// from its specification (tests/ext/*.spvasm; the expected values are
// worked out by hand in each file's comments).

const GALLERY: &str = "www/src/gallery/examples";

fn run_file(file: &str, args: &[&str]) -> Output {
    let mut a = vec!["run", file];
    a.extend_from_slice(args);
    run_spvlab(&root(), &a, b"")
}

#[test]
fn run_gallery_kernel_sum_with_and_without_the_loop_hint() {
    // data = [1, 2, 3, 4, 5], count = 5: data[0] = 1 + 2 + 3 + 4 + 5 = 15.
    let file = format!("{GALLERY}/ext-unstructured-loop-controls.spvasm");
    let args = ["--buffer", "0.0=u32: 1 2 3 4 5", "--buffer", "0.1=u32: 5"];
    let o = run_file(&file, &args);
    assert_exit(&o, 0);
    let want = "set 0 binding 0: data (kernel parameter, 20 bytes)\n  data[0] = 15\n  data[1] = 2\n  data[2] = 3\n  data[3] = 4\n  data[4] = 5\n";
    assert_eq!(stdout(&o), want);
    // OpLoopControlINTEL is a hint: the same output without it.
    let text = std::fs::read_to_string(root().join(&file)).unwrap();
    let without = text.replace("               OpLoopControlINTEL 1\n", "");
    assert_ne!(without, text);
    let mut a = vec!["run", "-"];
    a.extend_from_slice(&args);
    let o2 = run_spvlab(&root(), &a, without.as_bytes());
    assert_exit(&o2, 0);
    assert_eq!(stdout(&o2), want);
}

#[test]
fn run_gallery_shader_extensions() {
    // Their results stay in Function memory: they run to the end (the values
    // are checked by the core unit tests, interp::tests_ext).
    for m in ["ext-constant-data", "ext-untyped-pointers"] {
        let o = run_file(&format!("{GALLERY}/{m}.spvasm"), &[]);
        assert_exit(&o, 0);
        assert_eq!(stdout(&o), "no buffers bound\n", "{m}");
    }
    // n = 16 bytes a trip, 3 trips.
    let o = run_file(
        &format!("{GALLERY}/ext-variable-length-array.spvasm"),
        &["--buffer", "0.0=u64: 16", "--buffer", "0.1=u64: 3"],
    );
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "no buffers bound\n");
}

#[test]
fn run_vla_squares() {
    // n = 5: out[0] = 0 + 1 + 4 + 9 + 16 = 30, out[1] = 5.
    let o = run_file("tests/ext/vla-squares.spvasm", &["--buffer", "0.0=zeros:2", "--buffer", "0.1=u32: 5"]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "set 0 binding 0: out (kernel parameter, 8 bytes)\n  out[0] = 30\n  out[1] = 5\n");
}

#[test]
fn run_constant_data_packing() {
    // "ABCDEF" (0x41..0x46), then 1 2 3, 5 and 1 (the u64's words),
    // 0xffffffff, str[4] = 0x45 through a variable, and the spec data 9 10.
    let o = run_file("tests/ext/constant-data-packing.spvasm", &["--buffer", "0.0=zeros:15", "--json"]);
    assert_exit(&o, 0);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let want: Vec<u64> = vec![65, 66, 67, 68, 69, 70, 1, 2, 3, 5, 1, 4294967295, 69, 9, 10];
    // The block's member 0 (unnamed), the runtime array.
    let got: Vec<u64> = v["buffers"][0]["value"]["0"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_u64()).collect())
        .unwrap_or_default();
    assert_eq!(got, want, "{}", stdout(&o));
}

#[test]
fn run_untyped_reinterpret() {
    // 1.5f stored as a float and read as a uint: 0x3fc00000 = 1069547520.
    let o = run_file("tests/ext/untyped-reinterpret.spvasm", &["--buffer", "0.0=zeros:6"]);
    assert_exit(&o, 0);
    assert_eq!(
        stdout(&o),
        "set 0 binding 0: buf (storage buffer, 24 bytes)\n  buf[0] = 0\n  buf[1] = 1069547520\n  buf[2] = 1069547520\n  buf[3] = 7\n  buf[4] = 2\n  buf[5] = 1\n"
    );
}

#[test]
fn run_kernel_loop_controls_and_usage() {
    // Four invocations: out[g] = sum of j! for j <= g = [1, 2, 4, 10].
    let file = "tests/ext/loop-controls-kernel.spvasm";
    let o = run_file(file, &["--buffer", "0.0=zeros:4"]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "set 0 binding 0: out (kernel parameter, 16 bytes)\n  out[0] = 1\n  out[1] = 2\n  out[2] = 4\n  out[3] = 10\n");
    // A pointer parameter must be given; there is no parameter 3.
    let o = run_file(file, &[]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("kernel parameter 0 (`out`) is a pointer: give its buffer at 0.0"), "{}", stderr(&o));
    let o = run_file(file, &["--buffer", "0.0=zeros:4", "--buffer", "0.3=zeros"]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("kernel `factorials` has no parameter there (its parameters: 0.0 out)"), "{}", stderr(&o));
    // A buffer too short for the four invocations: out[3] is out of bounds.
    let o = run_file(file, &["--buffer", "0.0=zeros:3"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("out-of-bounds access: 4 bytes at offset 12"), "{}", stderr(&o));
}

/// `--robust-access`: `in` has two elements; invocations 2 and 3 read
/// in.data[2] and in.data[3], clamped to in.data[1] = 2: out.data =
/// 1*3+0, 2*3+1, 2*3+2, 2*3+3. Without it, the same run reads out of bounds.
#[test]
fn robust_access_clamps_the_indices() {
    let small = "--buffer=0.1=u32: 1 2";
    let o = run_spvlab(&root(), &["run", "-", small, FIN, "--robust-access"], KERNEL.as_bytes());
    assert_exit(&o, 0);
    let out = stdout(&o);
    for l in ["out.data[0] = 3\n", "out.data[1] = 7\n", "out.data[2] = 8\n", "out.data[3] = 9\n"] {
        assert!(out.contains(l), "missing {l:?} in\n{out}");
    }
    let o = run_spvlab(&root(), &["run", "-", small, FIN], KERNEL.as_bytes());
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("out-of-bounds"), "{}", stderr(&o));
}

/// Four invocations take tickets from an atomic counter (t.count, OpAtomicIIncrement
/// returns the old value) and store each at t.order[gid]: race-free, but the
/// tickets follow the order the invocations run in.
const TICKETS: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %t
               OpExecutionMode %main LocalSize 4 1 1
               OpName %t "t"
               OpMemberName %T 0 "count"
               OpMemberName %T 1 "order"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %arr4 ArrayStride 4
               OpDecorate %T Block
               OpMemberDecorate %T 0 Offset 0
               OpMemberDecorate %T 1 Offset 4
               OpDecorate %t DescriptorSet 0
               OpDecorate %t Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_4 = OpConstant %uint 4
     %v3uint = OpTypeVector %uint 3
   %p_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %p_v3uint Input
       %arr4 = OpTypeArray %uint %uint_4
          %T = OpTypeStruct %uint %arr4
        %p_T = OpTypePointer StorageBuffer %T
     %p_uint = OpTypePointer StorageBuffer %uint
          %t = OpVariable %p_T StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g3 0
          %c = OpAccessChain %p_uint %t %uint_0
         %tk = OpAtomicIIncrement %uint %c %uint_1 %uint_0
          %o = OpAccessChain %p_uint %t %uint_1 %x
               OpStore %o %tk
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn a_seed_picks_the_order_of_the_invocations() {
    let order = |o: &Output| -> Vec<u64> {
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        v["buffers"][0]["value"]["order"].as_array().expect("order").iter().map(|x| x.as_u64().unwrap()).collect()
    };
    let o = run_spvlab(&root(), &["run", "--json", "-"], TICKETS.as_bytes());
    assert_exit(&o, 0);
    assert_eq!(order(&o), vec![0, 1, 2, 3], "unseeded: in order");
    let mut differs = false;
    for seed in 0..8 {
        let s = seed.to_string();
        let o = run_spvlab(&root(), &["run", "--json", "--seed", &s, "-"], TICKETS.as_bytes());
        assert_exit(&o, 0);
        let got = order(&o);
        let mut sorted = got.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3], "seed {seed}: each ticket once");
        differs |= got != [0, 1, 2, 3];
    }
    assert!(differs, "no seed of 8 changed the order");
    // The race-free KERNEL prints the same buffers under a seed.
    let a = run_spvlab(&root(), &["run", "-", IN, FIN], KERNEL.as_bytes());
    let b = run_spvlab(&root(), &["run", "--seed", "12345", "-", IN, FIN], KERNEL.as_bytes());
    assert_exit(&b, 0);
    assert_eq!(stdout(&a), stdout(&b));
}

#[test]
fn a_data_race_names_both_accesses_by_line_and_column() {
    // TICKETS with a plain load and store in place of the atomic increment:
    // invocation 0 writes t.count, then invocation 1 reads it, with no
    // barrier between them.
    let racy = TICKETS.replace(
        "         %tk = OpAtomicIIncrement %uint %c %uint_1 %uint_0\n",
        "         %tk = OpLoad %uint %c\n         %t1 = OpIAdd %uint %tk %uint_1\n               OpStore %c %t1\n",
    );
    let o = run_spvlab(&root(), &["run", "-"], racy.as_bytes());
    assert_exit(&o, 1);
    let at = |needle: &str| {
        let line = racy.lines().position(|l| l.contains(needle)).unwrap() + 1;
        let col = racy.lines().nth(line - 1).unwrap().find(needle).unwrap() + 1;
        format!("{line}:{col}")
    };
    let (load, store) = (at("%tk = OpLoad"), at("OpStore %c %t1"));
    let want = format!(
        "<stdin>:{load}: error: data race on the buffer at set 0, binding 0 at byte 0: invocation (0,0,0) wrote at {store}, invocation (1,0,0) read at {load} (with no OpControlBarrier between them in one workgroup)"
    );
    assert!(stderr(&o).contains(&want), "missing {want:?} in\n{}", stderr(&o));
}
