//! Unit tests: the dominator trees against a naive set-iteration computation
//! on random graphs and random (often malformed) functions, and the construct
//! sets against their definitions evaluated naively.

use crate::grammar::op;
use super::*;
use crate::module::{Header, Instruction};
use alloc::vec::Vec;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

/// Naive dominator sets over nodes `0..n` (n <= 64) from `root`: bit `a` of
/// `dom[b]` is set when `a` dominates `b`; `None` for unreached nodes.
fn naive_dom(n: usize, root: usize, succ: &[Vec<usize>]) -> Vec<Option<u64>> {
    let mut reach = vec![false; n];
    let mut stack = vec![root];
    reach[root] = true;
    while let Some(v) = stack.pop() {
        for &w in &succ[v] {
            if !reach[w] {
                reach[w] = true;
                stack.push(w);
            }
        }
    }
    let mut pred = vec![Vec::new(); n];
    for (v, ws) in succ.iter().enumerate() {
        for &w in ws {
            pred[w].push(v);
        }
    }
    let all: u64 = if n == 64 { !0 } else { (1u64 << n) - 1 };
    let mut dom: Vec<u64> = (0..n)
        .map(|v| if v == root { 1 << root } else { all })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n {
            if v == root || !reach[v] {
                continue;
            }
            let mut d = all;
            for &p in &pred[v] {
                if reach[p] {
                    d &= dom[p];
                }
            }
            d |= 1 << v;
            if d != dom[v] {
                dom[v] = d;
                changed = true;
            }
        }
    }
    (0..n).map(|v| reach[v].then_some(dom[v])).collect()
}

fn check_tree(t: &DomTree, naive: &[Option<u64>], n: usize, what: &str) {
    for b in 0..n {
        assert_eq!(
            t.contains(b as u32),
            naive[b].is_some(),
            "{what}: contains({b})"
        );
        for a in 0..n {
            let want = match naive[b] {
                Some(d) => d >> a & 1 == 1,
                None => a == b,
            };
            assert_eq!(
                t.dominates(a as u32, b as u32),
                want,
                "{what}: dominates({a},{b})"
            );
            assert_eq!(
                t.strictly_dominates(a as u32, b as u32),
                want && a != b,
                "{what}"
            );
        }
        // The immediate dominator is the strict dominator dominated by all others.
        if let Some(d) = naive[b] {
            let strict = d & !(1 << b);
            let idom = (0..n).find(|&c| strict >> c & 1 == 1 && naive[c] == Some(strict));
            assert_eq!(
                t.idom(b as u32),
                idom.map(|c| c as u32),
                "{what}: idom({b})"
            );
        } else {
            assert_eq!(t.idom(b as u32), None);
        }
    }
}

#[test]
fn dominators_match_naive_on_random_graphs() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for round in 0..400 {
        let n = 1 + rng.below(if round < 50 { 6 } else { 40 }) as usize;
        let m = rng.below(3 * n as u64 + 1) as usize;
        let mut succ = vec![Vec::new(); n];
        let mut pairs = Vec::new();
        for _ in 0..m {
            let a = rng.below(n as u64) as usize;
            // Bias towards forward edges, with some back edges and self loops.
            let b = match rng.below(4) {
                0 => a,
                1 => rng.below(n as u64) as usize,
                _ => (a + 1 + rng.below(3) as usize).min(n - 1),
            };
            succ[a].push(b);
            pairs.push((a as u32, b as u32));
        }
        let f = Csr::from_pairs(n, &pairs);
        let r = f.reversed();
        let root = rng.below(n as u64) as usize;
        let t = DomTree::build(n, root as u32, &f, &r, false);
        check_tree(&t, &naive_dom(n, root, &succ), n, "random graph");
    }
}

