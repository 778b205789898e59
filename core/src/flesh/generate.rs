//! A seeded generator of random structured control flow, in the spirit of
//! the Alloy model of the paper's section 5: functions built from nested
//! constructs, where every construct is entered through its header and left
//! through its merge block or a structured exit:
//!
//! * selections (`OpSelectionMerge` + `OpBranchConditional`), an arm possibly
//!   being the merge block itself;
//! * loops (`OpLoopMerge`), with a body, a continue construct (possibly
//!   holding a selection) ending in the back-edge block, or a single-block
//!   loop that is its own continue target;
//! * switches, with shared case targets, literals and the default going to
//!   the merge, and fallthrough to the next case;
//! * early exits: `OpReturn`, break to the innermost loop's merge, continue to
//!   its continue target, break to the innermost switch's merge, from any
//!   depth of selection nesting;
//! * merge blocks that are themselves headers of the next construct, merge
//!   blocks and continue targets that are unreachable (`OpUnreachable`, resp.
//!   a branch back to the header), and extra blocks nothing branches to.
//!
//! [`Knobs`] are the paper's constraints on the shape (no long branchless
//! chains, every branch touching a header, merge block or continue target,
//! varied construct sizes, some nesting); [`generate`] draws until a CFG meets
//! them. [`mutate`] makes near-miss mutants of a valid one.

use super::rng::Rng;
use super::skeleton::{Block, Label, Merge, Skeleton, Term};
use crate::cfg::ConstructKind;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

/// Constraints on a generated CFG's shape, after the paper's section 6.2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Knobs {
    /// No blocks A, B, C where B is A's only structural successor and C is
    /// B's only structural successor (branch, merge and continue edges).
    pub no_chains: bool,
    /// Every branch edge has a header, a merge block or a continue target at
    /// one of its ends.
    pub touch_structure: bool,
    /// No two selection constructs with the same number of blocks, and the
    /// same for loops and for switches.
    pub varied_sizes: bool,
    /// Constructs nest at least this deep (0: no constraint).
    pub min_depth: usize,
}

impl Knobs {
    /// All of the paper's constraints, with nesting at least 2 deep.
    pub fn paper() -> Knobs {
        Knobs { no_chains: true, touch_structure: true, varied_sizes: true, min_depth: 2 }
    }

    fn any(&self) -> bool {
        *self != Knobs::default()
    }
}

/// How many functions [`generate`] draws before it gives up on the knobs.
pub const ATTEMPTS: u32 = 4096;

/// A random valid structured function for `seed`: the first of up to
/// [`ATTEMPTS`] draws that meets `cfg.knobs`, and whether one did (else the
/// last draw).
pub fn generate(seed: u64, cfg: Config) -> (Skeleton, bool) {
    let mut rng = Rng::new(seed);
    let mut last = generate_with(&mut rng, cfg);
    if !cfg.knobs.any() {
        return (last, true);
    }
    for _ in 1..ATTEMPTS {
        if meets(&last, &cfg.knobs) {
            return (last, true);
        }
        last = generate_with(&mut rng, cfg);
    }
    let ok = meets(&last, &cfg.knobs);
    (last, ok)
}

/// Whether `s` meets `k`.
pub fn meets(s: &Skeleton, k: &Knobs) -> bool {
    let pos: BTreeMap<Label, usize> = s.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut merges = BTreeSet::new();
    let mut continues = BTreeSet::new();
    for b in &s.blocks {
        match b.merge {
            Some(Merge::Selection(m)) => {
                merges.insert(m);
            }
            Some(Merge::Loop(m, c)) => {
                merges.insert(m);
                continues.insert(c);
            }
            None => {}
        }
    }
    let special = |l: Label| {
        merges.contains(&l) || continues.contains(&l) || pos.get(&l).is_some_and(|&i| s.blocks[i].merge.is_some())
    };
    if k.touch_structure {
        for b in &s.blocks {
            if b.term.targets().into_iter().any(|t| !special(b.label) && !special(t)) {
                return false;
            }
        }
    }
    if k.no_chains {
        // The only structural successor of each block that has exactly one.
        let only = |b: &Block| -> Option<Label> {
            let mut succ: Vec<Label> = b.term.targets();
            if let Some(m) = b.merge {
                succ.push(m.block());
            }
            if let Some(Merge::Loop(_, c)) = b.merge {
                succ.push(c);
            }
            succ.sort_unstable();
            succ.dedup();
            (succ.len() == 1).then(|| succ[0])
        };
        for a in &s.blocks {
            if let Some(b) = only(a)
                && pos.get(&b).is_some_and(|&i| only(&s.blocks[i]).is_some())
            {
                return false;
            }
        }
    }
    if k.varied_sizes || k.min_depth > 0 {
        // The constructs only: no validation (the skeleton is valid by construction).
        let words = crate::text::asm::assemble(&s.module_text(), &crate::text::asm::AsmOptions::default());
        let Some(module) = words.ok().and_then(|w| crate::binary::read_words(&w).ok()) else { return false };
        let cfg = crate::cfg::analyze(&module);
        let Some(f) = cfg.functions.first() else { return false };
        let cs = f.constructs();
        if (cs.iter().map(|c| c.depth as usize).max().unwrap_or(0)) < k.min_depth {
            return false;
        }
        if k.varied_sizes {
            let mut seen = BTreeSet::new();
            for (i, c) in cs.iter().enumerate() {
                if matches!(c.kind, ConstructKind::Selection | ConstructKind::Loop | ConstructKind::Switch)
                    && !seen.insert((c.kind, f.construct_blocks(i as u32).len()))
                {
                    return false;
                }
            }
        }
    }
    true
}

