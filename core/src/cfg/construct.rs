//! Structured control-flow constructs (SPIR-V 1.6r2 section 2.11), defined
//! with structural dominance (SDom) and structural post-dominance (SPDom):
//!
//! * selection construct of a selection header H with merge M: SDom(H) − SDom(M);
//! * switch construct of a switch header S (an `OpSelectionMerge` block ended
//!   by `OpSwitch`) with merge M: SDom(S) − SDom(M);
//! * case construct of each distinct `OpSwitch` Target or Default T that is
//!   not M: SDom(T) − SDom(M);
//! * continue construct of a loop with continue target C and back-edge block
//!   B: SDom(C) ∩ SPDom(B);
//! * loop construct of a loop header L with merge M: SDom(L) − continue
//!   construct − SDom(M).
//!
//! Only structurally reachable headers have constructs (the spec places no
//! requirement on structurally unreachable ones). When a loop has no back-edge
//! block (an invalid module) its continue construct is SDom(C) − SDom(M); with
//! several, the first (in edge order) structurally dominated by C is used.
//!
//! Every set is `SDom(entry)` — a preorder interval of the structural
//! dominator tree — minus subtrees, intersected with a post-dominator subtree
//! for continue constructs, so membership is O(1) and a set is only
//! materialised on demand ([`FunctionCfg::construct_blocks`]).

use crate::grammar::op;
use super::{FunctionCfg, MergeKind, NONE};
use crate::cfg::Csr;
use alloc::vec;
use alloc::vec::Vec;

/// The kind of a structured construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum ConstructKind {
    Selection,
    Switch,
    Loop,
    Continue,
    Case,
}

impl ConstructKind {
    /// `selection`, `switch`, `loop`, `continue` or `case`, as drawn and serialised.
    pub fn name(self) -> &'static str {
        match self {
            ConstructKind::Selection => "selection",
            ConstructKind::Switch => "switch",
            ConstructKind::Loop => "loop",
            ConstructKind::Continue => "continue",
            ConstructKind::Case => "case",
        }
    }
}

/// One construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Construct {
    pub kind: ConstructKind,
    /// The block the set is rooted at: the header, the continue target, or the case target.
    pub entry: u32,
    /// The header block whose merge instruction declares it (the loop header
    /// of a continue construct, the switch header of a case construct).
    pub header: u32,
    /// The merge block (of the header) if it is a block of the function.
    pub merge: Option<u32>,
    /// Loop and continue constructs: the continue target, if a block.
    pub continue_target: Option<u32>,
    /// Loop and continue constructs: the back-edge block used by the definition.
    pub back_edge_block: Option<u32>,
    /// The smallest enclosing construct (index into [`FunctionCfg::constructs`]).
    pub parent: Option<u32>,
    /// 1 for an outermost construct.
    pub depth: u32,
}

/// Rank of a construct among those sharing an entry block, outermost first.
fn rank(kind: ConstructKind) -> u32 {
    match kind {
        ConstructKind::Case => 0,
        ConstructKind::Continue => 1,
        _ => 2,
    }
}

impl FunctionCfg {
    /// The constructs, grouped by header in block order.
    pub fn constructs(&self) -> &[Construct] {
        &self.constructs
    }

    /// The innermost construct containing a block.
    pub fn innermost_construct(&self, b: u32) -> Option<u32> {
        self.innermost
            .get(b as usize)
            .copied()
            .filter(|&c| c != NONE)
    }

    /// The construct of a header's merge instruction (selection, switch or loop).
    pub fn header_construct(&self, header: u32) -> Option<u32> {
        self.rooted_at(header).iter().copied().find(|&c| {
            let k = &self.constructs[c as usize];
            k.header == header
                && matches!(
                    k.kind,
                    ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Loop
                )
        })
    }

    /// The constructs whose entry is `b`, outermost first.
    pub fn rooted_at(&self, b: u32) -> &[u32] {
        self.rooted.of(b)
    }

    /// Whether block `x` belongs to construct `c`. O(1).
    pub fn construct_contains(&self, c: u32, x: u32) -> bool {
        let Some(k) = self.constructs.get(c as usize) else {
            return false;
        };
        if !self.sdom.in_subtree(k.entry, x) {
            return false;
        }
        let under_merge = |x: u32| k.merge.is_some_and(|m| self.sdom.in_subtree(m, x));
        match k.kind {
            ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Case => {
                !under_merge(x)
            }
            ConstructKind::Continue => self.in_continue(k, x),
            ConstructKind::Loop => {
                !under_merge(x) && !k.continue_target.is_some_and(|_| self.in_continue(k, x))
            }
        }
    }

    /// Membership in the continue construct of the loop described by `k`.
    fn in_continue(&self, k: &Construct, x: u32) -> bool {
        let Some(ct) = k.continue_target else {
            return false;
        };
        if !self.sdom.in_subtree(ct, x) {
            return false;
        }
        match k.back_edge_block {
            Some(b) => self.spdom.dominates(b, x),
            None => !k.merge.is_some_and(|m| self.sdom.in_subtree(m, x)),
        }
    }