#[test]
fn dominators_on_tricky_graphs() {
    // Irreducible: 0 -> 1, 0 -> 2, 1 <-> 2, 2 -> 3; 4 unreachable -> 3; 3 self loop.
    let pairs = [(0, 1), (0, 2), (1, 2), (2, 1), (2, 3), (4, 3), (3, 3)];
    let f = Csr::from_pairs(5, &pairs);
    let t = DomTree::build(5, 0, &f, &f.reversed(), false);
    assert_eq!(t.idom(1), Some(0));
    assert_eq!(t.idom(2), Some(0));
    assert_eq!(t.idom(3), Some(2));
    assert!(!t.contains(4));
    assert!(!t.dominates(0, 4));
    assert!(t.dominates(4, 4));
    assert!(t.dominates(0, 3) && !t.dominates(1, 3));
    assert_eq!(t.root(), Some(0));
    assert_eq!(t.subtree(2), &[2, 3]);
    // A long chain (deep tree) is handled without recursion.
    let n = 200_000u32;
    let chain: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    let f = Csr::from_pairs(n as usize, &chain);
    let t = DomTree::build(n as usize, 0, &f, &f.reversed(), false);
    assert!(t.dominates(0, n - 1) && t.dominates(n / 2, n - 1) && !t.dominates(n - 1, n / 2));
    assert_eq!(t.idom(n - 1), Some(n - 2));
}

// ---- Random functions ----------------------------------------------------

const INT: u32 = 1;
const ZERO: u32 = 2;
const VOID: u32 = 3;
const FNTY: u32 = 4;
const FUNC: u32 = 5;
const COND: u32 = 6;
const BOOL: u32 = 7;
const L0: u32 = 100;

fn inst(opcode: u16, operands: &[u32]) -> Instruction {
    Instruction {
        opcode,
        operands: crate::Operands::from_slice(operands),
    }
}

fn module_of(body: Vec<Instruction>) -> Module {
    let mut instructions = vec![
        inst(21, &[INT, 32, 0]),
        inst(43, &[INT, ZERO, 0]),
        inst(19, &[VOID]),
        inst(33, &[FNTY, VOID]),
        inst(20, &[BOOL]),
        inst(41, &[BOOL, COND]),
        inst(op::OpFunction, &[VOID, FUNC, 0, FNTY]),
    ];
    instructions.extend(body);
    instructions.push(inst(op::OpFunctionEnd, &[]));
    Module {
        header: Header {
            magic: crate::grammar::MAGIC_NUMBER,
            version: 0x0001_0600,
            generator: 0,
            bound: 100_000,
            schema: 0,
        },
        instructions,
    }
}

fn random_function(rng: &mut Rng, n: usize) -> Module {
    let mut body = Vec::new();
    let target = |rng: &mut Rng| -> u32 {
        if rng.below(30) == 0 {
            9_999 // dangling
        } else {
            L0 + rng.below(n as u64) as u32
        }
    };
    for b in 0..n {
        body.push(inst(op::OpLabel, &[L0 + b as u32]));
        match rng.below(6) {
            0 => body.push(inst(op::OpSelectionMerge, &[target(rng), 0])),
            1 => body.push(inst(op::OpLoopMerge, &[target(rng), target(rng), 0])),
            _ => {}
        }
        match rng.below(10) {
            0..=2 => body.push(inst(op::OpBranch, &[target(rng)])),
            3..=5 => body.push(inst(
                op::OpBranchConditional,
                &[COND, target(rng), target(rng)],
            )),
            6 | 7 => {
                let mut ops = vec![ZERO, target(rng)];
                for k in 0..rng.below(3) {
                    ops.push(k as u32);
                    ops.push(target(rng));
                }
                body.push(inst(op::OpSwitch, &ops));
            }
            8 => body.push(inst(op::OpReturn, &[])),
            _ => body.push(inst(op::OpUnreachable, &[])),
        }
    }
    module_of(body)
}

/// Naive post-dominator sets: the reversed graph with a virtual exit node `n`.
fn naive_post(n: usize, succ: &[Vec<usize>], exits: &[usize]) -> Vec<Option<u64>> {
    let mut rev = vec![Vec::new(); n + 1];
    for (v, ws) in succ.iter().enumerate().take(n) {
        for &w in ws {
            rev[w].push(v);
        }
    }
    for &e in exits {
        rev[n].push(e);
    }
    let mut d = naive_dom(n + 1, n, &rev);
    d.truncate(n);
    d
}

