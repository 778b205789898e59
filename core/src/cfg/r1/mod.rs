//! Structured control flow under SPIR-V 1.6 revision 1 beside revision 2.
//!
//! Revision 2 (the rest of `crate::cfg`) defines constructs with *structural*
//! dominance: dominance over branch, merge and continue edges. Revision 1
//! defined them with regular dominance and post-dominance over branch edges
//! only, and Klimis et al. ("Taking Back Control in an Intermediate
//! Representation for GPU Computing", POPL 2023, sections 2.2 and 3) show
//! how that gives surprising answers: an empty selection construct (Fig. 6),
//! cyclic merges that are allowed (Fig. 7), an over-large continue construct
//! (Fig. 8, without the merge-block clause), a loop with no back edge (Fig. 5).
//! This module computes the revision 1 answers so that both can be shown side
//! by side, using the paper's quotations of SPIR-V 1.6r1:
//!
//! * **Dominate** (2.2.5): A dominates B if every path from the entry block
//!   to B includes A. With no such path (B not reachable over branch edges)
//!   every block dominates B *vacuously*; an unreachable A dominates only
//!   itself and unreachable blocks ([`FunctionCfg::r1_dominates`]).
//! * **Post dominate** (2.2.5): B post-dominates A if every path from A to a
//!   function-return instruction goes through B; vacuously when A has no path
//!   to one ([`FunctionCfg::r1_post_dominates`]). Every termination
//!   instruction counts as a return here, as in revision 2.
//! * **Back edge** (2.2.5): found by a depth-first search over branch edges
//!   from the entry block ([`FunctionCfg::r1_back_edges`]).
//! * **Constructs** (2.11), with H a header, M its merge block, C a loop's
//!   Continue Target and B its back-edge block:
//!   - selection (and switch): Dom(H) − Dom(M);
//!   - case: Dom(T) − Dom(M), for each distinct OpSwitch target T ≠ M;
//!   - continue: Dom(C) ∩ PDom(B) − Dom(M) (1.6r1's "while excluding blocks
//!     dominated by that loop's merge block", section 3.5); empty when the
//!     loop has no back-edge block;
//!   - loop: Dom(H) − continue construct − Dom(M).
//!
//!   1.6r1's further caveat, that constructs "exclude all outer constructs'
//!   continue constructs and exclude all blocks dominated by all outer
//!   constructs' merge blocks", is *not* applied: the paper shows it circular
//!   and "outer construct" undefined (section 3.1), and states the sets of
//!   figures 3, 4 and 6 without it.
//! * **Rules** (2.11) judged for the verdict ([`Violation`]): every back edge
//!   branches to a loop header, and each loop header has exactly one back
//!   edge (block) branching to it; each header strictly dominates its merge
//!   block *unless the merge block is unreachable*; a loop header dominates
//!   its Continue Target *unless the Continue Target is unreachable*; the
//!   Continue Target dominates the back-edge block; the back-edge block
//!   post-dominates the Continue Target. The 1.6r1 exit rules ("a break block
//!   is valid only for the innermost loop it is nested inside of", ...) are
//!   not judged: they rest on the ill-defined constructs (section 3.6).
//!
//! The same five rules with the structural relations, restricted to
//! structurally reachable headers (section 4.5), give the revision 2 verdict
//! of [`FunctionCfg::revision`]; the validator (`valid::cfg`) judges revision
//! 2 in full, exit rules included.
//!
//! Revision 1 sets are materialised block by block (O(blocks) per
//! construct): this is for showing a function, not for validating big ones.

mod search;

pub use search::SearchStep;

use super::{ConstructKind, FunctionCfg, MergeKind};
use crate::grammar::op;
use alloc::vec::Vec;

/// A revision of the SPIR-V 1.6 specification's structured control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Revision {
    /// SPIR-V 1.6 revision 1: regular dominance and post-dominance.
    #[cfg_attr(feature = "serde", serde(rename = "1.6r1"))]
    V1_6R1,
    /// SPIR-V 1.6 revision 2: structural dominance and post-dominance.
    #[cfg_attr(feature = "serde", serde(rename = "1.6r2"))]
    V1_6R2,
}

impl Revision {
    /// `1.6r1` or `1.6r2`.
    pub fn name(self) -> &'static str {
        match self {
            Revision::V1_6R1 => "1.6r1",
            Revision::V1_6R2 => "1.6r2",
        }
    }

    /// Read `1.6r1` or `1.6r2`.
    pub fn parse(s: &str) -> Option<Revision> {
        match s {
            "1.6r1" => Some(Revision::V1_6R1),
            "1.6r2" => Some(Revision::V1_6R2),
            _ => None,
        }
    }
}

