//! The page's teaching view of one function's structured control flow:
//! both revisions' constructs, back edges and verdicts
//! ([`crate::cfg::FunctionCfg::compare_revisions`]) with a note per differing
//! block, and the construct explorer: each construct's definition worked out
//! on the graph, the regions it subtracts, the exits it allows and the exits
//! it has, and, per block, the constructs holding it with the rule that puts
//! it there. Blocks are label ids; the texts name blocks as the page does
//! ([`Analysis::display_name`]).
//!
//! This is for showing a teaching-sized function: sets are materialised
//! block by block (O(blocks) per construct).

use super::Analysis;
use crate::cfg::{
    Comparison, ConstructKind, DomFact, FunctionCfg, Membership, Relation, Revision, RevisionView,
    Violation, is_exit_opcode,
};
use crate::cfg::EdgeKind;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The teaching view of a function (`TeachView` of www/src/teach/types.ts).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct TeachView {
    pub function: u32,
    pub r1: TeachRevision,
    pub r2: TeachRevision,
    /// Blocks whose membership in some construct differs between revisions.
    pub differing: Vec<BlockNote>,
    /// Blocks whose membership agrees only because of 1.6r1's merge-block
    /// clause: reachable over branch edges, put in the construct by 1.6r1's
    /// main clause and not by 1.6r2's (Fig. 8: b4 post-dominates b5 and b6
    /// vacuously). The rest of core's masked memberships (a fact differs but
    /// both main clauses agree, or the block is unreachable, where 1.6r1 says
    /// nothing useful) are not shown.
    pub masked: Vec<BlockNote>,
    /// The 1.6r2 constructs, in the order of the report's `constructs` (the
    /// drawing's `construct-<index>`).
    pub constructs: Vec<Explored>,
    /// Per block (label id): the constructs holding it, innermost first.
    pub containing: Vec<Containing>,
}

/// One revision's answers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct TeachRevision {
    pub revision: &'static str,
    pub valid: bool,
    pub back_edges: Vec<(u32, u32)>,
    pub constructs: Vec<TeachConstruct>,
    /// The broken rules, in words.
    pub violations: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct TeachConstruct {
    pub kind: ConstructKind,
    pub header: u32,
    pub entry: u32,
    /// "loop construct of %b2".
    pub title: String,
    pub blocks: Vec<u32>,
}

/// Why a block is marked in compare mode.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct BlockNote {
    pub block: u32,
    pub construct: String,
    pub r1: bool,
    pub r2: bool,
    pub note: String,
}

/// An exit of a construct: a branch from one of its blocks to a block outside
/// (`to`), or a function termination (`to` none).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Exit {
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub from: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub to: Option<u32>,
    /// merge, break, continue, back edge, switch break, fallthrough, return, or
    /// (for an exit not allowed) not allowed.
    pub kind: &'static str,
    pub allowed: bool,
}

/// One construct in the explorer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Explored {
    pub kind: ConstructKind,
    pub header: u32,
    pub entry: u32,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub merge: Option<u32>,
    pub title: String,
    /// The definition worked out on this graph.
    pub definition: String,
    /// The blocks the entry structurally dominates.
    pub dominated: Vec<u32>,
    /// The blocks of `dominated` the definition takes away.
    pub excluded: Vec<u32>,
    pub blocks: Vec<u32>,
    /// The exits the construct allows (`from` none).
    pub allowed: Vec<Exit>,
    /// The exits it has; `allowed` false flags a broken rule.
    pub exits: Vec<Exit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Containing {
    pub block: u32,
    /// (index of the construct, the rule that puts the block in it), innermost first.
    pub constructs: Vec<(u32, String)>,
}

impl Analysis {
    /// The teaching view of function `function` (its result id; none: the
    /// first with blocks), or none without a module or such a function.
    pub fn teach(&self, function: Option<u32>) -> Option<TeachView> {
        let f = self.cfg().functions.get(self.function_index(function)?)?;
        let dis = self.disassembly()?;
        let t = Teacher { f, name: &|id| format!("%{}", dis.name(id)) };
        Some(t.view())
    }
}