#[test]
fn function_trees_and_constructs_match_naive() {
    let mut rng = Rng(0x0bad_cafe_f00d_0042);
    let mut constructs_seen = 0;
    for _ in 0..300 {
        let n = 1 + rng.below(40) as usize;
        let m = random_function(&mut rng, n);
        let cfg = analyze(&m);
        assert_eq!(cfg.functions.len(), 1);
        let f = &cfg.functions[0];
        assert_eq!(f.blocks.len(), n);
        let mut bsucc = vec![Vec::new(); n];
        let mut ssucc = vec![Vec::new(); n];
        for e in &f.edges {
            if e.kind == EdgeKind::Branch {
                bsucc[e.from as usize].push(e.to as usize);
            }
            ssucc[e.from as usize].push(e.to as usize);
        }
        let exits: Vec<usize> = (0..n).filter(|&b| f.blocks[b].is_exit()).collect();
        let dom = naive_dom(n, 0, &bsucc);
        let sdom = naive_dom(n, 0, &ssucc);
        let pdom = naive_post(n, &bsucc, &exits);
        let spdom = naive_post(n, &ssucc, &exits);
        check_tree(&f.dom, &dom, n, "dom");
        check_tree(&f.sdom, &sdom, n, "sdom");
        check_tree(&f.pdom, &pdom, n, "pdom");
        check_tree(&f.spdom, &spdom, n, "spdom");
        let sd = |a: u32, b: usize| sdom[b].is_some_and(|d| d >> a & 1 == 1);
        let spd = |a: u32, b: usize| a as usize == b || spdom[b].is_some_and(|d| d >> a & 1 == 1);
        // Back edges: a back edge's target is an ancestor of its source in the
        // search, so it reaches the source over structured edges; and when the
        // search starts at the entry block (it has no predecessor), a branch
        // to a structural dominator of its source is a back edge.
        let reaches = |a: usize, b: usize| {
            let mut seen = vec![false; n];
            let mut st = vec![a];
            while let Some(v) = st.pop() {
                if v == b {
                    return true;
                }
                if !core::mem::replace(&mut seen[v], true) {
                    st.extend(ssucc[v].iter().copied());
                }
            }
            false
        };
        for e in f.back_edges() {
            assert!(e.kind == EdgeKind::Branch);
            assert!(reaches(e.to as usize, e.from as usize));
            assert!(f.back_edge_pairs().contains(&(e.from, e.to)));
        }
        assert!(f.back_edge_pairs().iter().all(|&(a, b)| f.back_edges().any(|e| (e.from, e.to) == (a, b))));
        if !f.edges.iter().any(|e| e.to == 0) {
            for (i, e) in f.edges.iter().enumerate() {
                if e.kind == EdgeKind::Branch && sd(e.to, e.from as usize) {
                    assert!(f.is_back_edge(i), "edge {e:?}");
                }
            }
        }
        // Constructs against their definitions.
        for (c, k) in f.constructs().iter().enumerate() {
            constructs_seen += 1;
            let want: Vec<u32> = (0..n)
                .filter(|&x| sdom[x].is_some())
                .filter(|&x| {
                    let under_merge = k.merge.is_some_and(|mm| sd(mm, x));
                    let under_ct = k.continue_target.is_some_and(|ct| sd(ct, x));
                    match k.kind {
                        ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Case => {
                            sd(k.entry, x) && !under_merge
                        }
                        ConstructKind::Continue => match k.back_edge_block {
                            Some(bb) => under_ct && (spd(bb, x) || !sd(bb, x)),
                            None => under_ct && !under_merge,
                        },
                        ConstructKind::Loop => sd(k.entry, x) && !under_ct && !under_merge,
                    }
                })
                .map(|x| x as u32)
                .collect();
            assert_eq!(f.construct_blocks(c as u32), want, "construct {c}: {k:?}");
        }
        for x in 0..n as u32 {
            if let Some(c) = f.innermost_construct(x) {
                assert!(f.construct_contains(c, x));
            }
        }
    }
    assert!(constructs_seen > 300, "{constructs_seen}");
}