    /// The blocks of a construct, in block (module) order.
    pub fn construct_blocks(&self, c: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(k) = self.constructs.get(c as usize) else {
            return out;
        };
        let Some((lo, hi)) = self.sdom.range(k.entry) else {
            return out;
        };
        // The merge block's subtree is excluded from every kind but the
        // continue construct; skip it wholesale when it lies inside.
        let skip = match k.kind {
            ConstructKind::Continue => None,
            _ => k
                .merge
                .and_then(|m| self.sdom.range(m))
                .filter(|&(a, _)| a > lo && a <= hi),
        };
        let order = self.sdom.preorder();
        let mut p = lo;
        while p <= hi {
            if let Some((a, b)) = skip
                && p == a
            {
                p = b + 1;
                continue;
            }
            let x = order[p as usize];
            if self.construct_contains(c, x) {
                out.push(x);
            }
            p += 1;
        }
        out.sort_unstable();
        out
    }

    /// The parent of a construct in the construct tree.
    pub fn construct_parent(&self, c: u32) -> Option<u32> {
        self.constructs.get(c as usize)?.parent
    }

    /// The innermost construct containing `x` among those not rooted at `x`.
    fn enclosing(&self, x: u32) -> Option<u32> {
        let p = self.sdom.idom(x)?;
        for &c in self.rooted_at(p).iter().rev() {
            if self.construct_contains(c, x) {
                return Some(c);
            }
        }
        let mut c = self.innermost_construct(p);
        while let Some(cc) = c {
            if self.construct_contains(cc, x) {
                return Some(cc);
            }
            c = self.constructs[cc as usize].parent;
        }
        None
    }
}

/// Create the constructs, their tree, and every block's innermost construct.
pub(super) fn build(cfg: &mut FunctionCfg) {
    let n = cfg.blocks.len();
    let mut constructs: Vec<Construct> = Vec::new();
    for h in 0..n as u32 {
        let b = &cfg.blocks[h as usize];
        let Some(m) = b.merge else { continue };
        if !cfg.sdom.contains(h) {
            continue;
        }
        let base = Construct {
            kind: ConstructKind::Selection,
            entry: h,
            header: h,
            merge: m.merge_block,
            continue_target: None,
            back_edge_block: None,
            parent: None,
            depth: 0,
        };
        match m.kind {
            MergeKind::Loop => {
                let ct = m.continue_block;
                let mut back: Option<u32> = None;
                for &s in cfg.back_edge_blocks(h) {
                    let inside = ct.is_some_and(|c| cfg.sdom.dominates(c, s));
                    if inside {
                        back = Some(s);
                        break;
                    }
                    if back.is_none() {
                        back = Some(s);
                    }
                }
                let lp = Construct {
                    kind: ConstructKind::Loop,
                    continue_target: ct,
                    back_edge_block: back,
                    ..base
                };
                constructs.push(lp);
                if let Some(c) = ct {
                    constructs.push(Construct {
                        kind: ConstructKind::Continue,
                        entry: c,
                        ..lp
                    });
                }
            }
            MergeKind::Selection if b.terminator_opcode == Some(op::OpSwitch) => {
                constructs.push(Construct {
                    kind: ConstructKind::Switch,
                    ..base
                });
                let mut seen: Vec<u32> = Vec::new();
                for t in cfg.successors(h) {
                    if Some(t) == m.merge_block || seen.contains(&t) {
                        continue;
                    }
                    seen.push(t);
                    constructs.push(Construct {
                        kind: ConstructKind::Case,
                        entry: t,
                        ..base
                    });
                }
            }
            MergeKind::Selection => constructs.push(base),
        }
    }
    // Group by entry, outermost first.
    let mut keyed: Vec<(u32, u32, u32)> = constructs
        .iter()
        .enumerate()
        .map(|(i, k)| (k.entry, rank(k.kind), i as u32))
        .collect();
    keyed.sort_unstable();
    let pairs: Vec<(u32, u32)> = keyed.iter().map(|&(e, _, i)| (e, i)).collect();
    cfg.rooted = Csr::from_pairs(n, &pairs);
    cfg.constructs = constructs;
    cfg.innermost = vec![NONE; n];

    // Walk the structural dominator tree top-down: a construct's parent and a
    // block's innermost construct only depend on constructs rooted at its
    // structural dominators.
    let order: Vec<u32> = cfg.sdom.preorder().to_vec();
    for x in order {
        let outer = cfg.enclosing(x);
        let rooted: Vec<u32> = cfg.rooted_at(x).to_vec();
        for (j, &c) in rooted.iter().enumerate() {
            let k = cfg.constructs[c as usize];
            let mut parent = outer;
            for &o in rooted[..j].iter().rev() {
                let ko = &cfg.constructs[o as usize];
                // A loop is not inside its own continue construct (they share an
                // entry when the header is its own continue target).
                let own_continue = k.kind == ConstructKind::Loop
                    && ko.kind == ConstructKind::Continue
                    && ko.header == k.header;
                if !own_continue && cfg.construct_contains(o, x) {
                    parent = Some(o);
                    break;
                }
            }
            let depth = parent.map_or(1, |p| cfg.constructs[p as usize].depth + 1);
            let kc = &mut cfg.constructs[c as usize];
            kc.parent = parent;
            kc.depth = depth;
        }
        let mut inner = outer;
        for &c in rooted.iter().rev() {
            if cfg.construct_contains(c, x) {
                inner = Some(c);
                break;
            }
        }
        cfg.innermost[x as usize] = inner.unwrap_or(NONE);
    }
}
