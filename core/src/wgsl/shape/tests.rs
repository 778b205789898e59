//! Unit tests: the exact shape of small hand-written functions, written from
//! the SPIR-V semantics of each construct (the trace walk on the corpus and
//! on random CFGs is in tests/tests/wgsl_shape.rs).

use super::*;
use crate::cfg::analyze;
use crate::text::{AsmOptions, assemble};
use alloc::boxed::Box;
use alloc::vec;

const HEAD: &str = "
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u4 = OpConstant %uint 4
%c = OpConstantTrue %bool
%sel = OpConstant %uint 2
%main = OpFunction %void None %fn
%entry = OpLabel
";

/// The shape of the function of `HEAD` + `body`, and the id of a name.
fn shape(body: &str) -> (Result<Shape, ShapeError>, impl Fn(&str) -> u32) {
    let text = alloc::format!("{HEAD}{body}\nOpFunctionEnd\n");
    let words = assemble(&text, &AsmOptions::default()).expect("the test module assembles");
    let m = crate::binary::read_words(&words).expect("the test module reads");
    let cfg = analyze(&m);
    let s = structure(&m, &cfg.functions[0]);
    // Ids are numbered in order of first appearance in the text.
    let mut names: Vec<alloc::string::String> = Vec::new();
    for tok in text.split(|c: char| c.is_whitespace()) {
        if let Some(n) = tok.strip_prefix('%')
            && !names.iter().any(|x| x == n)
        {
            names.push(n.into());
        }
    }
    (s, move |n: &str| names.iter().position(|x| x == n).expect("a name") as u32 + 1)
}

fn id(c: u32) -> Cond {
    Cond::Id(c)
}

#[test]
fn a_selection_without_else() {
    // entry(0) -> a(1) or m(2); a -> m.
    let (s, n) = shape(
        "OpSelectionMerge %m None
OpBranchConditional %c %a %m
%a = OpLabel
OpBranch %m
%m = OpLabel
OpReturn",
    );
    let s = s.unwrap();
    assert_eq!(
        s.body,
        vec![
            Stmt::Block(0),
            Stmt::If { cond: id(n("c")), then: vec![Stmt::Block(1)], els: vec![] },
            Stmt::Block(2),
            Stmt::Return(None),
        ]
    );
    assert_eq!((s.flags, s.vars), (0, 0));
}

#[test]
fn a_loop_with_continuing_break_if_and_a_phi_on_the_back_edge() {
    // entry(0) -> h(1) -> b(2) -> c(3) -> h or m(4); %i is an OpPhi of h.
    let (s, n) = shape(
        "OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %cont
OpLoopMerge %m %cont None
OpBranch %b
%b = OpLabel
OpBranch %cont
%cont = OpLabel
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %u4
OpBranchConditional %more %h %m
%m = OpLabel
OpReturn",
    );
    let more = n("more");
    assert_eq!(
        s.unwrap().body,
        vec![
            Stmt::Block(0),
            Stmt::Phis { from: 0, to: 1 },
            Stmt::Loop {
                body: vec![Stmt::Block(1), Stmt::Block(2)],
                continuing: vec![
                    Stmt::Block(3),
                    Stmt::If { cond: id(more), then: vec![Stmt::Phis { from: 3, to: 1 }], els: vec![] },
                ],
                break_if: Some(Cond::Not(Box::new(id(more)))),
            },
            Stmt::Block(4),
            Stmt::Return(None),
        ]
    );
}

#[test]
fn a_switch_with_a_case_group_and_a_default_sharing_a_target() {
    // entry(0): 1, 2 -> a(1); 3 and default -> d(2); both -> m(3).
    let (s, n) = shape(
        "OpSelectionMerge %m None
OpSwitch %sel %d 1 %a 2 %a 3 %d
%a = OpLabel
OpBranch %m
%d = OpLabel
OpBranch %m
%m = OpLabel
OpReturn",
    );
    assert_eq!(
        s.unwrap().body,
        vec![
            Stmt::Block(0),
            Stmt::Switch {
                selector: Selector::Id(n("sel")),
                cases: vec![
                    Case { values: CaseValues::Values(vec![1, 2]), body: vec![Stmt::Block(1)] },
                    Case { values: CaseValues::Default(vec![3]), body: vec![Stmt::Block(2)] },
                ],
            },
            Stmt::Block(3),
            Stmt::Return(None),
        ]
    );
}