#[test]
fn malformed_functions_do_not_panic() {
    // Missing terminator, trailing code, a branch to a non-label, a merge
    // without operands, an OpSwitch on an unknown selector, a label outside a
    // function, an unterminated function.
    let body = vec![
        inst(op::OpLabel, &[L0]),
        inst(op::OpSelectionMerge, &[]),
        inst(op::OpBranchConditional, &[COND, L0 + 1]),
        inst(op::OpLabel, &[L0 + 1]),
        inst(op::OpSwitch, &[12345, L0 + 2, 7, L0]),
        inst(op::OpReturn, &[]),
        inst(op::OpLabel, &[L0 + 2]),
        inst(op::OpBranch, &[ZERO]),
        inst(op::OpLabel, &[L0 + 3]),
    ];
    let m = module_of(body);
    lowering_analysis_is_the_full_one_less_pdom(&m);
    let cfg = analyze(&m);
    let f = &cfg.functions[0];
    assert_eq!(f.blocks.len(), 4);
    assert!(f.issues.contains(&CfgIssue::MissingTerminator { block: 3 }));
    assert!(
        f.issues
            .iter()
            .any(|i| matches!(i, CfgIssue::UnparsedSwitch { block: 1, .. }))
    );
    assert!(
        f.issues
            .iter()
            .any(|i| matches!(i, CfgIssue::InstructionsAfterTerminator { block: 1, .. }))
    );
    assert!(
        f.issues
            .iter()
            .any(|i| matches!(i, CfgIssue::MissingTarget { block: 0, .. }))
    );
    assert_eq!(f.dangling.len(), 1);
    assert_eq!(f.dangling[0].target, ZERO);
    assert!(f.is_reachable(2) && !f.is_reachable(3));

    let mut m2 = m.clone();
    m2.instructions.pop(); // drop OpFunctionEnd
    m2.instructions.push(inst(op::OpLabel, &[7]));
    let cfg2 = analyze(&m2);
    assert!(
        cfg2.functions[0]
            .issues
            .iter()
            .any(|i| matches!(i, CfgIssue::UnterminatedFunction { .. }))
    );

    let mut m3 = m.clone();
    m3.instructions.push(inst(op::OpLabel, &[]));
    let cfg3 = analyze(&m3);
    assert_eq!(
        cfg3.issues,
        vec![CfgIssue::LabelOutsideFunction {
            instruction: m3.instructions.len() as u32 - 1
        }]
    );

    // Every truncation of a random function analyses without panicking.
    let mut rng = Rng(77);
    let r = random_function(&mut rng, 12);
    for cut in 0..r.instructions.len() {
        let mut t = r.clone();
        t.instructions.truncate(cut);
        let _ = analyze(&t);
        let mut t = r.clone();
        if let Some(i) = t.instructions.get_mut(cut) {
            i.operands.clear();
        }
        let _ = analyze(&t);
    }
}

#[test]
fn switch_literal_width_comes_from_the_selector_type() {
    // A 64-bit selector: each case literal takes two words.
    let mut m = module_of(vec![
        inst(op::OpLabel, &[L0]),
        inst(op::OpSelectionMerge, &[L0 + 3, 0]),
        inst(op::OpSwitch, &[60, L0 + 3, 1, 0, L0 + 1, 2, 0, L0 + 2]),
        inst(op::OpLabel, &[L0 + 1]),
        inst(op::OpBranch, &[L0 + 3]),
        inst(op::OpLabel, &[L0 + 2]),
        inst(op::OpBranch, &[L0 + 3]),
        inst(op::OpLabel, &[L0 + 3]),
        inst(op::OpReturn, &[]),
    ]);
    m.instructions.insert(0, inst(21, &[59, 64, 0]));
    m.instructions.insert(1, inst(43, &[59, 60, 0, 0]));
    lowering_analysis_is_the_full_one_less_pdom(&m);
    let cfg = analyze(&m);
    let f = &cfg.functions[0];
    assert!(f.issues.is_empty(), "{:?}", f.issues);
    let targets: Vec<u32> = f.successors(0).collect();
    assert_eq!(targets, vec![3, 1, 2]);
    assert!(f.roles(0).contains(Roles::SWITCH_HEADER));
    assert!(f.roles(1).contains(Roles::CASE_TARGET));
    let kinds: Vec<ConstructKind> = f.constructs().iter().map(|k| k.kind).collect();
    assert_eq!(
        kinds,
        vec![
            ConstructKind::Switch,
            ConstructKind::Case,
            ConstructKind::Case
        ]
    );
    let sw = f.header_construct(0).unwrap();
    assert_eq!(f.construct_blocks(sw), vec![0, 1, 2]);
    assert_eq!(f.innermost_construct(1), Some(1));
    assert_eq!(f.construct_parent(1), Some(sw));
    assert_eq!(f.innermost_construct(3), None);
}