/// Generator settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// About how many blocks to make (the generator stops opening constructs past it).
    pub blocks: usize,
    /// The deepest construct nesting.
    pub max_depth: usize,
    /// Extra unreachable blocks to add.
    pub dead_blocks: usize,
    /// Keep the function's top level going until the block budget is spent (for
    /// big functions).
    pub fill: bool,
    /// Shape constraints on the result (see [`Knobs`]).
    pub knobs: Knobs,
}

impl Default for Config {
    fn default() -> Self {
        Config { blocks: 24, max_depth: 6, dead_blocks: 1, fill: false, knobs: Knobs::default() }
    }
}

/// Where a sequence goes when it ends normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    To(Label),
    Return,
}

/// What structured exits are open to the code being generated.
#[derive(Clone, Copy, Debug, Default)]
struct Open {
    /// The innermost loop's merge block and continue target.
    looped: Option<(Label, Label)>,
    /// The innermost switch's merge block, when no loop is nested inside it.
    switch: Option<Label>,
    /// Inside a continue construct: no early exits.
    in_continue: bool,
    depth: usize,
}

struct Gen<'r> {
    rng: &'r mut Rng,
    cfg: Config,
    next: Label,
    /// Block slots in layout order (a slot is opened before its blocks' contents are known).
    blocks: Vec<Option<Block>>,
    /// Slot of each opened label.
    slot: BTreeMap<Label, usize>,
    /// Labels branched to from reachable blocks.
    hit: BTreeSet<Label>,
    entry: Label,
}

