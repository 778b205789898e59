//! The WGSL emitter, construct by construct: small modules (checked valid by
//! spirv-val when installed, and by us), each function's shape built by hand
//! where it has control flow, the expected WGSL written by hand from the
//! semantics, and every WGSL we emit parsed and validated by naga 30.

use naga::valid::{Capabilities, ValidationFlags, Validator};
use spvlab_core::analysis::{Analysis, locate_all};
use spvlab_core::diag::line_col;
use spvlab_core::valid::Options;
use spvlab_core::wgsl::shape::{Case, CaseValues, Cond, Selector, Shape, ShapeError, Stmt};
use spvlab_core::wgsl::{self, Limit, NotLowered, Refusal, RefusalCode, Wgsl};
use spvlab_core::{Module, TargetEnv};
use spvlab_tests::assert_valid_module;

fn analysis(src: &str, env: &str) -> Analysis {
    let a = Analysis::of_text(src, &Options { env: TargetEnv::parse(env).unwrap(), ..Options::default() });
    assert!(a.is_valid(), "{:#?}", a.diagnostics());
    a
}

/// Lower `src` with `shape` for every function (or the stand-in structure).
fn lower(test: &str, src: &str, shape: Option<Shape>) -> Result<Wgsl, Vec<Refusal>> {
    assert_valid_module(test, src, "spv1.3");
    let a = analysis(src, "spv1.3");
    let s = |m: &Module, f: &spvlab_core::cfg::FunctionCfg| -> Result<Shape, ShapeError> {
        match &shape {
            Some(s) => Ok(s.clone()),
            None => wgsl::shape::structure(m, f),
        }
    };
    wgsl::lower_with(a.ir().unwrap(), a.cfg(), &wgsl::Options::default(), &s)
}

#[track_caller]
fn naga_accepts(text: &str) {
    let m = naga::front::wgsl::parse_str(text).unwrap_or_else(|e| panic!("{}\n{text}", e.emit_to_string(text)));
    let caps = Capabilities::default() | Capabilities::SHADER_FLOAT16;
    if let Err(e) = Validator::new(ValidationFlags::all(), caps).validate(&m) {
        panic!("{}\n{text}", e.emit_to_string(text));
    }
}

#[track_caller]
fn lowers_to(test: &str, src: &str, shape: Option<Shape>, want: &str) -> Wgsl {
    let w = lower(test, src, shape).unwrap_or_else(|r| panic!("{test}: refused: {r:?}"));
    naga_accepts(&w.text);
    assert_eq!(w.text, want, "{test}:\n{}", w.text);
    assert_eq!(w.lines.len(), w.text.lines().count(), "{test}: one source-map entry per line");
    w
}

/// The refusal of `src`: its code, and the line:col of its instruction in the text.
#[track_caller]
fn refused(test: &str, src: &str) -> (RefusalCode, (u32, u32), String) {
    assert_valid_module(test, src, "spv1.3");
    let a = analysis(src, "spv1.3");
    let r = wgsl::lower(a.ir().unwrap(), a.cfg(), &wgsl::Options::default()).expect_err(test);
    let mut d = vec![r[0].diagnostic(a.ir().unwrap())];
    locate_all(a.source_map(), &mut d);
    assert!(!r[0].why().is_empty(), "{test}: no reason");
    (r[0].code, line_col(src, d[0].span.start), r[0].message.clone())
}

const HEAD: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 4 1 1
OpName %main \"main\"
OpName %out \"out\"
OpName %buf \"Buf\"
OpMemberName %buf 0 \"data\"
OpName %gid \"gid\"
";

const TYPES: &str = "%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%ptr_in_v3uint = OpTypePointer Input %v3uint
%gid = OpVariable %ptr_in_v3uint Input
%rt = OpTypeRuntimeArray %uint
%buf = OpTypeStruct %rt
%ptr_sb_buf = OpTypePointer StorageBuffer %buf
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
%out = OpVariable %ptr_sb_buf StorageBuffer
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u7 = OpConstant %uint 7
";

const DECOS: &str = "OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %rt ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
";

/// A compute module: `names` (OpName lines), `decos`, `types` and the body
/// of `main` added to the common parts.
fn module(names: &str, decos: &str, types: &str, body: &str) -> String {
    format!("{HEAD}{names}{DECOS}{decos}{TYPES}{types}%main = OpFunction %void None %fn\n{body}OpFunctionEnd\n")
}

const WRAPPER: &str = "@compute @workgroup_size(4, 1, 1)
fn main(@builtin(global_invocation_id) p0: vec3<u32>) {
  gid = p0;
  main_1();
}

";

#[test]
fn straight_line_store_of_the_invocation_id() {
    let src = module(
        "OpName %id \"id\"\nOpName %x \"x\"\nOpName %y \"y\"\n",
        "",
        "",
        "%e = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
%p = OpAccessChain %ptr_sb_uint %out %u0 %x
%y = OpIMul %uint %x %u7
OpStore %p %y
OpReturn
",
    );
    let want = format!(
        "struct Buf {{
  data: array<u32>,
}}

var<private> gid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> out: Buf;

fn main_1() {{
  let id: vec3<u32> = gid;
  let x: u32 = id[0];
  let y: u32 = (x * 7u);
  out.data[x] = y;
  return;
}}

{WRAPPER}"
    );
    let w = lowers_to("straight_line", &src, None, &want);
    // The source map: the multiplication's line comes from the OpIMul.
    let k = w.text.lines().position(|l| l.contains("(x * 7u)")).unwrap();
    let a = analysis(&src, "spv1.3");
    let i = w.lines[k].unwrap() as usize;
    assert_eq!(a.ir().unwrap().opcode(i), spvlab_core::grammar::op::OpIMul);
}

/// The id named `name` by OpName.
fn id_of(src: &str, name: &str) -> u32 {
    let a = analysis(src, "spv1.3");
    let ir = a.ir().unwrap();
    ir.names.iter().find(|n| n.member.is_none() && n.text == name).map(|n| n.target).unwrap()
}

#[test]
fn if_else_with_a_phi() {
    let src = module(
        "OpName %id \"id\"\nOpName %x \"x\"\nOpName %c \"c\"\nOpName %a \"a\"\nOpName %r \"r\"\n",
        "",
        "",
        "%e = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
%c = OpULessThan %bool %x %u2
OpSelectionMerge %m None
OpBranchConditional %c %t %f
%t = OpLabel
%a = OpIAdd %uint %x %u1
OpBranch %m
%f = OpLabel
OpBranch %m
%m = OpLabel
%r = OpPhi %uint %a %t %u7 %f
%p = OpAccessChain %ptr_sb_uint %out %u0 %x
OpStore %p %r
OpReturn
",
    );
    let c = id_of(&src, "c");
    // Blocks: 0 entry, 1 then, 2 else, 3 merge.
    let shape = Shape {
        body: vec![
            Stmt::Block(0),
            Stmt::If {
                cond: Cond::Id(c),
                then: vec![Stmt::Block(1), Stmt::Phis { from: 1, to: 3 }],
                els: vec![Stmt::Block(2), Stmt::Phis { from: 2, to: 3 }],
            },
            Stmt::Block(3),
            Stmt::Return(None),
        ],
        flags: 0,
        vars: 0,
    };
    // x, c and a are used outside their blocks (c by the branch, a by the
    // OpPhi): function variables, like the OpPhi's r.
    let want = format!(
        "struct Buf {{
  data: array<u32>,
}}

var<private> gid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> out: Buf;

