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

enum Flow {
    Next,
    Break,
    Continue,
    Return,
}

/// Run `v` with conditions drawn from `bits` (loops stop after 4 rounds,
/// the whole run after 5000 steps), appending the blocks and jumps run to `out`: the trace that
/// flattening must keep.
fn exec(v: &[Stmt], bits: &mut u64, flags: &mut Vec<bool>, out: &mut Vec<alloc::string::String>) -> Flow {
    fn cond(c: &Cond, bits: &mut u64, flags: &[bool]) -> bool {
        match c {
            // Each evaluation draws anew: selections go deeper with
            // probability 59/60, breaks 1/3, loops go round again 1/2.
            Cond::Id(k) => {
                *bits = bits.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let h = (u64::from(*k) ^ *bits).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
                match *k {
                    20_000.. => h.is_multiple_of(2),
                    10_000.. => h.is_multiple_of(3),
                    _ => !h.is_multiple_of(60),
                }
            }
            Cond::Not(c) => !cond(c, bits, flags),
            Cond::Flag(f) => flags[*f as usize],
            Cond::True => true,
            Cond::VarIs { .. } => unreachable!(),
        }
    }
    for s in v {
        if out.len() > 5_000 {
            return Flow::Return;
        }
        let f = match s {
            Stmt::SetFlag { flag, value } => {
                if flags.len() <= *flag as usize {
                    flags.resize(*flag as usize + 1, false);
                }
                flags[*flag as usize] = *value;
                Flow::Next
            }
            Stmt::If { cond: c, then, els } => {
                if cond(c, bits, flags) { exec(then, bits, flags, out) } else { exec(els, bits, flags, out) }
            }
            Stmt::Loop { body, .. } => {
                let mut f = Flow::Next;
                for _ in 0..4 {
                    match exec(body, bits, flags, out) {
                        Flow::Break => break,
                        Flow::Return => {
                            f = Flow::Return;
                            break;
                        }
                        _ => {}
                    }
                }
                f
            }
            Stmt::Break | Stmt::Continue | Stmt::Return(_) => {
                out.push(alloc::format!("{s:?}"));
                match s {
                    Stmt::Break => Flow::Break,
                    Stmt::Continue => Flow::Continue,
                    _ => Flow::Return,
                }
            }
            s => {
                out.push(alloc::format!("{s:?}"));
                Flow::Next
            }
        };
        if !matches!(f, Flow::Next) {
            return f;
        }
    }
    Flow::Next
}

/// A loop around `n` nested selections on ids 1.., each with a block before
/// and after, an else arm (with a conditional break on every fifth), and a
/// loop around level `k` when `k % loop_every == loop_every - 1`.
fn chain(n: u32, loop_every: u32) -> Vec<Stmt> {
    let mut inner = vec![Stmt::Block(1000)];
    for k in (0..n).rev() {
        let mut els = vec![Stmt::Block(5000 + k)];
        if k % 5 == 4 {
            els.push(Stmt::If { cond: id(10_000 + k), then: vec![Stmt::Break], els: vec![] });
        }
        let mut then = vec![Stmt::Block(2 * k)];
        then.extend(inner);
        then.push(Stmt::Block(2 * k + 1));
        let s = Stmt::If { cond: id(k + 1), then, els };
        inner = if k % loop_every == loop_every - 1 {
            let again = Stmt::If { cond: id(20_000 + k), then: vec![Stmt::Break], els: vec![] };
            vec![Stmt::Loop { body: vec![s, again], continuing: vec![], break_if: None }]
        } else {
            vec![s]
        };
    }
    inner.push(Stmt::Break);
    vec![Stmt::Loop { body: inner, continuing: vec![], break_if: None }]
}

#[test]
fn deep_selections_flattened_run_the_same_within_the_depth() {
    // Bounds: the target (at least 3), plus 3 per loop (the outer one too).
    for (n, loop_every, target, bound) in [(300, 1000, 64, 64), (300, 1000, 2, 6), (200, 50, 2, 3 + 3 * 5), (130, 7, 10, 10 + 3 * 19)] {
        let mut body = chain(n, loop_every);
        let before = flatten::depth(&body);
        assert!(before > 127, "the test chain is only {before} deep");
        let old = body.clone();
        let mut flags = 0;
        flatten::limit_depth(&mut body, &mut flags, target);
        let after = flatten::depth(&body);
        assert!(after <= bound, "{n} levels flattened to {target}: {after} deep, more than {bound}");
        assert!(flags > 0);
        // The same blocks and jumps for many choices of the conditions.
        let mut deepest = 0;
        for bits in 0..200u64 {
            let (mut want, mut got) = (Vec::new(), Vec::new());
            exec(&old, &mut bits.clone(), &mut Vec::new(), &mut want);
            exec(&body, &mut bits.clone(), &mut vec![false; flags as usize], &mut got);
            assert_eq!(got, want, "flattening changed what runs ({n} levels, depth {target}, conditions {bits})");
            deepest = deepest.max(want.len());
        }
        assert!(deepest > 150, "no run went deep: {deepest} steps at most");
    }
}

#[test]
fn a_shallow_function_is_not_flattened() {
    let mut body = chain(20, 1000);
    let old = body.clone();
    let mut flags = 0;
    flatten::limit_depth(&mut body, &mut flags, flatten::DEPTH_TARGET);
    assert_eq!((body, flags), (old, 0));
}