#[test]
fn a_fallthrough_dispatches_again() {
    // entry(0): 1 -> a(1), 2 -> b(2), default -> m(3); a falls through to b.
    // The selector picks a dispatch value (block + 1); a loop switches on it,
    // and a's fallthrough sets b's value and goes round again.
    let (s, n) = shape(
        "OpSelectionMerge %m None
OpSwitch %sel %m 1 %a 2 %b
%a = OpLabel
OpBranch %b
%b = OpLabel
OpBranch %m
%m = OpLabel
OpReturn",
    );
    let s = s.unwrap();
    let set = |value| Stmt::SetVar { var: 0, value };
    assert_eq!(s.vars, 1);
    assert_eq!(
        s.body,
        vec![
            Stmt::Block(0),
            Stmt::Switch {
                selector: Selector::Id(n("sel")),
                cases: vec![
                    Case { values: CaseValues::Values(vec![1]), body: vec![set(2)] },
                    Case { values: CaseValues::Values(vec![2]), body: vec![set(3)] },
                    Case { values: CaseValues::Default(vec![]), body: vec![] },
                ],
            },
            Stmt::Loop {
                body: vec![
                    Stmt::Switch {
                        selector: Selector::Var(0),
                        cases: vec![
                            Case { values: CaseValues::Values(vec![2]), body: vec![set(0), Stmt::Block(1), set(3), Stmt::Continue] },
                            Case { values: CaseValues::Values(vec![3]), body: vec![set(0), Stmt::Block(2)] },
                            Case { values: CaseValues::Default(vec![]), body: vec![] },
                        ],
                    },
                    Stmt::Break,
                ],
                continuing: vec![],
                break_if: None,
            },
            Stmt::Block(3),
            Stmt::Return(None),
        ]
    );
}

#[test]
fn a_return_inside_a_loop() {
    // entry(0) -> h(1): %c -> r(2) returns, else cont(3) -> h; m(4) is
    // unreachable, so nothing follows the loop.
    let (s, n) = shape(
        "OpBranch %h
%h = OpLabel
OpLoopMerge %m %cont None
OpBranchConditional %c %r %cont
%r = OpLabel
OpReturn
%cont = OpLabel
OpBranch %h
%m = OpLabel
OpUnreachable",
    );
    assert_eq!(
        s.unwrap().body,
        vec![
            Stmt::Block(0),
            Stmt::Loop {
                body: vec![
                    Stmt::Block(1),
                    Stmt::If { cond: id(n("c")), then: vec![Stmt::Block(2), Stmt::Return(None)], els: vec![Stmt::Continue] },
                ],
                continuing: vec![Stmt::Block(3)],
                break_if: None,
            },
        ]
    );
}

#[test]
fn a_loop_header_that_is_its_own_continue_target() {
    // entry(0) -> h(1) -> h again or m(2). The whole loop is its continue
    // construct: no `continuing`, the back edge is a `continue`.
    let (s, n) = shape(
        "OpBranch %h
%h = OpLabel
%i = OpPhi %uint %u0 %entry %i1 %h
%i1 = OpIAdd %uint %i %u1
%more = OpULessThan %bool %i1 %u4
OpLoopMerge %m %h None
OpBranchConditional %more %h %m
%m = OpLabel
OpReturn",
    );
    assert_eq!(
        s.unwrap().body,
        vec![
            Stmt::Block(0),
            Stmt::Phis { from: 0, to: 1 },
            Stmt::Loop {
                body: vec![
                    Stmt::Block(1),
                    Stmt::If {
                        cond: id(n("more")),
                        then: vec![Stmt::Phis { from: 1, to: 1 }, Stmt::Continue],
                        els: vec![Stmt::Break],
                    },
                ],
                continuing: vec![],
                break_if: None,
            },
            Stmt::Block(2),
            Stmt::Return(None),
        ]
    );
}

#[test]
fn an_unstructured_exit_is_an_error_at_its_block() {
    // b(2) leaves the loop for y(5), a block of the enclosing selection that
    // is neither the loop's merge block nor its continue target.
    let (s, _) = shape(
        "OpSelectionMerge %em None
OpBranchConditional %c %h %y
%h = OpLabel
OpLoopMerge %m %cont None
OpBranch %b
%b = OpLabel
OpBranchConditional %c %y %cont
%cont = OpLabel
OpBranch %h
%m = OpLabel
OpBranch %em
%y = OpLabel
OpBranch %em
%em = OpLabel
OpReturn",
    );
    let e = s.unwrap_err();
    assert_eq!(e.block, 2, "{e:?}");
    assert!(e.message.contains("not a structured exit"), "{e:?}");
}

#[test]
fn the_printer_shows_the_tree() {
    let s = Shape {
        body: vec![
            Stmt::Block(0),
            Stmt::If { cond: Cond::Id(7), then: vec![Stmt::Break], els: vec![Stmt::SetVar { var: 0, value: 3 }] },
            Stmt::Return(Some(9)),
        ],
        flags: 0,
        vars: 1,
    };
    assert_eq!(
        alloc::format!("{s}"),
        "block 0;\nif %7 {\n  break;\n} else {\n  var0 = 3;\n}\nreturn %9;\n"
    );
}