fn main_1() {{
  var x: u32;
  var c: bool;
  var a: u32;
  var r: u32;
  let id: vec3<u32> = gid;
  x = id[0];
  c = (x < 2u);
  if c {{
    a = (x + 1u);
    r = a;
  }} else {{
    r = 7u;
  }}
  out.data[x] = r;
  return;
}}

{WRAPPER}"
    );
    lowers_to("if_else_with_a_phi", &src, Some(shape), &want);
}

#[test]
fn loop_with_continuing_and_break_if() {
    let src = module(
        "OpName %i \"i\"\nOpName %n \"n\"\nOpName %k \"k\"\n",
        "",
        "",
        "%e = OpLabel
OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %e %n %c
OpLoopMerge %m %c None
OpBranch %b
%b = OpLabel
%p = OpAccessChain %ptr_sb_uint %out %u0 %i
OpStore %p %i
OpBranch %c
%c = OpLabel
%n = OpIAdd %uint %i %u1
%k = OpULessThan %bool %n %u7
OpBranchConditional %k %h %m
%m = OpLabel
OpReturn
",
    );
    let k = id_of(&src, "k");
    // Blocks: 0 entry, 1 header, 2 body, 3 continue target, 4 merge.
    let shape = Shape {
        body: vec![
            Stmt::Block(0),
            Stmt::Phis { from: 0, to: 1 },
            Stmt::Loop {
                body: vec![Stmt::Block(1), Stmt::Block(2)],
                continuing: vec![Stmt::Block(3), Stmt::Phis { from: 3, to: 1 }],
                break_if: Some(Cond::Not(Box::new(Cond::Id(k)))),
            },
            Stmt::Block(4),
            Stmt::Return(None),
        ],
        flags: 0,
        vars: 0,
    };
    // The invocation id is unused: not declared, not a parameter.
    let want = "struct Buf {
  data: array<u32>,
}

@group(0) @binding(0) var<storage, read_write> out: Buf;

fn main_1() {
  var i: u32;
  var n: u32;
  var k: bool;
  i = 0u;
  loop {
    out.data[i] = i;
    continuing {
      n = (i + 1u);
      k = (n < 7u);
      i = n;
      break if !(k);
    }
  }
  return;
}

@compute @workgroup_size(4, 1, 1)
fn main() {
  main_1();
}

";
    lowers_to("loop_with_continuing_and_break_if", &src, Some(shape), want);
}

const SWITCH_BODY: &str = "%e = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
OpSelectionMerge %m None
OpSwitch %x %d 1 %c1 2 %c2
%c1 = OpLabel
%p0 = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %p0 %u1
OpBranch %c2
%c2 = OpLabel
%p1 = OpAccessChain %ptr_sb_uint %out %u0 %u1
OpStore %p1 %u2
OpBranch %m
%d = OpLabel
OpBranch %m
%m = OpLabel
OpReturn
";

#[test]
fn switch_fallthrough_by_a_guard_flag() {
    let src = module("OpName %id \"id\"\nOpName %x \"x\"\n", "", "", SWITCH_BODY);
    let x = id_of(&src, "x");
    // Blocks: 0 entry, 1 case 1 (falls into case 2), 2 case 2, 3 default, 4 merge.
    // Case 2's block runs after the switch when a guard says so.
    let shape = Shape {
        body: vec![
            Stmt::Block(0),
            Stmt::Switch {
                selector: Selector::Id(x),
                cases: vec![
                    Case {
                        values: CaseValues::Values(vec![1]),
                        body: vec![Stmt::Block(1), Stmt::SetFlag { flag: 0, value: true }],
                    },
                    Case { values: CaseValues::Values(vec![2]), body: vec![Stmt::SetFlag { flag: 0, value: true }] },
                    Case { values: CaseValues::Default(vec![]), body: vec![Stmt::Block(3)] },
                ],
            },
            Stmt::If { cond: Cond::Flag(0), then: vec![Stmt::Block(2)], els: vec![] },
            Stmt::Block(4),
            Stmt::Return(None),
        ],
        flags: 1,
        vars: 0,
    };
    let want = format!(
        "struct Buf {{
  data: array<u32>,
}}

var<private> gid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> out: Buf;

fn main_1() {{
  var x: u32;
  var guard0: bool = false;
  let id: vec3<u32> = gid;
  x = id[0];
  switch x {{
    case 1u: {{
      out.data[0u] = 1u;
      guard0 = true;
    }}
    case 2u: {{
      guard0 = true;
    }}
    case default: {{
    }}
  }}
  if guard0 {{
    out.data[1u] = 2u;
  }}
  return;
}}

{WRAPPER}"
    );
    lowers_to("switch_fallthrough_by_a_guard_flag", &src, Some(shape), &want);
}

#[test]
fn dispatch_variables_breaks_and_continues_are_valid_wgsl() {
    let src = module("OpName %id \"id\"\nOpName %x \"x\"\n", "", "", SWITCH_BODY);
    // A loop that runs once, re-dispatching on a variable: every statement
    // kind the structuring may produce.
    let shape = Shape {
        body: vec![
            Stmt::Block(0),
            Stmt::SetVar { var: 0, value: 1 },
            Stmt::Loop {
                body: vec![
                    Stmt::Switch {
                        selector: Selector::Var(0),
                        cases: vec![
                            Case {
                                values: CaseValues::Values(vec![1]),
                                body: vec![Stmt::Block(1), Stmt::SetVar { var: 0, value: 2 }, Stmt::Continue],
                            },
                            Case {
                                values: CaseValues::Default(vec![2]),
                                body: vec![Stmt::Block(2), Stmt::SetFlag { flag: 0, value: true }, Stmt::Break],
                            },
                        ],
                    },
                    Stmt::If { cond: Cond::Flag(0), then: vec![Stmt::Break], els: vec![Stmt::Continue] },
                ],
                continuing: vec![],
                break_if: Some(Cond::VarIs { var: 0, value: 3 }),
            },
            Stmt::If { cond: Cond::True, then: vec![Stmt::Block(4)], els: vec![Stmt::Unreachable] },
            Stmt::Return(None),
        ],
        flags: 1,
        vars: 1,
    };
    let w = lower("dispatch", &src, Some(shape)).unwrap();
    naga_accepts(&w.text);
    for s in ["var dispatch0: u32 = 0u;", "switch dispatch0 {", "case 2u, default: {", "break if (dispatch0 == 3u);", "continue;"] {
        assert!(w.text.contains(s), "{s} missing:\n{}", w.text);
    }
}