/// A construct under one revision, with its blocks (block indices, in block order).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RevConstruct {
    pub kind: ConstructKind,
    /// The block the set is rooted at: header, continue target or case target.
    pub entry: u32,
    /// The header whose merge instruction declares the construct.
    pub header: u32,
    pub merge: Option<u32>,
    /// Loop and continue constructs: the continue target.
    pub continue_target: Option<u32>,
    /// Loop and continue constructs: the back-edge block under this revision.
    pub back_edge_block: Option<u32>,
    pub blocks: Vec<u32>,
}

/// A broken rule of section 2.11 (the rules both revisions share, each
/// judged with that revision's relations). Blocks are block indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "rule", rename_all = "kebab-case"))]
pub enum Violation {
    /// A back edge branches to a block that is not a loop header.
    BackEdgeNotToLoopHeader { from: u32, to: u32 },
    /// A loop header is the target of `count` back-edge blocks, not one.
    BackEdgeCount { header: u32, count: u32 },
    /// A header does not strictly (structurally) dominate its merge block.
    MergeNotDominated { header: u32, merge: u32 },
    /// A loop header does not (structurally) dominate its continue target.
    ContinueTargetNotDominated { header: u32, continue_target: u32 },
    /// The continue target does not (structurally) dominate the back-edge block.
    BackEdgeBlockNotDominated { continue_target: u32, back_edge_block: u32 },
    /// The back-edge block does not (structurally) post-dominate the continue target.
    ContinueNotPostDominated { continue_target: u32, back_edge_block: u32 },
}

/// The constructs, back edges and verdict of a function under one revision.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RevisionView {
    pub revision: Revision,
    /// Back edges as distinct (source, target) blocks, in the order found.
    pub back_edges: Vec<(u32, u32)>,
    pub constructs: Vec<RevConstruct>,
    /// The broken rules; none means valid (as far as these rules go).
    pub violations: Vec<Violation>,
}

impl RevisionView {
    /// No rule is broken.
    pub fn is_valid(&self) -> bool {
        self.violations.is_empty()
    }

    /// The construct of a kind rooted at `entry`.
    pub fn construct(&self, kind: ConstructKind, entry: u32) -> Option<&RevConstruct> {
        self.constructs.iter().find(|c| c.kind == kind && c.entry == entry)
    }
}

/// Dominance or post-dominance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Relation {
    Dominates,
    PostDominates,
}

/// "`a` (post-)dominates `b`": its truth over branch edges (revision 1,
/// `regular`) and over structured edges (revision 2, `structural`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DomFact {
    pub relation: Relation,
    pub a: u32,
    pub b: u32,
    pub regular: bool,
    pub structural: bool,
    /// The regular fact holds only vacuously: no path from the entry reaches
    /// `b` (dominance), or no path from `b` reaches a return (post-dominance).
    pub vacuous: bool,
}

/// A construct as both revisions see it (indices into each view's constructs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PairedConstruct {
    pub kind: ConstructKind,
    pub entry: u32,
    pub header: u32,
    pub r1: Option<u32>,
    pub r2: Option<u32>,
}

/// A block that one revision puts in a construct and the other does not.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Membership {
    /// Index into [`Comparison::constructs`].
    pub construct: u32,
    pub block: u32,
    pub r1: bool,
    pub r2: bool,
    /// The facts of the construct's definition that differ between the
    /// revisions for this block (the reason).
    pub facts: Vec<DomFact>,
    /// Loop and continue constructs whose back-edge block differs between the
    /// revisions: (revision 1's, revision 2's).
    pub back_edge_blocks: Option<(Option<u32>, Option<u32>)>,
}

/// Both revisions of a function side by side.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Comparison {
    pub r1: RevisionView,
    pub r2: RevisionView,
    /// Every construct of either revision, in header order.
    pub constructs: Vec<PairedConstruct>,
    /// The (construct, block) memberships that differ.
    pub differing: Vec<Membership>,
    /// The memberships that agree although a dominance fact of the
    /// definition differs: another clause decides them the same way under
    /// both revisions. (Fig. 8: 4 post-dominates 5 and 6 only vacuously, and
    /// 1.6r1's merge-block clause is what keeps them out of the continue
    /// construct of 3.) Blocks of either revision's entry region only.
    pub masked: Vec<Membership>,
}