impl Gen<'_> {
    fn fresh(&mut self) -> Label {
        self.next += 1;
        self.next
    }

    /// Give `label` its place in the layout (now).
    fn open(&mut self, label: Label) {
        self.slot.insert(label, self.blocks.len());
        self.blocks.push(None);
    }

    /// Set a (reachable) block's merge and terminator.
    fn close(&mut self, label: Label, merge: Option<Merge>, term: Term) {
        let mut t = term.clone();
        for target in t.targets_mut() {
            self.hit.insert(*target);
        }
        self.put(Block { label, merge, term });
    }

    /// Set an unreachable block.
    fn put(&mut self, b: Block) {
        if let Some(&i) = self.slot.get(&b.label) {
            self.blocks[i] = Some(b);
        }
    }

    fn budget_left(&self) -> bool {
        self.blocks.len() < self.cfg.blocks
    }

    /// Generate code starting at the open block `cur`, ending with a branch to
    /// `exit` unless it ends early. Returns whether `exit` was reached.
    fn seq(&mut self, mut cur: Label, exit: Exit, cx: Open) -> bool {
        loop {
            let room = self.budget_left() && cx.depth < self.cfg.max_depth;
            let pick = self.rng.below(100);
            let keep_going = self.cfg.fill && cx.depth == 0 && self.budget_left();
            if !room || (pick < 15 && !keep_going) {
                // End normally.
                match exit {
                    Exit::To(t) => self.close(cur, None, Term::Branch(t)),
                    Exit::Return => self.close(cur, None, Term::Return),
                }
                return true;
            }
            if pick < 22 && !cx.in_continue && cx.depth > 0 {
                // An early exit.
                let mut options = alloc::vec![Term::Return];
                if let Some((m, c)) = cx.looped {
                    options.push(Term::Branch(m));
                    options.push(Term::Branch(c));
                }
                if let Some(m) = cx.switch {
                    options.push(Term::Branch(m));
                }
                let i = self.rng.below(options.len());
                let t = options.swap_remove(i);
                self.close(cur, None, t);
                return false;
            }
            let inner = Open { depth: cx.depth + 1, ..cx };
            let next = if pick < 30 && !self.cfg.knobs.no_chains {
                // A straight-line block.
                let n = self.fresh();
                self.close(cur, None, Term::Branch(n));
                self.open(n);
                Some(n)
            } else if pick < 58 {
                self.selection(cur, inner)
            } else if pick < 80 && !cx.in_continue {
                if cur == self.entry {
                    let h = self.fresh();
                    self.close(cur, None, Term::Branch(h));
                    self.open(h);
                    cur = h;
                }
                self.looped(cur, inner)
            } else if !cx.in_continue {
                self.switch(cur, inner)
            } else {
                self.selection(cur, inner)
            };
            match next {
                Some(m) => cur = m,
                None => return false,
            }
        }
    }

    /// Finish merge block `m` (already open): when nothing reaches it, it is
    /// `OpUnreachable` and `None` is returned; else it is the next current block.
    fn after(&mut self, m: Label) -> Option<Label> {
        if self.hit.contains(&m) {
            Some(m)
        } else {
            self.put(Block { label: m, merge: None, term: Term::Unreachable });
            None
        }
    }

    fn selection(&mut self, h: Label, cx: Open) -> Option<Label> {
        let m = self.fresh();
        // An arm may be the merge block itself (not both: SPIR-V 1.6 wants two labels).
        let arm = |g: &mut Self| if g.rng.chance(20) { None } else { Some(g.fresh()) };
        let (t, mut f) = (arm(self), arm(self));
        if t.is_none() && f.is_none() {
            f = Some(self.fresh());
        }
        let cond = self.rng.chance(50);
        self.close(h, Some(Merge::Selection(m)), Term::Cond(cond, t.unwrap_or(m), f.unwrap_or(m)));
        for a in [t, f].into_iter().flatten() {
            self.open(a);
            self.seq(a, Exit::To(m), cx);
        }
        self.open(m);
        self.after(m)
    }

    fn looped(&mut self, h: Label, cx: Open) -> Option<Label> {
        let m = self.fresh();
        if self.rng.chance(10) {
            // A single-block loop: the header is its own continue target and back edge.
            let cond = self.rng.chance(50);
            self.close(h, Some(Merge::Loop(m, h)), Term::Cond(cond, h, m));
            self.open(m);
            return self.after(m);
        }
        let c = self.fresh();
        let b = self.fresh();
        let term = if self.rng.chance(50) { Term::Cond(self.rng.chance(50), b, m) } else { Term::Branch(b) };
        self.close(h, Some(Merge::Loop(m, c)), term);
        self.open(b);
        let body = Open { looped: Some((m, c)), switch: None, ..cx };
        self.seq(b, Exit::To(c), body);
        self.open(c);
        if !self.hit.contains(&c) {
            // Nothing continues: the continue target is unreachable.
            self.put(Block { label: c, merge: None, term: Term::Branch(h) });
        } else {
            // The continue construct: maybe some code, then the back-edge block.
            let back = self.fresh();
            let cont = Open { in_continue: true, looped: None, switch: None, ..cx };
            if self.rng.chance(40) && self.budget_left() {
                self.seq(c, Exit::To(back), cont);
                self.open(back);
            } else if self.cfg.knobs.no_chains {
                // The continue target is the back-edge block: a continue
                // target that only branches to the back-edge block, which
                // only branches back, is a chain.
                let term = Term::Cond(self.rng.chance(50), h, m);
                self.close(c, None, term);
                self.open(m);
                return self.after(m);
            } else {
                self.close(c, None, Term::Branch(back));
                self.open(back);
            }
            let term = if self.cfg.knobs.no_chains || self.rng.chance(60) {
                Term::Cond(self.rng.chance(50), h, m)
            } else {
                Term::Branch(h)
            };
            self.close(back, None, term);
        }
        self.open(m);
        self.after(m)
    }

    fn switch(&mut self, h: Label, cx: Open) -> Option<Label> {
        let m = self.fresh();
        let ncases = 1 + self.rng.below(4);
        let cases: Vec<Label> = (0..ncases).map(|_| self.fresh()).collect();
        // Literals, in the layout order of the cases (a case falls through only to
        // the case right after it in the target list): each case gets one or more
        // (shared targets); some go to the merge, at the end.
        let mut lits = Vec::new();
        let mut lit = self.rng.below(3) as u32;
        for &c in &cases {
            for _ in 0..1 + usize::from(self.rng.chance(25)) {
                lits.push((lit, c));
                lit += 1 + self.rng.below(2) as u32;
            }
        }
        if self.rng.chance(30) {
            lits.push((lit, m));
        }
        // The default: the merge or one of the cases (which keeps its literals).
        let default = if self.rng.chance(40) { m } else { cases[self.rng.below(ncases)] };
        let sel = self.rng.below(4) as u32;
        self.close(h, Some(Merge::Selection(m)), Term::Switch(sel, default, lits));
        let inner = Open { switch: Some(m), ..cx };
        for (i, &c) in cases.iter().enumerate() {
            self.open(c);
            // Fall through to the next case, or break to the merge.
            let exit = match cases.get(i + 1) {
                Some(&n) if self.rng.chance(30) => Exit::To(n),
                _ => Exit::To(m),
            };
            self.seq(c, exit, inner);
        }
        self.open(m);
        self.after(m)
    }
}