#[test]
fn explicit_layout_gets_size_and_stride_wrappers() {
    let src = format!(
        "{HEAD}OpName %L \"Layout\"
OpMemberName %L 0 \"a\"
OpMemberName %L 1 \"b\"
OpMemberName %L 2 \"c\"
OpMemberName %L 3 \"m\"
OpMemberName %L 4 \"arr\"
OpMemberName %L 5 \"rt\"
OpName %lv \"lv\"
OpName %x \"x\"
{DECOS}OpMemberDecorate %L 0 Offset 0
OpMemberDecorate %L 1 Offset 16
OpMemberDecorate %L 2 Offset 40
OpMemberDecorate %L 3 Offset 48
OpMemberDecorate %L 3 ColMajor
OpMemberDecorate %L 3 MatrixStride 16
OpMemberDecorate %L 4 Offset 112
OpMemberDecorate %L 5 Offset 176
OpDecorate %L Block
OpDecorate %arr4 ArrayStride 16
OpDecorate %lv DescriptorSet 0
OpDecorate %lv Binding 1
{TYPES}%v3float = OpTypeVector %float 3
%v4float = OpTypeVector %float 4
%m4 = OpTypeMatrix %v4float 4
%u4 = OpConstant %uint 4
%arr4 = OpTypeArray %float %u4
%L = OpTypeStruct %uint %v3float %float %m4 %arr4 %rt
%ptr_L = OpTypePointer StorageBuffer %L
%ptr_f = OpTypePointer StorageBuffer %float
%lv = OpVariable %ptr_L StorageBuffer
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %ptr_f %lv %u4 %u2
%x = OpLoad %float %p
%q = OpAccessChain %ptr_f %lv %u2
OpStore %q %x
OpReturn
OpFunctionEnd
"
    );
    let w = lower("layout", &src, None).unwrap();
    naga_accepts(&w.text);
    // b ends at 28, c is at 40: b gets @size(24). The float array's stride
    // 16 is had by a wrapper of size 16, read through `.v`.
    for s in [
        "  a: u32,\n  @size(24) b: vec3<f32>,\n  c: f32,\n  m: mat4x4<f32>,\n  arr: array<Stride16_",
        "  @size(16) v: f32,\n",
        "  rt: array<u32>,\n}",
        "let x: f32 = lv.arr[2u].v;",
        "lv.c = x;",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

#[test]
fn refusals_are_located_and_explained() {
    let f64 = "OpCapability Shader
OpCapability Float64
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%double = OpTypeFloat 64
%main = OpFunction %void None %fn
%e = OpLabel
OpReturn
OpFunctionEnd
";
    assert_eq!(refused("f64", f64).0, RefusalCode::Float64);
    assert_eq!(refused("f64", f64).1, (2, 1));
    // A row-major matrix: refused at its struct.
    let rm = format!(
        "{HEAD}{DECOS}OpMemberDecorate %M 0 Offset 0
OpMemberDecorate %M 0 RowMajor
OpMemberDecorate %M 0 MatrixStride 16
OpDecorate %M Block
OpDecorate %mv DescriptorSet 0
OpDecorate %mv Binding 1
{TYPES}%v4float = OpTypeVector %float 4
%m4 = OpTypeMatrix %v4float 4
%M = OpTypeStruct %m4
%ptr_M = OpTypePointer StorageBuffer %M
%ptr_m4 = OpTypePointer StorageBuffer %m4
%mv = OpVariable %ptr_M StorageBuffer
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %ptr_m4 %mv %u0
%x = OpLoad %m4 %p
OpReturn
OpFunctionEnd
"
    );
    let (code, at, msg) = refused("row_major", &rm);
    assert_eq!(code, RefusalCode::Layout);
    let line = rm.lines().position(|l| l.starts_with("%M = OpTypeStruct")).unwrap() as u32 + 1;
    assert_eq!(at, (line, 1));
    assert!(msg.contains("row-major"), "{msg}");
    // A push-constant block whose layout neither the uniform nor the
    // storage address space gives (a row-major matrix): refused at its struct.
    let pc = format!(
        "{HEAD}{DECOS}OpMemberDecorate %P 0 Offset 0
OpMemberDecorate %P 0 RowMajor
OpMemberDecorate %P 0 MatrixStride 16
OpDecorate %P Block
{TYPES}%v4float = OpTypeVector %float 4
%m4 = OpTypeMatrix %v4float 4
%P = OpTypeStruct %m4
%ptr_P = OpTypePointer PushConstant %P
%ptr_pm = OpTypePointer PushConstant %m4
%pv = OpVariable %ptr_P PushConstant
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %ptr_pm %pv %u0
%x = OpLoad %m4 %p
OpReturn
OpFunctionEnd
"
    );
    let (code, at, msg) = refused("push_constant", &pc);
    assert_eq!(code, RefusalCode::Layout);
    let line = pc.lines().position(|l| l.starts_with("%P = OpTypeStruct")).unwrap() as u32 + 1;
    assert_eq!(at, (line, 1));
    assert!(msg.contains("row-major"), "{msg}");
}

/// A push-constant block reading `member` (a u32 at Offset `offset` after a
/// member of type `first`), stored to `out.data[0]`.
fn push_module(first: &str, first_decos: &str, offset: u32, types: &str) -> String {
    module(
        "OpName %P \"P\"\nOpName %pv \"pc\"\nOpName %x \"x\"\n",
        &format!("OpMemberDecorate %P 0 Offset 0\nOpMemberDecorate %P 1 Offset {offset}\nOpDecorate %P Block\n{first_decos}"),
        &format!("{types}%P = OpTypeStruct {first} %uint\n%ptr_P = OpTypePointer PushConstant %P\n%ptr_pu = OpTypePointer PushConstant %uint\n%pv = OpVariable %ptr_P PushConstant\n"),
        "%e = OpLabel
%p = OpAccessChain %ptr_pu %pv %u1
%x = OpLoad %uint %p
%q = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %q %x
OpReturn
",
    )
}

#[test]
fn push_constants_become_a_buffer_at_a_free_binding() {
    // WebGPU has no push constants: the block becomes a uniform buffer in
    // the module's highest set, one past its highest binding (here 0.1),
    // reported to the runner.
    let src = push_module("%uint", "", 4, "");
    let want = "struct Buf {
  data: array<u32>,
}

struct P {
  m0: u32,
  m1: u32,
}

@group(0) @binding(0) var<storage, read_write> out: Buf;
@group(0) @binding(1) var<uniform> pc: P;

fn main_1() {
  let x: u32 = pc.m1;
  out.data[0u] = x;
  return;
}

@compute @workgroup_size(4, 1, 1)
fn main() {
  main_1();
}

".to_string();
    let w = lowers_to("push_uniform", &src, None, &want);
    assert_eq!(w.introduced.len(), 1);
    let i = w.introduced[0];
    assert_eq!((i.group, i.binding, i.kind), (0, 1, wgsl::IntroducedKind::PushConstantUniform));
    assert_eq!(i.variable, id_of(&src, "pc"));
    // An array of stride 4 breaks the uniform address space's rule (a
    // stride multiple of 16), not the storage one's: a read-only storage
    // buffer then.
    let src = push_module(
        "%a2",
        "OpDecorate %a2 ArrayStride 4\n",
        8,
        "%a2 = OpTypeArray %uint %u2\n",
    );
    let w = lower("push_storage", &src, None).unwrap();
    naga_accepts(&w.text);
    assert!(w.text.contains("@group(0) @binding(1) var<storage, read> pc: P;"), "{}", w.text);
    assert!(w.text.contains("  m0: array<u32, 2>,\n  m1: u32,\n"), "{}", w.text);
    assert_eq!(w.introduced[0].kind, wgsl::IntroducedKind::PushConstantStorage);
}

#[test]
fn variable_length_arrays_are_refused_with_a_reason() {
    let Some(corpus) = spvlab_tests::corpus_dir() else { return };
    let src = std::fs::read_to_string(corpus.join("ext-probes/vla.spvasm")).unwrap();
    let a = Analysis::of_text(&src, &Options::default());
    let r = wgsl::lower(a.ir().unwrap(), a.cfg(), &wgsl::Options::default()).unwrap_err();
    assert_eq!(r[0].code, RefusalCode::Vla);
    assert!(r[0].why().contains("variable-length"), "{}", r[0].why());
    let i = r[0].instruction.unwrap() as usize;
    assert_eq!(a.ir().unwrap().opcode(i), spvlab_core::grammar::op::OpSaveMemoryINTEL);
}

#[test]
fn names_are_made_valid_and_unique() {
    let src = module(
        "OpName %a \"var\"\nOpName %b \"__x\"\nOpName %c \"1abc\"\nOpName %d \"a b\"\nOpName %f \"dup\"\nOpName %g \"dup\"\n",
        "",
        "",
        "%e = OpLabel
%a = OpIAdd %uint %u1 %u2
%b = OpIAdd %uint %a %u2
%c = OpIAdd %uint %b %u2
%d = OpIAdd %uint %c %u2
%f = OpIAdd %uint %d %u2
%g = OpIAdd %uint %f %u2
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %p %g
OpReturn
",
    );
    let w = lower("names", &src, None).unwrap();
    naga_accepts(&w.text);
    for s in [
        // Constants only: one is read at run time (WGSL would fold them when
        // the shader is created, and reject what SPIR-V leaves undefined).
        "let var_1: u32 = (select(1u, 1u, run_time) + 2u);",
        // `__` opens names WGSL keeps for itself: one underscore is cut.
        "let _x: u32 = (var_1 + 2u);",
        "let n1abc: u32 = (_x + 2u);",
        "let a_b: u32 = (n1abc + 2u);",
        "let dup: u32 = (a_b + 2u);",
        "let dup_1: u32 = (dup + 2u);",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

#[test]
fn atomics_barriers_and_signedness() {
    let src = module(
        "OpName %old \"old\"\nOpName %s \"s\"\nOpName %q \"q\"\n",
        "",
        "%int_m3 = OpConstant %int -3\n%u264 = OpConstant %uint 264\n",
        "%e = OpLabel
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
%old = OpAtomicIAdd %uint %p %u1 %u0 %u1
OpControlBarrier %u2 %u2 %u264
%s = OpSDiv %uint %old %int_m3
%q = OpShiftRightArithmetic %uint %s %u1
%p1 = OpAccessChain %ptr_sb_uint %out %u0 %u1
OpStore %p1 %q
OpReturn
",
    );
    let w = lower("atomics", &src, None).unwrap();
    naga_accepts(&w.text);
    for s in [
        "data: array<atomic<u32>>,",
        "let old: u32 = atomicAdd(&out.data[0u], 1u);",
        "workgroupBarrier();",
        // OpSDiv reads its operands as signed, whatever their types.
        "let s: u32 = bitcast<u32>((bitcast<i32>(old) / -3i));",
        "let q: u32 = bitcast<u32>((bitcast<i32>(s) >> 1u));",
        "atomicStore(&out.data[1u], q);",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

#[test]
fn spec_constants_become_overrides() {
    let src = module(
        "OpName %n \"n\"\nOpName %y \"y\"\n",
        "OpDecorate %n SpecId 3\n",
        "%n = OpSpecConstant %uint 7\n",
        "%e = OpLabel
%y = OpIMul %uint %n %u2
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %p %y
OpReturn
",
    );
    let w = lower("spec", &src, None).unwrap();
    naga_accepts(&w.text);
    assert!(w.text.contains("@id(3) override n: u32 = 7u;"), "{}", w.text);
    assert!(w.text.contains("let y: u32 = (n * select(2u, 2u, run_time));"), "{}", w.text);
}

#[test]
fn glsl_std_450_maps_to_builtins() {
    let src = format!(
        "OpCapability Shader
%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 4 1 1
OpName %main \"main\"
OpName %out \"out\"
OpName %buf \"Buf\"
OpMemberName %buf 0 \"data\"
OpName %gid \"gid\"
OpName %m \"m\"
OpName %c \"c\"
OpName %b \"b\"
OpName %fr \"fr\"
OpName %wh \"wh\"
{DECOS}{TYPES}%ptr_fn_float = OpTypePointer Function %float
%f1 = OpConstant %float 1.5
%f2 = OpConstant %float 2.25
%main = OpFunction %void None %fn
%e = OpLabel
%wh = OpVariable %ptr_fn_float Function
%m = OpExtInst %float %glsl FMix %f1 %f2 %f1
%c = OpExtInst %uint %glsl SClamp %u7 %u1 %u2
%b = OpExtInst %uint %glsl FindUMsb %c
%fr = OpExtInst %float %glsl Modf %m %wh
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %p %b
OpReturn
OpFunctionEnd
"
    );
    let w = lower("glsl", &src, None).unwrap();
    naga_accepts(&w.text);
    for s in [
        "let m: f32 = mix(select(1.5f, 1.5f, run_time), 2.25f, 1.5f);",
        // SClamp reads its operands as signed.
        "let c: u32 = bitcast<u32>(clamp(bitcast<i32>(select(7u, 7u, run_time)), bitcast<i32>(1u), bitcast<i32>(2u)));",
        "let b: u32 = firstLeadingBit(c);",
        "wh = modf(m).whole;",
        "let fr: f32 = modf(m).fract;",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

#[test]
fn fragment_and_vertex_stage_io() {
    let frag = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %coord %color
OpExecutionMode %main OriginUpperLeft
OpName %main \"main\"
OpName %coord \"coord\"
OpName %color \"color\"
OpName %x \"x\"
OpDecorate %coord BuiltIn FragCoord
OpDecorate %color Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%ptr_in = OpTypePointer Input %v4float
%ptr_out = OpTypePointer Output %v4float
%coord = OpVariable %ptr_in Input
%color = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%e = OpLabel
%x = OpLoad %v4float %coord
OpStore %color %x
OpReturn
OpFunctionEnd
";
    let want = "var<private> coord: vec4<f32>;
var<private> color: vec4<f32>;

fn main_1() {
  let x: vec4<f32> = coord;
  color = x;
  return;
}

struct main_out {
  @location(0) m0: vec4<f32>,
}

@fragment
fn main(@builtin(position) p0: vec4<f32>) -> main_out {
  coord = p0;
  main_1();
  return main_out(color);
}

";
    let w = lower("frag", frag, None).unwrap();
    naga_accepts(&w.text);
    assert_eq!(w.text, want, "{}", w.text);
    // A vertex shader reading VertexIndex as a signed int: cast in the wrapper.
    let vert = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main \"main\" %vi %pos
OpName %main \"main\"
OpName %vi \"vi\"
OpName %pos \"pos\"
OpDecorate %vi BuiltIn VertexIndex
OpDecorate %pos BuiltIn Position
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%ptr_in = OpTypePointer Input %int
%ptr_out = OpTypePointer Output %v4float
%vi = OpVariable %ptr_in Input
%pos = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%e = OpLabel
%i = OpLoad %int %vi
%f = OpConvertSToF %float %i
%v = OpCompositeConstruct %v4float %f %f %f %f
OpStore %pos %v
OpReturn
OpFunctionEnd
";
    let w = lower("vert", vert, None).unwrap();
    naga_accepts(&w.text);
    assert!(w.text.contains("vi = bitcast<i32>(p0);"), "{}", w.text);
    assert!(w.text.contains("@builtin(position) m0: vec4<f32>,"), "{}", w.text);
}

#[test]
fn a_vertex_shader_without_position_returns_one_nothing_reads() {
    // WGSL's vertex stage must return a position; this shader writes only
    // a Location output, so the wrapper returns the origin beside it.
    let vert = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main \"main\" %col
OpName %main \"main\"
OpName %col \"col\"
OpDecorate %col Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%ptr_out = OpTypePointer Output %v4float
%col = OpVariable %ptr_out Output
%half = OpConstant %float 0.5
%v = OpConstantComposite %v4float %half %half %half %half
%main = OpFunction %void None %fn
%e = OpLabel
OpStore %col %v
OpReturn
OpFunctionEnd
";
    let w = lower("vert_no_position", vert, None).unwrap_or_else(|r| panic!("refused: {r:?}"));
    naga_accepts(&w.text);
    assert!(w.text.contains("@location(0) m0: vec4<f32>,\n  @builtin(position) m1: vec4<f32>,"), "{}", w.text);
    assert!(w.text.contains("(col, vec4<f32>(0.0, 0.0, 0.0, 1.0));"), "{}", w.text);
}

#[test]
fn carry_borrow_and_demote() {
    // OpIAddCarry and OpISubBorrow: the wrapped sum or difference and 1
    // where it carried or borrowed, on scalars and vectors; a demote is
    // WGSL's discard, after which the invocation goes on as a helper.
    let frag = "OpCapability Shader
OpCapability DemoteToHelperInvocationEXT
OpExtension \"SPV_EXT_demote_to_helper_invocation\"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %a %col
OpExecutionMode %main OriginUpperLeft
OpName %main \"main\"
OpName %a \"a\"
OpName %col \"col\"
OpDecorate %a Location 0
OpDecorate %a Flat
OpDecorate %col Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%v2uint = OpTypeVector %uint 2
%pair = OpTypeStruct %uint %uint
%vpair = OpTypeStruct %v2uint %v2uint
%ptr_in = OpTypePointer Input %uint
%ptr_out = OpTypePointer Output %v2uint
%a = OpVariable %ptr_in Input
%col = OpVariable %ptr_out Output
%big = OpConstant %uint 4294967295
%main = OpFunction %void None %fn
%e = OpLabel
%x = OpLoad %uint %a
%c = OpIAddCarry %pair %x %big
%s = OpCompositeExtract %uint %c 0
%k = OpCompositeExtract %uint %c 1
%v = OpCompositeConstruct %v2uint %s %k
%b = OpISubBorrow %vpair %v %v
%d = OpCompositeExtract %v2uint %b 1
OpDemoteToHelperInvocationEXT
OpStore %col %d
OpReturn
OpFunctionEnd
";
    let w = lower("carry_borrow_demote", frag, None).unwrap_or_else(|r| panic!("refused: {r:?}"));
    naga_accepts(&w.text);
    for want in [
        "let x15: S8 = S8((x14 + 4294967295u), select(u32(0u), u32(1u), (x14 + 4294967295u) < x14));",
        "let x19: S9 = S9((x18 - x18), select(vec2<u32>(0u), vec2<u32>(1u), x18 < x18));",
        "  discard;\n  col = x20;\n  return;",
    ] {
        assert!(w.text.contains(want), "{want} not in:\n{}", w.text);
    }
}

#[test]
fn sample_mask_is_one_word() {
    // SPIR-V's SampleMask is an array of one int per 32 samples (here
    // signed, in and out); WGSL's sample_mask is the one u32.
    let frag = "OpCapability Shader
OpCapability SampleRateShading
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %min %mout
OpExecutionMode %main OriginUpperLeft
OpName %main \"main\"
OpName %min \"mask_in\"
OpName %mout \"mask_out\"
OpDecorate %min BuiltIn SampleMask
OpDecorate %min Flat
OpDecorate %mout BuiltIn SampleMask
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%uint_1 = OpConstant %uint 1
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%arr = OpTypeArray %int %uint_1
%ptr_in = OpTypePointer Input %arr
%ptr_out = OpTypePointer Output %arr
%ptr_in_int = OpTypePointer Input %int
%ptr_out_int = OpTypePointer Output %int
%min = OpVariable %ptr_in Input
%mout = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%e = OpLabel
%pi = OpAccessChain %ptr_in_int %min %int_0
%m = OpLoad %int %pi
%k = OpBitwiseAnd %int %m %int_1
%po = OpAccessChain %ptr_out_int %mout %int_0
OpStore %po %k
OpReturn
OpFunctionEnd
";
    let w = lower("sample_mask", frag, None).unwrap_or_else(|r| panic!("refused: {r:?}"));
    naga_accepts(&w.text);
    for want in [
        "fn main(@builtin(sample_mask) p0: u32) -> main_out {",
        "  mask_in[0] = bitcast<i32>(p0);",
        "  @builtin(sample_mask) m0: u32,",
        "return main_out(bitcast<u32>(mask_out[0]));",
    ] {
        assert!(w.text.contains(want), "{want} not in:\n{}", w.text);
    }
}

#[test]
fn stage_io_blocks_go_member_by_member() {
    // A vertex shader's output Block and a fragment shader's input Block,
    // each member at its own Location (a flat one among them).
    let src = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %vmain \"vmain\" %vout %pos
OpEntryPoint Fragment %fmain \"fmain\" %fin %col
OpExecutionMode %fmain OriginUpperLeft
OpName %vout \"vout\"
OpName %fin \"fin\"
OpName %col \"col\"
OpName %pos \"pos\"
OpName %Blk \"Blk\"
OpMemberName %Blk 0 \"color\"
OpMemberName %Blk 1 \"id\"
OpDecorate %Blk Block
OpMemberDecorate %Blk 0 Location 0
OpMemberDecorate %Blk 1 Location 1
OpMemberDecorate %Blk 1 Flat
OpDecorate %pos BuiltIn Position
OpDecorate %col Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%v4float = OpTypeVector %float 4
%Blk = OpTypeStruct %v4float %float
%ptr_out_blk = OpTypePointer Output %Blk
%ptr_in_blk = OpTypePointer Input %Blk
%ptr_out_v4 = OpTypePointer Output %v4float
%vout = OpVariable %ptr_out_blk Output
%fin = OpVariable %ptr_in_blk Input
%pos = OpVariable %ptr_out_v4 Output
%col = OpVariable %ptr_out_v4 Output
%half = OpConstant %float 0.5
%v = OpConstantComposite %v4float %half %half %half %half
%b = OpConstantComposite %Blk %v %half
%vmain = OpFunction %void None %fn
%ve = OpLabel
OpStore %vout %b
OpStore %pos %v
OpReturn
OpFunctionEnd
%fmain = OpFunction %void None %fn
%fe = OpLabel
%x = OpLoad %Blk %fin
%c = OpCompositeExtract %v4float %x 0
OpStore %col %c
OpReturn
OpFunctionEnd
";
    let w = lower("io_blocks", src, None).unwrap_or_else(|r| panic!("refused: {r:?}"));
    naga_accepts(&w.text);
    for want in [
        "  @location(0) m0: vec4<f32>,\n  @location(1) @interpolate(flat) m1: f32,\n  @builtin(position) m2: vec4<f32>,",
        "return vmain_out(vout.color, vout.id, pos);",
        "fn fmain(@location(0) p0: vec4<f32>, @location(1) @interpolate(flat) p1: f32) -> fmain_out {",
        "  fin.color = p0;\n  fin.id = p1;",
    ] {
        assert!(w.text.contains(want), "{want} not in:\n{}", w.text);
    }
}

#[test]
fn subgroups_in_a_two_dimensional_workgroup_run_flattened() {
    let src = "OpCapability Shader
OpCapability GroupNonUniform
OpCapability GroupNonUniformVote
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %lid %sid
OpExecutionMode %main LocalSize 4 2 1
OpName %main \"main\"
OpName %out \"out\"
OpName %lid \"lid\"
OpName %sid \"sid\"
OpName %el \"el\"
OpName %any \"any\"
OpDecorate %lid BuiltIn LocalInvocationId
OpDecorate %sid BuiltIn SubgroupLocalInvocationId
OpDecorate %rt ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%v3uint = OpTypeVector %uint 3
%ptr_v3 = OpTypePointer Input %v3uint
%ptr_u_in = OpTypePointer Input %uint
%lid = OpVariable %ptr_v3 Input
%sid = OpVariable %ptr_u_in Input
%rt = OpTypeRuntimeArray %uint
%buf = OpTypeStruct %rt
%ptr_buf = OpTypePointer StorageBuffer %buf
%ptr_u = OpTypePointer StorageBuffer %uint
%out = OpVariable %ptr_buf StorageBuffer
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u3 = OpConstant %uint 3
%main = OpFunction %void None %fn
%e = OpLabel
%l = OpLoad %v3uint %lid
%y = OpCompositeExtract %uint %l 1
%s = OpLoad %uint %sid
%el = OpGroupNonUniformElect %bool %u3
%any = OpGroupNonUniformAny %bool %u3 %el
%v = OpSelect %uint %any %s %y
%p = OpAccessChain %ptr_u %out %u0 %y
OpStore %p %v
OpReturn
OpFunctionEnd
";
    let w = lower("subgroups", src, None).unwrap();
    assert!(w.text.starts_with("enable subgroups;\n"), "{}", w.text);
    // naga 30 has the built-ins but not the directive.
    let text = w.text.replace("enable subgroups;", "");
    let m = naga::front::wgsl::parse_str(&text).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&text)));
    Validator::new(ValidationFlags::all(), Capabilities::SUBGROUP)
        .subgroup_stages(naga::valid::ShaderStages::all())
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(&m)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&text)));
    for s in [
        // 4 x 2 runs as 8 x 1, the local id computed from the flat index.
        "@compute @workgroup_size(8, 1, 1)",
        "lid = vec3<u32>(flat_index % 4u, (flat_index / 4u) % 2u, flat_index / 8u);",
        "subgroup_lane = flat_index;",
        "let el: bool = (subgroup_lane == subgroupBroadcastFirst(subgroup_lane));",
        // `any` names a WGSL built-in function.
        "let any_1: bool = subgroupAny(el);",
        "@builtin(subgroup_invocation_id)",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

const IMAGES: &str = "OpCapability Shader
OpCapability ImageQuery
OpCapability ImageBuffer
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 4 1 1
OpName %main \"main\"
OpName %src \"src\"
OpName %dst \"dst\"
OpName %gid \"gid\"
OpName %c \"c\"
OpName %t \"t\"
OpName %sz \"sz\"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %src DescriptorSet 0
OpDecorate %src Binding 0
OpDecorate %dst DescriptorSet 0
OpDecorate %dst Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v2int = OpTypeVector %int 2
%v3uint = OpTypeVector %uint 3
%v4float = OpTypeVector %float 4
%ptr_in = OpTypePointer Input %v3uint
%gid = OpVariable %ptr_in Input
%im_r = OpTypeImage %float 2D 0 0 0 2 R32f
%im_w = OpTypeImage %float DST 0 0 0 2 FORMAT
%ptr_r = OpTypePointer UniformConstant %im_r
%ptr_w = OpTypePointer UniformConstant %im_w
%src = OpVariable %ptr_r UniformConstant
%dst = OpVariable %ptr_w UniformConstant
%main = OpFunction %void None %fn
%e = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
%xi = OpBitcast %int %x
%c = OpCompositeConstruct %v2int %xi %xi
%a = OpLoad %im_r %src
%t = OpImageRead %v4float %a %c
%b = OpLoad %im_w %dst
OpImageWrite %b COORD %t
%sz = OpImageQuerySize %v2int %a
OpReturn
OpFunctionEnd
";

#[test]
fn storage_images_become_storage_textures() {
    // Read-only and write-only storage images: textureLoad, textureStore and
    // textureDimensions, each texture declared with the access it is used
    // with.
    let src = IMAGES.replace("DST", "2D").replace("FORMAT", "Rgba8").replace("COORD", "%c");
    let w = lower("storage_images", &src, None).unwrap_or_else(|r| panic!("{r:?}"));
    naga_accepts(&w.text);
    for line in [
        "@group(0) @binding(0) var src: texture_storage_2d<r32float, read>;",
        "@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;",
        "  let t: vec4<f32> = textureLoad(src, c);",
        "  textureStore(dst, c, t);",
        "  let sz: vec2<i32> = vec2<i32>(textureDimensions(src));",
    ] {
        assert!(w.text.lines().any(|l| l == line), "no line `{line}` in\n{}", w.text);
    }
    // A texel buffer: WGSL has none.
    let tb = IMAGES.replace("DST", "Buffer").replace("FORMAT", "R32f").replace("COORD", "%xi");
    let (code, at, msg) = refused("texel_buffer", &tb);
    assert_eq!(code, RefusalCode::Image);
    assert!(msg.contains("texel buffer"), "{msg}");
    let line = tb.lines().position(|l| l.starts_with("%im_w = OpTypeImage")).unwrap() as u32 + 1;
    assert_eq!(at, (line, 1));
    // A format WGSL's storage textures lack (none: WGSL needs one), named.
    let f = IMAGES.replace("OpCapability ImageBuffer", "OpCapability StorageImageExtendedFormats").replace("DST", "2D").replace("FORMAT", "Unknown").replace("COORD", "%c").replace("OpCapability ImageBuffer", "OpCapability StorageImageWriteWithoutFormat");
    let (code, _, msg) = refused("odd_format", &f);
    assert_eq!(code, RefusalCode::Image);
    assert!(msg.contains("Unknown"), "{msg}");
}

#[test]
fn narrow_texel_writes_fill_the_format() {
    // A texel of 2 or 3 components written to a 2-channel format: WGSL's
    // textureStore takes a vec4, the channels the format lacks zero.
    let narrow = |format: &str, n: u32| {
        let swz = (0..n).map(|k| k.to_string()).collect::<Vec<_>>().join(" ");
        IMAGES
            .replace("OpCapability ImageBuffer", "OpCapability StorageImageExtendedFormats")
            .replace("DST", "2D")
            .replace("FORMAT", format)
            .replace("%v4float = OpTypeVector %float 4\n", "%v4float = OpTypeVector %float 4\n%v2float = OpTypeVector %float 2\n%v3float = OpTypeVector %float 3\n")
            .replace("OpImageWrite %b COORD %t", &format!("%n = OpVectorShuffle %v{n}float %t %t {swz}\nOpImageWrite %b %c %n"))
    };
    for (n, want) in [(2, "textureStore(dst, c, vec4<f32>(x"), (3, "textureStore(dst, c, vec4<f32>(x")] {
        let w = lower(&format!("narrow_{n}"), &narrow("Rg32f", n), None).unwrap_or_else(|r| panic!("{r:?}"));
        naga_accepts(&w.text);
        let tail = if n == 2 { ", vec2<f32>()));" } else { ", f32()));" };
        assert!(w.text.lines().any(|l| l.trim_start().starts_with(want) && l.ends_with(tail)), "{n}:\n{}", w.text);
    }
    // Fewer components than the format has: not lowered (WGSL could write
    // the texel; what the missing channels get is not settled here).
    let r = lower("narrow_rgba", &narrow("Rgba32f", 2), None).expect_err("refused");
    assert_eq!((r[0].code, r[0].limit), (RefusalCode::Image, Limit::NotLowered(NotLowered::NarrowTexelWrite)));
}

/// OpUMulExtended / OpSMulExtended, which WGSL lacks, call helpers that build
/// the high word from 16-bit halves (core/src/wgsl/write/expr/emulate.rs); the results
/// keep the members' signedness. The helpers' arithmetic is checked on the
/// GPU against the interpreter by the Amber tests that use them
/// (vk-gl-cts mul_extended_*_32bit, signed_op_uint_*mulextended).
#[test]
fn extended_multiplication_is_emulated() {
    let src = module(
        "OpName %x \"x\"\nOpName %r \"r\"\nOpName %s \"s\"\nOpName %t \"t\"\nOpName %hi \"hi\"\n",
        "",
        "%su = OpTypeStruct %uint %uint
%v2int = OpTypeVector %int 2
%sv = OpTypeStruct %v2int %v2int
%int_m3 = OpConstant %int -3
%c2 = OpConstantComposite %v2int %int_m3 %int_m3
",
        "%e = OpLabel
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
%x = OpLoad %uint %p
%r = OpUMulExtended %su %x %u7
%s = OpSMulExtended %su %x %x
%v = OpBitcast %v2int %gid
%t = OpSMulExtended %sv %c2 %c2
%hi = OpCompositeExtract %uint %r 1
OpStore %p %hi
OpReturn
",
    );
    let src = src.replace("%v = OpBitcast %v2int %gid\n", "");
    let w = lower("mulx", &src, None).unwrap();
    naga_accepts(&w.text);
    for s in [
        // The high word of a * b: a = ah * 2^16 + al, b = bh * 2^16 + bl.
        "fn umul_hi(a: u32, b: u32) -> u32 {",
        "return ah * bh + (lh >> sh) + (hl >> sh) + (mid >> sh);",
        // Signed: less b where a < 0 and less a where b < 0 (mod 2^32).
        "fn smul_hi(a: u32, b: u32) -> u32 {",
        "return umul_hi(a, b) - select(z, b, bitcast<i32>(a) < i32(0)) - select(z, a, bitcast<i32>(b) < i32(0));",
        "fn umul_hi_1(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {",
        "fn smul_hi_1(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {",
        "((x * 7u), umul_hi(x, 7u));",
        "(x * x), smul_hi(x, x));",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

/// GLSL.std.450 MatrixInverse: a helper per matrix type, the adjugate
/// (cofactors, transposed) over the determinant. 2x2: inverse of
/// [[a c] [b d]] (columns (a, b), (c, d)) is [[d -c] [-b a]] / det.
#[test]
fn matrix_inverse_is_emulated() {
    let src = module(
        "OpName %a2 \"a2\"\nOpName %a4 \"a4\"\nOpName %i2 \"i2\"\nOpName %i3 \"i3\"\nOpName %i4 \"i4\"\n",
        "",
        "%v2f = OpTypeVector %float 2
%v3f = OpTypeVector %float 3
%v4f = OpTypeVector %float 4
%m2 = OpTypeMatrix %v2f 2
%m3 = OpTypeMatrix %v3f 3
%m4 = OpTypeMatrix %v4f 4
%f2 = OpConstant %float 2
%c2 = OpConstantComposite %v2f %f2 %f2
%c3 = OpConstantComposite %v3f %f2 %f2 %f2
%c4 = OpConstantComposite %v4f %f2 %f2 %f2 %f2
",
        "%e = OpLabel
%x = OpConvertUToF %float %u7
%v2 = OpCompositeConstruct %v2f %x %f2
%v3 = OpCompositeConstruct %v3f %x %f2 %x
%v4 = OpCompositeConstruct %v4f %x %f2 %x %f2
%a2 = OpCompositeConstruct %m2 %v2 %c2
%a3 = OpCompositeConstruct %m3 %v3 %c3 %v3
%a4 = OpCompositeConstruct %m4 %v4 %c4 %v4 %c4
%i2 = OpExtInst %m2 %glsl MatrixInverse %a2
%i3 = OpExtInst %m3 %glsl MatrixInverse %a3
%i4 = OpExtInst %m4 %glsl MatrixInverse %a4
%d = OpCompositeExtract %float %i4 0 0
%u = OpConvertFToU %uint %d
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %p %u
OpReturn
",
    );
    let src = src.replace("OpMemoryModel", "%glsl = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel");
    let w = lower("inverse", &src, None).unwrap();
    naga_accepts(&w.text);
    for s in [
        "fn inverse(m: mat2x2<f32>) -> mat2x2<f32> {",
        "vec2<f32>(m[1][1], -(m[0][1])) / d,",
        "vec2<f32>(-(m[1][0]), m[0][0]) / d,",
        "fn inverse_1(m: mat3x3<f32>) -> mat3x3<f32> {",
        // Column 0 of the inverse: the cofactors of row 0 of m (row i,
        // column j is m[j][i]), each a 2x2 minor with its sign.
        "vec3<f32>(m[1][1] * m[2][2] - m[1][2] * m[2][1], -(m[0][1] * m[2][2] - m[0][2] * m[2][1]), m[0][1] * m[1][2] - m[0][2] * m[1][1]) / d,",
        "fn inverse_2(m: mat4x4<f32>) -> mat4x4<f32> {",
        "let d = determinant(m);",
        "let i2: mat2x2<f32> = inverse(a2);",
        "let i4: mat4x4<f32> = inverse_2(a4);",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

/// OpAtomicSMin on a u32 atomic: WGSL's atomicMin follows the atomic's type,
/// so the signed minimum is computed in a compare-exchange loop (retried
/// until no other invocation wrote in between); the result is the value
/// before, as SPIR-V's.
#[test]
fn signed_min_on_an_unsigned_atomic_loops_on_compare_exchange() {
    let src = module(
        "OpName %old \"old\"\n",
        "",
        "%um3 = OpConstant %uint 4294967293\n",
        "%e = OpLabel
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
%old = OpAtomicSMin %uint %p %u1 %u0 %um3
%p1 = OpAccessChain %ptr_sb_uint %out %u0 %u1
OpStore %p1 %old
OpReturn
",
    );
    let w = lower("smin", &src, None).unwrap();
    naga_accepts(&w.text);
    for s in [
        "data: array<atomic<u32>>,",
        "var atomic",
        ": u32 = atomicLoad(&out.data[0u]);",
        "loop {",
        // min(x, -3) as signed, stored back as the u32 bits.
        "= atomicCompareExchangeWeak(&out.data[0u], atomic",
        "bitcast<u32>(min(bitcast<i32>(atomic",
        ", bitcast<i32>(4294967293u))));",
        "if r.exchanged { break; }",
        "= r.old_value;",
        "atomicStore(&out.data[1u], old);",
    ] {
        assert!(w.text.contains(s), "{s:?} missing:\n{}", w.text);
    }
}

/// An OpUndef part of a constant composite (valid SPIR-V; vk-gl-cts
/// undef_undefined_constant_composite) is written as WGSL's zero value of
/// its type: any value is a correct choice for an undefined one.
#[test]
fn undef_parts_of_constant_composites_are_zero() {
    let src = module(
        "OpName %pair \"Pair\"\nOpName %v \"v\"\n",
        "",
        "%pair = OpTypeStruct %int %int
%undef_int = OpUndef %int
%int_200 = OpConstant %int 200
%cp = OpConstantComposite %pair %undef_int %int_200
",
        "%e = OpLabel
%x = OpCompositeExtract %int %cp 1
%v = OpBitcast %uint %x
%p = OpAccessChain %ptr_sb_uint %out %u0 %u0
OpStore %p %v
OpReturn
",
    );
    let w = lower("undef-part", &src, None).unwrap();
    naga_accepts(&w.text);
    assert!(w.text.contains("Pair(i32(), 200i).m1"), "{}", w.text);
}

/// A loop nothing leaves (its merge block unreachable) is "obviously
/// infinite" to WGSL's behaviour analysis, which Tint refuses (naga does
/// not check it): the lowering gives it a `break` it never takes. A loop
/// with a way out gets none. The page's browser test (tests/e2e/flesh.test.mjs)
/// runs such a loop's program through Chromium's Tint.
#[test]
fn a_loop_nothing_leaves_gets_a_way_out() {
    let spin = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%bool = OpTypeBool\n%t = OpConstantTrue %bool\n\
        %fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%entry = OpLabel\n\
        OpSelectionMerge %end None\nOpBranchConditional %t %end %head\n\
        %head = OpLabel\nOpLoopMerge %out %body None\nOpBranch %body\n%body = OpLabel\nOpBranch %head\n\
        %out = OpLabel\nOpUnreachable\n%end = OpLabel\nOpReturn\nOpFunctionEnd\n";
    let w = lower("loop_nothing_leaves", spin, None).unwrap_or_else(|r| panic!("refused: {r:?}"));
    naga_accepts(&w.text);
    let at = w.text.find("loop {").unwrap_or_else(|| panic!("{}", w.text));
    assert!(w.text[at..].trim_start_matches("loop {").trim_start().starts_with("if false { break; }"), "{}", w.text);

    let leaves = spin.replace("%body = OpLabel\nOpBranch %head", "%body = OpLabel\nOpBranchConditional %t %head %out")
        .replace("%out = OpLabel\nOpUnreachable", "%out = OpLabel\nOpBranch %end");
    let w = lower("loop_leaves", &leaves, None).unwrap_or_else(|r| panic!("refused: {r:?}"));
    naga_accepts(&w.text);
    assert!(w.text.contains("loop {") && !w.text.contains("if false"), "{}", w.text);
}

/// A fragment shader sampling (see core's `wgsl::tests`, which checks the
/// text): `DEPTH` its image's Depth, `BODY` the sampling writing `%r`.
const SAMPLING: &str = "OpCapability Shader
OpCapability ImageQuery
OpCapability MinLod
OpMemoryModel Logical GLSL450
OpEntryPoint MODEL %main \"main\" %out %in2 %in3 %in4
MODE
OpName %tex \"tex\"
OpName %smp \"smp\"
OpName %cis \"cis\"
OpName %uv \"uv\"
OpName %uvq \"uvq\"
OpName %uvw4 \"uvw4\"
OpName %r \"r\"
NAMESOpDecorate %out Location 0
OpDecorate %in2 Location 0
OpDecorate %in3 Location 1
OpDecorate %in4 Location 2
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 1
OpDecorate %smp DescriptorSet 0
OpDecorate %smp Binding 3
OpDecorate %cis DescriptorSet 0
OpDecorate %cis Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%v2int = OpTypeVector %int 2
%v2float = OpTypeVector %float 2
%v3float = OpTypeVector %float 3
%v4float = OpTypeVector %float 4
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%f05 = OpConstant %float 0.5
%i1 = OpConstant %int 1
%i2 = OpConstant %int 2
%i9 = OpConstant %int 9
%off = OpConstantComposite %v2int %i1 %i2
%offbad = OpConstantComposite %v2int %i1 %i9
%p_out = OpTypePointer Output %v4float
%p_in2 = OpTypePointer Input %v2float
%p_in3 = OpTypePointer Input %v3float
%p_in4 = OpTypePointer Input %v4float
%out = OpVariable %p_out Output
%in2 = OpVariable %p_in2 Input
%in3 = OpVariable %p_in3 Input
%in4 = OpVariable %p_in4 Input
%img = OpTypeImage %float 2D DEPTH 0 0 1 Unknown
%si = OpTypeSampledImage %img
%sampler = OpTypeSampler
%p_img = OpTypePointer UniformConstant %img
%p_si = OpTypePointer UniformConstant %si
%p_smp = OpTypePointer UniformConstant %sampler
%tex = OpVariable %p_img UniformConstant
%smp = OpVariable %p_smp UniformConstant
%cis = OpVariable %p_si UniformConstant
%main = OpFunction %void None %fn
%l = OpLabel
%uv = OpLoad %v2float %in2
%uvq = OpLoad %v3float %in3
%uvw4 = OpLoad %v4float %in4
%t = OpLoad %img %tex
%s = OpLoad %sampler %smp
%ts = OpSampledImage %si %t %s
%c = OpLoad %si %cis
BODY
OpStore %out %r
OpReturn
OpFunctionEnd
";

#[test]
fn samplings_are_valid_wgsl() {
    let frag = |depth: u32, body: &str| {
        let names = if body.contains("%d = ") { "OpName %d \"d\"\n" } else { "" };
        SAMPLING.replace("NAMES", names).replace("MODEL", "Fragment").replace("MODE", "OpExecutionMode %main OriginUpperLeft").replace("DEPTH", &depth.to_string()).replace("BODY", body)
    };
    let d4 = "\n%r = OpCompositeConstruct %v4float %d %d %d %d";
    for (depth, body) in [
        (0, "%r = OpImageSampleImplicitLod %v4float %c %uv".to_string()),
        (0, "%ci = OpImage %img %c\n%r = OpImageFetch %v4float %ci %off".to_string()),
        (0, "%r = OpImageSampleImplicitLod %v4float %ts %uv Bias %f05".to_string()),
        (0, "%r = OpImageSampleExplicitLod %v4float %ts %uv Lod|ConstOffset %f0 %off".to_string()),
        (0, "%r = OpImageSampleExplicitLod %v4float %ts %uv Grad %uv %uv".to_string()),
        (0, "%r = OpImageSampleProjImplicitLod %v4float %ts %uvq".to_string()),
        (0, "%r = OpImageSampleImplicitLod %v4float %ts %uvw4 ConstOffset %off".to_string()),
        (0, "%r = OpImageGather %v4float %ts %uv %i1".to_string()),
        (1, format!("%d = OpImageSampleDrefImplicitLod %float %ts %uv %f05{d4}")),
        (1, format!("%d = OpImageSampleDrefExplicitLod %float %ts %uv %f05 Lod %f0{d4}")),
        (1, format!("%d = OpImageSampleProjDrefImplicitLod %float %ts %uvq %f05{d4}")),
        (1, format!("%d = OpImageSampleDrefImplicitLod %float %c %uv %f05{d4}")),
        (0, format!("%d = OpImageSampleDrefImplicitLod %float %ts %uv %f05{d4}")),
        (1, "%r = OpImageDrefGather %v4float %ts %uv %f05".to_string()),
        (1, "%r = OpImageSampleImplicitLod %v4float %ts %uv".to_string()),
        (1, "%r = OpImageSampleExplicitLod %v4float %ts %uv Lod %f1".to_string()),
        (1, "%ci = OpImage %img %ts\n%r = OpImageFetch %v4float %ci %off Lod %i1".to_string()),
        (1, "%n = OpImageQueryLevels %int %t\n%nf = OpConvertSToF %float %n\n%r = OpCompositeConstruct %v4float %nf %nf %nf %nf".to_string()),
    ] {
        let src = frag(depth, &body);
        let w = lower("sampling", &src, None).unwrap_or_else(|r| panic!("{body}: refused: {r:?}"));
        naga_accepts(&w.text);
    }
}