#[test]
fn back_edges_of_cycles_the_entry_does_not_reach() {
    // 0: return; 1 (unreachable): loop header, merge 3, continue 2; 2 -> 1; 3: return.
    let m = module_of(vec![
        inst(op::OpLabel, &[L0]),
        inst(op::OpReturn, &[]),
        inst(op::OpLabel, &[L0 + 1]),
        inst(op::OpLoopMerge, &[L0 + 3, L0 + 2, 0]),
        inst(op::OpBranch, &[L0 + 2]),
        inst(op::OpLabel, &[L0 + 2]),
        inst(op::OpBranch, &[L0 + 1]),
        inst(op::OpLabel, &[L0 + 3]),
        inst(op::OpReturn, &[]),
    ]);
    let cfg = analyze(&m);
    let f = &cfg.functions[0];
    // The search goes on from block 1, the first block the entry does not
    // reach: 2 -> 1 branches to a block on the stack.
    assert_eq!(f.back_edge_pairs(), &[(2, 1)]);
    assert_eq!(f.back_edge_blocks(1), &[2]);
    assert!(f.roles(2).contains(Roles::BACK_EDGE_BLOCK));
    assert!(!f.is_structurally_reachable(1));
    // Neither the header nor its continue target is reachable: no constructs.
    assert!(f.constructs().is_empty());
}

#[test]
fn back_edge_search_starts_at_blocks_without_predecessors() {
    // The entry block 0 is the loop's continue target, so it has a structural
    // predecessor; block 3 has none and the search starts there:
    // 3 -> 1 -> (merge 4, continue 0 -> 1 on the stack), so 0 -> 1 is the back
    // edge (spirv-val v2025.5 accepts this function).
    let m = module_of(vec![
        inst(op::OpLabel, &[L0]),
        inst(op::OpBranch, &[L0 + 1]),
        inst(op::OpLabel, &[L0 + 1]),
        inst(op::OpLoopMerge, &[L0 + 4, L0, 0]),
        inst(op::OpBranchConditional, &[COND, L0 + 2, L0 + 4]),
        inst(op::OpLabel, &[L0 + 2]),
        inst(op::OpBranch, &[L0 + 4]),
        inst(op::OpLabel, &[L0 + 3]),
        inst(op::OpBranch, &[L0 + 1]),
        inst(op::OpLabel, &[L0 + 4]),
        inst(op::OpReturn, &[]),
    ]);
    let cfg = analyze(&m);
    let f = &cfg.functions[0];
    assert_eq!(f.back_edge_pairs(), &[(0, 1)]);
    let lp = f.header_construct(1).unwrap();
    assert_eq!(f.constructs()[lp as usize].back_edge_block, Some(0));
    // The continue construct SDom(0) ∩ (SPDom(0) ∪ ¬SDom(0)) is {0}; the loop
    // construct SDom(1) − SDom(0) − SDom(4) is empty (0 dominates everything).
    let cont = (0..f.constructs().len() as u32)
        .find(|&c| f.constructs()[c as usize].kind == ConstructKind::Continue)
        .unwrap();
    assert_eq!(f.construct_blocks(cont), vec![0]);
    assert!(f.construct_blocks(lp).is_empty());
    // Structured exits: the loop leaves to its merge or continue target only;
    // the continue construct to the header or the merge.
    assert!(f.is_structured_exit(lp, 4) && f.is_structured_exit(lp, 0));
    assert!(!f.is_structured_exit(lp, 2));
    assert!(f.is_structured_exit(cont, 1) && f.is_structured_exit(cont, 4));
    assert!(!f.is_structured_exit(cont, 2));
}

#[test]
fn the_lowering_analysis_is_the_full_one_less_the_branch_post_dominators() {
    let mut rng = Rng(0x5eed_10e5_0000_0003);
    for _ in 0..200 {
        let n = 1 + rng.below(30) as usize;
        lowering_analysis_is_the_full_one_less_pdom(&random_function(&mut rng, n));
    }
}

/// [`analyze_for_lowering`] of `m`'s IR (switch targets from the IR's
/// operands) is [`analyze`] of `m` (switch targets parsed again) less `pdom`.
fn lowering_analysis_is_the_full_one_less_pdom(m: &Module) {
    let mut full = analyze(m);
    let lite = analyze_for_lowering(&crate::ir::Ir::build(m.clone()));
    assert!(lite.functions.iter().all(|f| f.pdom == DomTree::default()));
    for f in &mut full.functions {
        f.pdom = DomTree::default();
    }
    assert_eq!(full, lite);
}