/// One random valid structured function, drawn from `rng` (the knobs are
/// not checked: see [`generate`]).
pub fn generate_with(rng: &mut Rng, cfg: Config) -> Skeleton {
    let mut g = Gen {
        rng,
        cfg,
        next: 0,
        blocks: Vec::new(),
        slot: Default::default(),
        hit: BTreeSet::new(),
        entry: 1,
    };
    let entry = g.fresh();
    g.entry = entry;
    g.open(entry);
    g.seq(entry, Exit::Return, Open::default());
    let mut blocks: Vec<Block> = g.blocks.into_iter().flatten().collect();
    for _ in 0..cfg.dead_blocks {
        g.next += 1;
        let term = if g.rng.chance(50) { Term::Unreachable } else { Term::Return };
        let b = Block { label: g.next, merge: None, term };
        // Anywhere after the entry; mostly at the end.
        let at = if g.rng.chance(70) { blocks.len() } else { 1 + g.rng.below(blocks.len()) };
        blocks.insert(at.min(blocks.len()), b);
    }
    Skeleton { blocks, names: BTreeMap::new() }
}

/// A near-miss mutant of `s` (see the module doc), and what was done.
pub fn mutate(s: &Skeleton, rng: &mut Rng) -> (Skeleton, &'static str) {
    let mut f = s.clone();
    let labels: Vec<Label> = f.blocks.iter().map(|b| b.label).collect();
    let n = f.blocks.len();
    for _ in 0..32 {
        let kind = rng.below(7);
        let i = rng.below(n);
        let pick = labels[rng.below(labels.len())];
        let b = &mut f.blocks[i];
        match kind {
            0 => {
                let mut ts = b.term.targets_mut();
                if !ts.is_empty() {
                    let k = rng.below(ts.len());
                    if *ts[k] != pick {
                        *ts[k] = pick;
                        return (f, "retarget-branch");
                    }
                }
            }
            1 => match &mut b.merge {
                Some(Merge::Selection(m)) | Some(Merge::Loop(m, _)) if *m != pick => {
                    *m = pick;
                    return (f, "retarget-merge");
                }
                _ => {}
            },
            2 => {
                if let Some(Merge::Loop(_, c)) = &mut b.merge
                    && *c != pick
                {
                    *c = pick;
                    return (f, "retarget-continue");
                }
            }
            3 => {
                if b.merge.take().is_some() {
                    return (f, "drop-merge");
                }
            }
            4 => {
                if let Term::Cond(_, t, e) = b.term {
                    b.term = Term::Branch(if rng.chance(50) { t } else { e });
                    return (f, "cond-to-branch");
                }
            }
            5 => {
                if i >= 1 && i + 1 < n {
                    f.blocks.swap(i, i + 1);
                    return (f, "swap-blocks");
                }
            }
            _ => {
                let headers: Vec<usize> =
                    (0..n).filter(|&k| f.blocks[k].merge.is_some() && k != i).collect();
                if f.blocks[i].merge.is_some() && !headers.is_empty() {
                    let other = headers[rng.below(headers.len())];
                    let om = match &f.blocks[other].merge {
                        Some(Merge::Selection(m)) | Some(Merge::Loop(m, _)) => *m,
                        None => continue,
                    };
                    match &mut f.blocks[i].merge {
                        Some(Merge::Selection(m)) | Some(Merge::Loop(m, _)) if *m != om => {
                            *m = om;
                            return (f, "duplicate-merge");
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    // Nothing applied (a tiny function): turn the entry's terminator into a branch to itself.
    if let Some(b) = f.blocks.first_mut() {
        b.term = Term::Branch(b.label);
    }
    (f, "branch-to-entry")
}
