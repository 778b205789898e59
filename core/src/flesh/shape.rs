//! The shapes that tell one reduced finding from another: structural traits
//! of a skeleton that backends are known to get wrong (a merge block that
//! heads a loop, a switch case sharing the default's target, a fallthrough,
//! a case that leaves the loop around its switch, a block run on both arms of a selection before its merge, unreachable
//! merge blocks and blocks), and which blocks a wrong output ran that the
//! path could not. Sorting a campaign's reduced findings by backend, kind
//! and these traits puts each upstream bug in one class.

use super::skeleton::{Label, Merge, Skeleton, Term};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Which kind of header a trait is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Header {
    /// `OpSelectionMerge` before `OpBranchConditional`.
    Selection,
    /// `OpSelectionMerge` before `OpSwitch`.
    Switch,
    /// `OpLoopMerge`.
    Loop,
}

impl Header {
    pub fn name(self) -> &'static str {
        match self {
            Header::Selection => "selection",
            Header::Switch => "switch",
            Header::Loop => "loop",
        }
    }
}

/// One structural trait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Trait {
    /// A header of this kind whose merge block is a loop header.
    MergeHeadsLoop(Header),
    /// A header of this kind whose merge block nothing branches to.
    MergeUnreachable(Header),
    /// A switch case (not the default) whose target is the default's, and
    /// not the merge block.
    CaseSharesDefault,
    /// A switch whose default or a case targets its merge block.
    CaseIsMerge,
    /// A switch target that branches straight to another of the same
    /// switch's targets (other than the merge block): a fallthrough.
    Fallthrough,
    /// A switch target that branches straight to a loop's merge block (a
    /// case that leaves the loop around the switch, where WGSL's `break`
    /// would leave only the switch).
    CaseBreaksLoop,
    /// A selection whose one target branches straight to the other, neither
    /// the merge block: a block both arms run before the merge.
    Premerge,
    /// A loop header that is its own continue target.
    SelfContinue,
    /// A block other than the entry that nothing branches to and that is no
    /// header's merge block or continue target.
    UnreachableBlock,
    /// The wrong output names a block that nothing branches to.
    RunsUnreachable,
}

impl fmt::Display for Trait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trait::MergeHeadsLoop(h) => write!(f, "{}-merge-heads-loop", h.name()),
            Trait::MergeUnreachable(h) => write!(f, "{}-merge-unreachable", h.name()),
            Trait::CaseSharesDefault => f.write_str("case-shares-default"),
            Trait::CaseIsMerge => f.write_str("case-is-merge"),
            Trait::Fallthrough => f.write_str("fallthrough"),
            Trait::CaseBreaksLoop => f.write_str("case-breaks-loop"),
            Trait::Premerge => f.write_str("premerge"),
            Trait::SelfContinue => f.write_str("self-continue"),
            Trait::UnreachableBlock => f.write_str("unreachable-block"),
            Trait::RunsUnreachable => f.write_str("runs-unreachable"),
        }
    }
}

/// The traits of `sk`; `actual`: a wrong output's words (the blocks it
/// names are those of its words that are labels of `sk`), empty when
/// there is none.
pub fn traits(sk: &Skeleton, actual: &[u32]) -> BTreeSet<Trait> {
    let blocks: BTreeMap<Label, &Term> = sk.blocks.iter().map(|b| (b.label, &b.term)).collect();
    let mut preds: BTreeMap<Label, usize> = BTreeMap::new();
    for b in &sk.blocks {
        for t in b.term.targets() {
            *preds.entry(t).or_default() += 1;
        }
    }
    let unreachable = |l: Label| preds.get(&l).is_none_or(|&n| n == 0);
    let targets_of = |l: Label| blocks.get(&l).map_or_else(Vec::new, |t| t.targets());
    let entry = sk.blocks.first().map(|b| b.label);
    let loops = || sk.blocks.iter().filter(|b| matches!(b.merge, Some(Merge::Loop(..))));
    let loop_headers: BTreeSet<Label> = loops().map(|b| b.label).collect();
    let loop_merges: BTreeSet<Label> = loops().filter_map(|b| b.merge.map(Merge::block)).collect();
    let mut structural: BTreeSet<Label> = BTreeSet::new();
    let mut out = BTreeSet::new();
    for b in &sk.blocks {
        let Some(merge) = b.merge else { continue };
        let header = match (merge, &b.term) {
            (Merge::Loop(..), _) => Header::Loop,
            (Merge::Selection(_), Term::Switch(..)) => Header::Switch,
            (Merge::Selection(_), _) => Header::Selection,
        };
        let m = merge.block();
        structural.insert(m);
        if let Merge::Loop(_, c) = merge {
            structural.insert(c);
            if c == b.label {
                out.insert(Trait::SelfContinue);
            }
        }
        if loop_headers.contains(&m) {
            out.insert(Trait::MergeHeadsLoop(header));
        }
        if unreachable(m) {
            out.insert(Trait::MergeUnreachable(header));
        }
        match &b.term {
            Term::Switch(_, default, cases) => {
                let all = b.term.targets();
                if cases.iter().any(|&(_, t)| t == *default && t != m) {
                    out.insert(Trait::CaseSharesDefault);
                }
                if all.contains(&m) {
                    out.insert(Trait::CaseIsMerge);
                }
                let falls = all.iter().filter(|&&t| t != m).any(|&t| targets_of(t).iter().any(|&u| u != t && u != m && all.contains(&u)));
                if falls {
                    out.insert(Trait::Fallthrough);
                }
                if all.iter().filter(|&&t| t != m).any(|&t| targets_of(t).iter().any(|u| loop_merges.contains(u))) {
                    out.insert(Trait::CaseBreaksLoop);
                }
            }
            Term::Cond(_, a, c)
                if header == Header::Selection
                    && a != c
                    && *a != m
                    && *c != m
                    && (targets_of(*a).contains(c) || targets_of(*c).contains(a)) =>
            {
                out.insert(Trait::Premerge);
            }
            _ => {}
        }
    }
    if sk.blocks.iter().any(|b| Some(b.label) != entry && unreachable(b.label) && !structural.contains(&b.label)) {
        out.insert(Trait::UnreachableBlock);
    }
    if actual.iter().any(|w| Some(*w) != entry && blocks.contains_key(w) && unreachable(*w)) {
        out.insert(Trait::RunsUnreachable);
    }
    out
}

/// `traits` as one text, sorted, comma-separated ("none" when empty): the
/// shape part of a class's key.
pub fn describe(traits: &BTreeSet<Trait>) -> String {
    if traits.is_empty() {
        return "none".into();
    }
    let names: Vec<String> = traits.iter().map(|t| alloc::format!("{t}")).collect();
    names.join(", ")
}