struct Teacher<'a> {
    f: &'a FunctionCfg,
    name: &'a dyn Fn(u32) -> String,
}

impl Teacher<'_> {
    fn label(&self, b: u32) -> u32 {
        self.f.blocks.get(b as usize).map_or(0, |x| x.label)
    }

    /// `%name` of block index `b`.
    fn n(&self, b: u32) -> String {
        (self.name)(self.label(b))
    }

    /// `{%a, %b}` of block indices.
    fn set(&self, blocks: &[u32]) -> String {
        let names: Vec<String> = blocks.iter().map(|&b| self.n(b)).collect();
        format!("{{{}}}", names.join(", "))
    }

    fn labels(&self, blocks: &[u32]) -> Vec<u32> {
        blocks.iter().map(|&b| self.label(b)).collect()
    }

    fn title(&self, kind: ConstructKind, entry: u32, header: u32) -> String {
        match kind {
            ConstructKind::Case => format!("case construct {} of switch {}", self.n(entry), self.n(header)),
            ConstructKind::Continue => format!("continue construct {} of loop {}", self.n(entry), self.n(header)),
            k => format!("{} construct of {}", k.name(), self.n(header)),
        }
    }

    fn view(&self) -> TeachView {
        let cmp = self.f.compare_revisions();
        let note = |m: &Membership| self.note(&cmp, m);
        TeachView {
            function: self.f.id,
            r1: self.revision(&cmp.r1),
            r2: self.revision(&cmp.r2),
            differing: cmp.differing.iter().map(note).collect(),
            masked: cmp.masked.iter().filter(|m| self.merge_clause_masks(&cmp, m)).map(note).collect(),
            constructs: (0..self.f.constructs().len() as u32).map(|c| self.explore(c)).collect(),
            containing: (0..self.f.blocks.len() as u32).map(|b| self.containing(b)).collect(),
        }
    }

    fn revision(&self, v: &RevisionView) -> TeachRevision {
        TeachRevision {
            revision: v.revision.name(),
            valid: v.is_valid(),
            back_edges: v.back_edges.iter().map(|&(a, b)| (self.label(a), self.label(b))).collect(),
            constructs: v
                .constructs
                .iter()
                .map(|k| TeachConstruct {
                    kind: k.kind,
                    header: self.label(k.header),
                    entry: self.label(k.entry),
                    title: self.title(k.kind, k.entry, k.header),
                    blocks: self.labels(&k.blocks),
                })
                .collect(),
            violations: v.violations.iter().map(|x| self.violation(v.revision, x)).collect(),
        }
    }

    fn violation(&self, r: Revision, v: &Violation) -> String {
        let s = if r == Revision::V1_6R2 { "structurally " } else { "" };
        match *v {
            Violation::BackEdgeNotToLoopHeader { from, to } => {
                format!("the back edge {} -> {} goes to a block that is not a loop header", self.n(from), self.n(to))
            }
            Violation::BackEdgeCount { header, count } => {
                format!("loop header {} is the target of {count} back-edge blocks, not one", self.n(header))
            }
            Violation::MergeNotDominated { header, merge } => {
                format!("header {} does not strictly {s}dominate its merge block {}", self.n(header), self.n(merge))
            }
            Violation::ContinueTargetNotDominated { header, continue_target } => format!(
                "loop header {} does not {s}dominate its continue target {}",
                self.n(header),
                self.n(continue_target)
            ),
            Violation::BackEdgeBlockNotDominated { continue_target, back_edge_block } => format!(
                "continue target {} does not {s}dominate the back-edge block {}",
                self.n(continue_target),
                self.n(back_edge_block)
            ),
            Violation::ContinueNotPostDominated { continue_target, back_edge_block } => format!(
                "the back-edge block {} does not {s}post-dominate the continue target {}",
                self.n(back_edge_block),
                self.n(continue_target)
            ),
        }
    }

    /// "%b7 dominates %b4 under 1.6r1 (vacuously: ...) but not structurally".
    fn fact(&self, d: &DomFact) -> String {
        let rel = match d.relation {
            Relation::Dominates => "dominates",
            Relation::PostDominates => "post-dominates",
        };
        let (a, b) = (self.n(d.a), self.n(d.b));
        if d.regular && !d.structural {
            let why = match (d.vacuous, d.relation) {
                (true, Relation::Dominates) => format!(" vacuously (no path of branches from the entry reaches {b})"),
                (true, Relation::PostDominates) => format!(" vacuously (no path of branches from {b} reaches a return)"),
                _ => String::new(),
            };
            format!("{a} {rel} {b} under 1.6r1{why}, but not structurally (1.6r2 also follows merge and continue edges)")
        } else {
            format!("{a} structurally {rel} {b} (1.6r2), but not under 1.6r1's regular {rel}")
        }
    }

    fn note(&self, cmp: &Comparison, m: &Membership) -> BlockNote {
        let p = &cmp.constructs[m.construct as usize];
        let construct = self.title(p.kind, p.entry, p.header);
        let x = self.n(m.block);
        let mut note = match (m.r1, m.r2) {
            (true, false) => format!("{x} is in the {construct} under 1.6r1 only"),
            (false, true) => format!("{x} is in the {construct} under 1.6r2 only"),
            (true, true) => format!("{x} is in the {construct} under both revisions, for different reasons"),
            (false, false) => format!("{x} is outside the {construct} under both revisions, for different reasons"),
        };
        let facts: Vec<String> = m.facts.iter().map(|d| self.fact(d)).collect();
        if !facts.is_empty() {
            note.push_str(": ");
            note.push_str(&facts.join("; "));
        }
        if let Some((a, b)) = m.back_edge_blocks {
            let name = |o: Option<u32>| o.map_or_else(|| String::from("none"), |b| self.n(b));
            note.push_str(&format!("; the back-edge block is {} under 1.6r1 and {} under 1.6r2", name(a), name(b)));
        }
        BlockNote { block: self.label(m.block), construct, r1: m.r1, r2: m.r2, note }
    }

    /// Whether only 1.6r1's merge-block clause makes a masked membership agree:
    /// the block is reachable and 1.6r1's main clause puts it in the
    /// construct while 1.6r2's does not.
    fn merge_clause_masks(&self, cmp: &Comparison, m: &Membership) -> bool {
        let f = self.f;
        let x = m.block;
        if m.r1 || !f.is_reachable(x) {
            return false;
        }
        let p = &cmp.constructs[m.construct as usize];
        let k1 = p.r1.and_then(|i| cmp.r1.constructs.get(i as usize));
        let k2 = p.r2.and_then(|i| cmp.r2.constructs.get(i as usize));
        let (Some(k1), Some(k2)) = (k1, k2) else { return false };
        let in_cont = |v: &RevisionView| {
            v.constructs
                .iter()
                .any(|c| c.kind == ConstructKind::Continue && c.header == p.header && c.blocks.binary_search(&x).is_ok())
        };
        let (r1, r2) = match p.kind {
            ConstructKind::Loop => (
                f.r1_dominates(p.entry, x) && !in_cont(&cmp.r1),
                f.structurally_dominates(p.entry, x) && !in_cont(&cmp.r2),
            ),
            ConstructKind::Continue => (
                f.r1_dominates(p.entry, x) && k1.back_edge_block.is_some_and(|bb| f.r1_post_dominates(bb, x)),
                f.structurally_dominates(p.entry, x)
                    && k2
                        .back_edge_block
                        .is_some_and(|bb| f.structurally_post_dominates(bb, x) || !f.structurally_dominates(bb, x)),
            ),
            _ => (f.r1_dominates(p.entry, x), f.structurally_dominates(p.entry, x)),
        };
        r1 && !r2
    }

    /// The continue construct of a loop header, if any.
    fn continue_of(&self, header: u32) -> Option<u32> {
        let cs = self.f.constructs();
        (0..cs.len() as u32).find(|&c| cs[c as usize].kind == ConstructKind::Continue && cs[c as usize].header == header)
    }

    fn explore(&self, c: u32) -> Explored {
        let f = self.f;
        let k = f.constructs()[c as usize];
        let n = f.blocks.len() as u32;
        let dominated: Vec<u32> = (0..n).filter(|&x| f.structurally_dominates(k.entry, x)).collect();
        let blocks = f.construct_blocks(c);
        let excluded: Vec<u32> = dominated.iter().copied().filter(|x| blocks.binary_search(x).is_err()).collect();
        let by_merge: Vec<u32> = match k.merge {
            Some(m) => dominated.iter().copied().filter(|&x| f.structurally_dominates(m, x)).collect(),
            None => Vec::new(),
        };
        let e = self.n(k.entry);
        let definition = match k.kind {
            ConstructKind::Continue => match k.back_edge_block {
                Some(bb) => format!(
                    "blocks structurally dominated by the continue target {e}: {}, minus those the back-edge block {} does not structurally post-dominate: {} = {}",
                    self.set(&dominated),
                    self.n(bb),
                    self.set(&excluded),
                    self.set(&blocks)
                ),
                None => format!(
                    "the loop has no back-edge block: blocks structurally dominated by {e}: {}, minus {} = {}",
                    self.set(&dominated),
                    self.set(&excluded),
                    self.set(&blocks)
                ),
            },
            _ => {
                let mut s = format!("blocks structurally dominated by {e}: {}", self.set(&dominated));
                if let Some(m) = k.merge {
                    s.push_str(&format!(", minus those structurally dominated by {}: {}", self.n(m), self.set(&by_merge)));
                }
                if k.kind == ConstructKind::Loop
                    && let Some(ct) = k.continue_target
                {
                    let cont = self.continue_of(k.header).map(|cc| f.construct_blocks(cc)).unwrap_or_default();
                    s.push_str(&format!(", minus the continue construct of {}: {}", self.n(ct), self.set(&cont)));
                }
                s.push_str(&format!(" = {}", self.set(&blocks)));
                s
            }
        };
        // The switch's case targets (a case may fall through to another).
        let cases: Vec<u32> = if k.kind == ConstructKind::Case {
            let mut v: Vec<u32> = f.successors(k.header).filter(|&t| Some(t) != k.merge && t != k.entry).collect();
            v.sort_unstable();
            v.dedup();
            v
        } else {
            Vec::new()
        };
        let kind_of = |to: u32| -> Option<&'static str> {
            if Some(to) == k.merge {
                return Some("merge");
            }
            if cases.contains(&to) {
                return Some("fallthrough");
            }
            if !f.is_structured_exit(c, to) {
                return None;
            }
            Some(match k.kind {
                ConstructKind::Loop => "continue",
                ConstructKind::Continue => "back edge",
                _ => {
                    let loop_merge = f.blocks.iter().any(|b| {
                        b.merge.is_some_and(|m| m.kind == crate::cfg::MergeKind::Loop && m.merge_block == Some(to))
                    });
                    let cont = f.blocks.iter().any(|b| b.merge.is_some_and(|m| m.continue_block == Some(to)));
                    if loop_merge {
                        "break"
                    } else if cont {
                        "continue"
                    } else {
                        "switch break"
                    }
                }
            })
        };
        // Candidates: every merge block and continue target, the header.
        let mut candidates: Vec<u32> = f
            .blocks
            .iter()
            .filter_map(|b| b.merge)
            .flat_map(|m| [m.merge_block, m.continue_block])
            .flatten()
            .chain([k.header])
            .chain(cases.iter().copied())
            .filter(|x| blocks.binary_search(x).is_err())
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut allowed: Vec<Exit> = candidates
            .into_iter()
            .filter_map(|to| kind_of(to).map(|kind| Exit { from: None, to: Some(self.label(to)), kind, allowed: true }))
            .collect();
        allowed.push(Exit { from: None, to: None, kind: "return", allowed: true });
        let mut exits = Vec::new();
        for &x in &blocks {
            for edge in f.out_edges(x) {
                if edge.kind != EdgeKind::Branch || blocks.binary_search(&edge.to).is_ok() {
                    continue;
                }
                let kind = kind_of(edge.to);
                let ex = Exit { from: Some(self.label(x)), to: Some(self.label(edge.to)), kind: kind.unwrap_or("not allowed"), allowed: kind.is_some() };
                if !exits.contains(&ex) {
                    exits.push(ex);
                }
            }
            if f.blocks[x as usize].terminator_opcode.is_some_and(is_exit_opcode) {
                exits.push(Exit { from: Some(self.label(x)), to: None, kind: "return", allowed: true });
            }
        }
        Explored {
            kind: k.kind,
            header: self.label(k.header),
            entry: self.label(k.entry),
            merge: k.merge.map(|m| self.label(m)),
            title: self.title(k.kind, k.entry, k.header),
            definition,
            dominated: self.labels(&dominated),
            excluded: self.labels(&excluded),
            blocks: self.labels(&blocks),
            allowed,
            exits,
        }
    }

    /// The constructs holding block `x`, innermost first, each with its rule.
    fn containing(&self, x: u32) -> Containing {
        let f = self.f;
        let cs = f.constructs();
        let mut held: Vec<u32> = (0..cs.len() as u32).filter(|&c| f.construct_contains(c, x)).collect();
        held.sort_by_key(|&c| core::cmp::Reverse(cs[c as usize].depth));
        let xn = self.n(x);
        let constructs = held
            .into_iter()
            .map(|c| {
                let k = &cs[c as usize];
                let merge = k.merge.map_or_else(|| String::from("(no merge block)"), |m| self.n(m));
                let e = self.n(k.entry);
                let rule = match k.kind {
                    ConstructKind::Selection | ConstructKind::Switch => {
                        format!("{e} structurally dominates {xn}, and its merge block {merge} does not")
                    }
                    ConstructKind::Case => {
                        format!("the case target {e} structurally dominates {xn}, and the switch's merge block {merge} does not")
                    }
                    ConstructKind::Loop => format!(
                        "{e} structurally dominates {xn}; its merge block {merge} does not, and {xn} is not in its continue construct"
                    ),
                    ConstructKind::Continue => match k.back_edge_block {
                        Some(bb) if f.structurally_post_dominates(bb, x) => format!(
                            "the continue target {e} structurally dominates {xn}, and the back-edge block {} structurally post-dominates it",
                            self.n(bb)
                        ),
                        Some(bb) => format!(
                            "the continue target {e} structurally dominates {xn}, and the back-edge block {} does not structurally dominate it",
                            self.n(bb)
                        ),
                        None => format!("the continue target {e} structurally dominates {xn} (the loop has no back-edge block)"),
                    },
                };
                (c, rule)
            })
            .collect();
        Containing { block: self.label(x), constructs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::valid::Options;

    /// Fig. 2 as the gallery has it (block %bN is the figure's block N).
    const FIG2: &str = include_str!("../../../www/src/gallery/examples/paper-fig2.spvasm");

    fn ids(a: &Analysis, v: &[u32]) -> Vec<String> {
        v.iter().map(|&id| a.display_name(id)).collect()
    }

    /// Fig. 2 (section 2.2): the loop construct of b2 is what b2 structurally
    /// dominates, {2..8}, minus what its merge b8 dominates, {8}, minus the
    /// continue construct {7}; its allowed exits are the merge b8, the
    /// continue target b7 and a return; it has only the exit to b8.
    #[test]
    fn fig2_loop_explored() {
        let a = Analysis::of_text(FIG2, &Options::default());
        assert!(a.is_valid());
        let t = a.teach(None).unwrap();
        let lp = t.constructs.iter().find(|c| c.kind == ConstructKind::Loop).unwrap();
        assert_eq!(ids(&a, &lp.dominated), ["b2", "b3", "b4", "b5", "b6", "b7", "b8"]);
        assert_eq!(ids(&a, &lp.excluded), ["b7", "b8"]);
        assert_eq!(ids(&a, &lp.blocks), ["b2", "b3", "b4", "b5", "b6"]);
        let allowed: Vec<(Option<String>, &str)> =
            lp.allowed.iter().map(|e| (e.to.map(|b| a.display_name(b)), e.kind)).collect();
        assert_eq!(
            allowed,
            [(Some("b7".into()), "continue"), (Some("b8".into()), "merge"), (None, "return")]
        );
        assert!(lp.exits.iter().all(|e| e.allowed));
        assert!(lp.definition.contains("minus those structurally dominated by %b8: {%b8}"), "{}", lp.definition);
        // b4 is in the selection of b3, then the loop of b2 (innermost first).
        let b4 = t.containing.iter().find(|c| a.display_name(c.block) == "b4").unwrap();
        let kinds: Vec<ConstructKind> = b4.constructs.iter().map(|&(c, _)| t.constructs[c as usize].kind).collect();
        assert_eq!(kinds, [ConstructKind::Selection, ConstructKind::Loop]);
        // Both revisions agree on Fig. 2 (section 2.2 gives the same sets).
        assert!(t.differing.is_empty() && t.r1.valid && t.r2.valid);
    }

    /// Every one-target edit of Fig. 2 (each branch or merge operand pointed
    /// at each block): the view never panics, and every construct's blocks
    /// lie inside the region its entry dominates.
    #[test]
    fn fig2_edits_never_panic() {
        let labels = ["%b1", "%b2", "%b3", "%b4", "%b5", "%b6", "%b7", "%b8"];
        let lines: Vec<&str> = FIG2.lines().collect();
        let mut n = 0;
        for (i, line) in lines.iter().enumerate() {
            let op = line.trim_start();
            if !(op.starts_with("OpBranch") || op.starts_with("OpLoopMerge") || op.starts_with("OpSelectionMerge")) {
                continue;
            }
            for from in labels.iter().filter(|l| line.contains(*l)) {
                for to in labels {
                    let mut edited: Vec<String> = lines.iter().map(|l| String::from(*l)).collect();
                    edited[i] = line.replacen(from, to, 1);
                    let a = Analysis::of_text(&edited.join("\n"), &Options::default());
                    let Some(t) = a.teach(None) else { continue };
                    for c in &t.constructs {
                        assert!(c.blocks.iter().all(|b| c.dominated.contains(b)), "{}", edited[i]);
                    }
                    n += 1;
                }
            }
        }
        assert!(n > 50, "{n}");
    }

    /// A selection arm that branches to a block outside it that is no
    /// structured exit is flagged.
    #[test]
    fn bad_exit_flagged() {
        let at = FIG2.find("%b4 = OpLabel").unwrap();
        let text = format!("{}{}", &FIG2[..at], FIG2[at..].replacen("OpBranch %b6", "OpBranch %b2", 1));
        let a = Analysis::of_text(&text, &Options::default());
        let t = a.teach(None).unwrap();
        let sel = t.constructs.iter().find(|c| c.kind == ConstructKind::Selection).unwrap();
        let bad: Vec<_> = sel.exits.iter().filter(|e| !e.allowed).collect();
        assert_eq!(bad.len(), 1, "{:?}", sel.exits);
        assert_eq!(bad[0].to.map(|b| a.display_name(b)).as_deref(), Some("b2"));
    }
}