impl Comparison {
    /// The view of one revision.
    pub fn view(&self, r: Revision) -> &RevisionView {
        match r {
            Revision::V1_6R1 => &self.r1,
            Revision::V1_6R2 => &self.r2,
        }
    }

    /// Per construct containing `block` under either revision: (index into
    /// [`Comparison::constructs`], member under 1.6r1, member under 1.6r2).
    pub fn memberships(&self, block: u32) -> Vec<(u32, bool, bool)> {
        let has = |v: &RevisionView, c: Option<u32>| {
            c.and_then(|c| v.constructs.get(c as usize)).is_some_and(|k| k.blocks.binary_search(&block).is_ok())
        };
        let mut out = Vec::new();
        for (i, p) in self.constructs.iter().enumerate() {
            let (a, b) = (has(&self.r1, p.r1), has(&self.r2, p.r2));
            if a || b {
                out.push((i as u32, a, b));
            }
        }
        out
    }

    /// The blocks whose membership differs in some construct, sorted.
    pub fn differing_blocks(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.differing.iter().map(|m| m.block).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

impl FunctionCfg {
    /// `a` dominates `b` under SPIR-V 1.6r1 (paths of branch edges from the
    /// entry; vacuously true when none reaches `b`).
    pub fn r1_dominates(&self, a: u32, b: u32) -> bool {
        a == b || !self.is_reachable(b) || self.dominates(a, b)
    }

    /// `a` post-dominates `b` under SPIR-V 1.6r1 (paths of branch edges from
    /// `b` to a termination instruction; vacuously true when there is none).
    pub fn r1_post_dominates(&self, a: u32, b: u32) -> bool {
        a == b || !self.reaches_exit(b) || self.post_dominates(a, b)
    }

    /// The constructs, back edges and rule verdict under one revision.
    pub fn revision(&self, r: Revision) -> RevisionView {
        match r {
            Revision::V1_6R1 => self.r1_view(),
            Revision::V1_6R2 => self.r2_view(),
        }
    }

    /// Both revisions, paired construct by construct, with the memberships
    /// that differ and the dominance facts that make them differ.
    pub fn compare_revisions(&self) -> Comparison {
        let r1 = self.r1_view();
        let r2 = self.r2_view();
        let mut constructs: Vec<PairedConstruct> = Vec::new();
        for (i, c) in r1.constructs.iter().enumerate() {
            constructs.push(PairedConstruct { kind: c.kind, entry: c.entry, header: c.header, r1: Some(i as u32), r2: None });
        }
        for (i, c) in r2.constructs.iter().enumerate() {
            match constructs.iter_mut().find(|p| p.kind == c.kind && p.entry == c.entry && p.header == c.header) {
                Some(p) => p.r2 = Some(i as u32),
                None => constructs.push(PairedConstruct { kind: c.kind, entry: c.entry, header: c.header, r1: None, r2: Some(i as u32) }),
            }
        }
        constructs.sort_by_key(|p| (p.header, p.entry, p.kind));
        let empty: Vec<u32> = Vec::new();
        let mut differing = Vec::new();
        let mut masked = Vec::new();
        for (pi, p) in constructs.iter().enumerate() {
            let k1 = p.r1.map(|i| &r1.constructs[i as usize]);
            let k2 = p.r2.map(|i| &r2.constructs[i as usize]);
            let s1 = k1.map_or(&empty, |k| &k.blocks);
            let s2 = k2.map_or(&empty, |k| &k.blocks);
            let b1 = k1.and_then(|k| k.back_edge_block);
            let b2 = k2.and_then(|k| k.back_edge_block);
            let Some(k) = k1.or(k2) else { continue };
            let region = (0..self.blocks.len() as u32)
                .filter(|&x| self.r1_dominates(k.entry, x) || self.structurally_dominates(k.entry, x));
            for x in region {
                let (in1, in2) = (s1.binary_search(&x).is_ok(), s2.binary_search(&x).is_ok());
                let facts = self.differing_facts(k, b1, b2, x);
                if in1 == in2 && facts.is_empty() {
                    continue;
                }
                let m = Membership {
                    construct: pi as u32,
                    block: x,
                    r1: in1,
                    r2: in2,
                    facts,
                    back_edge_blocks: (matches!(k.kind, ConstructKind::Loop | ConstructKind::Continue) && b1 != b2)
                        .then_some((b1, b2)),
                };
                if in1 == in2 { masked.push(m) } else { differing.push(m) }
            }
        }
        Comparison { r1, r2, constructs, differing, masked }
    }

    fn fact(&self, relation: Relation, a: u32, b: u32) -> DomFact {
        let (regular, structural, vacuous) = match relation {
            Relation::Dominates => (
                self.r1_dominates(a, b),
                self.structurally_dominates(a, b),
                a != b && !self.is_reachable(b),
            ),
            Relation::PostDominates => (
                self.r1_post_dominates(a, b),
                self.structurally_post_dominates(a, b),
                a != b && !self.reaches_exit(b),
            ),
        };
        DomFact { relation, a, b, regular, structural, vacuous }
    }

    /// The facts in a construct's definition that differ between revisions for `x`.
    fn differing_facts(&self, k: &RevConstruct, b1: Option<u32>, b2: Option<u32>, x: u32) -> Vec<DomFact> {
        let mut facts = Vec::new();
        let mut push = |f: DomFact| {
            if f.regular != f.structural && !facts.contains(&f) {
                facts.push(f);
            }
        };
        push(self.fact(Relation::Dominates, k.entry, x));
        if let Some(m) = k.merge {
            push(self.fact(Relation::Dominates, m, x));
        }
        if matches!(k.kind, ConstructKind::Loop | ConstructKind::Continue) {
            if let Some(c) = k.continue_target {
                push(self.fact(Relation::Dominates, c, x));
            }
            for b in [b1, b2].into_iter().flatten() {
                push(self.fact(Relation::PostDominates, b, x));
                push(self.fact(Relation::Dominates, b, x));
            }
        }
        facts
    }

    /// The last back-edge block to each block, from (source, target) pairs.
    fn last_back(&self, pairs: &[(u32, u32)]) -> Vec<Option<u32>> {
        let mut out = alloc::vec![None; self.blocks.len()];
        for &(from, to) in pairs {
            out[to as usize] = Some(from);
        }
        out
    }

    /// The rules of section 2.11 both revisions share, judged by one
    /// revision's relations (`rules`) over the headers `headers`.
    fn violations(&self, headers: impl Iterator<Item = u32>, back_edges: &[(u32, u32)], last: &[Option<u32>], rules: &Rules) -> Vec<Violation> {
        let mut violations = Vec::new();
        let is_loop = |b: u32| self.blocks[b as usize].merge.is_some_and(|m| m.kind == MergeKind::Loop);
        for &(from, to) in back_edges {
            if !is_loop(to) {
                violations.push(Violation::BackEdgeNotToLoopHeader { from, to });
            }
        }
        for h in headers {
            let Some(m) = self.blocks[h as usize].merge else { continue };
            if let Some(mb) = m.merge_block
                && !(rules.merge)(h, mb)
            {
                violations.push(Violation::MergeNotDominated { header: h, merge: mb });
            }
            if m.kind != MergeKind::Loop {
                continue;
            }
            let count = back_edges.iter().filter(|p| p.1 == h).count() as u32;
            if count != 1 {
                violations.push(Violation::BackEdgeCount { header: h, count });
            }
            let Some(c) = m.continue_block else { continue };
            if !(rules.continue_target)(h, c) {
                violations.push(Violation::ContinueTargetNotDominated { header: h, continue_target: c });
            }
            if let Some(bb) = last[h as usize] {
                if !(rules.back_edge_block)(c, bb) {
                    violations.push(Violation::BackEdgeBlockNotDominated { continue_target: c, back_edge_block: bb });
                }
                if !(rules.post)(bb, c) {
                    violations.push(Violation::ContinueNotPostDominated { continue_target: c, back_edge_block: bb });
                }
            }
        }
        violations
    }

    fn r1_view(&self) -> RevisionView {
        let n = self.blocks.len() as u32;
        let back_edges = self.r1_back_edges();
        let last = self.last_back(&back_edges);
        let dom = |a: u32, x: u32| self.r1_dominates(a, x);
        let set = |keep: &dyn Fn(u32) -> bool| -> Vec<u32> { (0..n).filter(|&x| keep(x)).collect() };
        let mut constructs = Vec::new();
        for h in 0..n {
            let b = &self.blocks[h as usize];
            let Some(m) = b.merge else { continue };
            let mb = m.merge_block;
            let not_merge = |x: u32| mb.is_none_or(|mb| !dom(mb, x));
            let base = RevConstruct {
                kind: ConstructKind::Selection,
                entry: h,
                header: h,
                merge: mb,
                continue_target: None,
                back_edge_block: None,
                blocks: Vec::new(),
            };
            match m.kind {
                MergeKind::Loop => {
                    let ct = m.continue_block;
                    let be = last[h as usize];
                    let cont = match (ct, be) {
                        (Some(c), Some(bb)) => {
                            set(&|x| dom(c, x) && self.r1_post_dominates(bb, x) && not_merge(x))
                        }
                        _ => Vec::new(),
                    };
                    let lp = set(&|x| dom(h, x) && cont.binary_search(&x).is_err() && not_merge(x));
                    let k = RevConstruct { kind: ConstructKind::Loop, continue_target: ct, back_edge_block: be, ..base };
                    if let Some(c) = ct {
                        constructs.push(RevConstruct { kind: ConstructKind::Continue, entry: c, blocks: cont, ..k.clone() });
                    }
                    constructs.push(RevConstruct { blocks: lp, ..k });
                }
                MergeKind::Selection if b.terminator_opcode == Some(op::OpSwitch) => {
                    constructs.push(RevConstruct {
                        kind: ConstructKind::Switch,
                        blocks: set(&|x| dom(h, x) && not_merge(x)),
                        ..base.clone()
                    });
                    let mut seen: Vec<u32> = Vec::new();
                    for t in self.successors(h) {
                        if Some(t) == mb || seen.contains(&t) {
                            continue;
                        }
                        seen.push(t);
                        constructs.push(RevConstruct {
                            kind: ConstructKind::Case,
                            entry: t,
                            blocks: set(&|x| dom(t, x) && not_merge(x)),
                            ..base.clone()
                        });
                    }
                }
                MergeKind::Selection => {
                    constructs.push(RevConstruct { blocks: set(&|x| dom(h, x) && not_merge(x)), ..base });
                }
            }
        }
        // The rules, with 1.6r1's "unless ... unreachable" escapes.
        let rules = Rules {
            merge: &|h, mb| !self.is_reachable(mb) || (h != mb && dom(h, mb)),
            continue_target: &|h, c| !self.is_reachable(c) || dom(h, c),
            back_edge_block: &|c, bb| dom(c, bb),
            post: &|bb, c| self.r1_post_dominates(bb, c),
        };
        let violations = self.violations(0..n, &back_edges, &last, &rules);
        RevisionView { revision: Revision::V1_6R1, back_edges, constructs, violations }
    }

    fn r2_view(&self) -> RevisionView {
        let n = self.blocks.len() as u32;
        let reach = |b: u32| self.is_structurally_reachable(b);
        let back_edges: Vec<(u32, u32)> =
            self.back_edge_pairs().iter().copied().filter(|&(from, _)| reach(from)).collect();
        let constructs = self
            .constructs()
            .iter()
            .enumerate()
            .map(|(i, k)| RevConstruct {
                kind: k.kind,
                entry: k.entry,
                header: k.header,
                merge: k.merge,
                continue_target: k.continue_target,
                back_edge_block: k.back_edge_block,
                blocks: self.construct_blocks(i as u32),
            })
            .collect();
        let last = self.last_back(&back_edges);
        let rules = Rules {
            merge: &|h, mb| self.sdom.strictly_dominates(h, mb),
            continue_target: &|h, c| self.structurally_dominates(h, c),
            back_edge_block: &|c, bb| self.structurally_dominates(c, bb),
            post: &|bb, c| self.structurally_post_dominates(bb, c),
        };
        let violations = self.violations((0..n).filter(|&h| reach(h)), &back_edges, &last, &rules);
        RevisionView { revision: Revision::V1_6R2, back_edges, constructs, violations }
    }
}

/// How one revision reads the rules of section 2.11: whether header `h`
/// dominates its merge block as the rule asks (`merge(h, mb)`), its continue
/// target (`continue_target(h, c)`), whether the continue target dominates
/// the back-edge block (`back_edge_block(c, bb)`), and whether the back-edge
/// block post-dominates the continue target (`post(bb, c)`).
struct Rules<'a> {
    merge: &'a dyn Fn(u32, u32) -> bool,
    continue_target: &'a dyn Fn(u32, u32) -> bool,
    back_edge_block: &'a dyn Fn(u32, u32) -> bool,
    post: &'a dyn Fn(u32, u32) -> bool,
}
