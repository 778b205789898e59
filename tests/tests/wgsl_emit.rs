//! The WGSL emitter, construct by construct: small modules (checked valid by
//! spirv-val when installed, and by us), each function's shape built by hand
//! where it has control flow, the expected WGSL written by hand from the
//! semantics, and every WGSL we emit parsed and validated by naga 30.

use naga::valid::{Capabilities, ValidationFlags, Validator};
use spvlab_core::analysis::{Analysis, locate_all};
use spvlab_core::diag::line_col;
use spvlab_core::valid::Options;
use spvlab_core::wgsl::shape::{Case, CaseValues, Cond, Selector, Shape, ShapeError, Stmt};
use spvlab_core::wgsl::{self, Refusal, Wgsl};
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
fn refused(test: &str, src: &str) -> (&'static str, (u32, u32), String) {
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
    let want = format!(
        "struct Buf {{
  data: array<u32>,
}}

@group(0) @binding(0) var<storage, read_write> out: Buf;

fn main_1() {{
  var i: u32;
  var n: u32;
  var k: bool;
  i = 0u;
  loop {{
    out.data[i] = i;
    continuing {{
      n = (i + 1u);
      k = (n < 7u);
      i = n;
      break if !(k);
    }}
  }}
  return;
}}

@compute @workgroup_size(4, 1, 1)
fn main() {{
  main_1();
}}

"
    );
    lowers_to("loop_with_continuing_and_break_if", &src, Some(shape), &want);
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
