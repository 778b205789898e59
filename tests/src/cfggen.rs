//! A seeded generator of random structured control flow, as SPIR-V assembly.
//!
//! In the spirit of the Alloy model of the structured control flow paper
//! (mc-imperial/spirv-control-flow): functions built from nested constructs, where
//! every construct is entered through its header and left through its merge block
//! or a structured exit:
//!
//! * selections (`OpSelectionMerge` + `OpBranchConditional`), an arm possibly being
//!   the merge block itself;
//! * loops (`OpLoopMerge`), with a body, a continue construct (possibly holding a
//!   selection) ending in the back-edge block (`OpBranch` to the header, or a
//!   conditional branch to the header or the merge), or a single-block loop that is
//!   its own continue target;
//! * switches, with shared case targets (several literals to one block), literals
//!   and the default going to the merge, and fallthrough to the next case;
//! * early exits: `OpReturn`, break to the innermost loop's merge, continue to its
//!   continue target, break to the innermost switch's merge, from any depth of
//!   selection nesting;
//! * merge blocks that are themselves headers of the next construct, merge blocks
//!   and continue targets that are unreachable (written as spirv-val wants them:
//!   `OpUnreachable`, resp. a branch back to the header), and extra unreachable
//!   blocks.
//!
//! [`Func::mutate`] makes near-miss mutants: a branch, merge or continue target
//! retargeted, a merge instruction dropped, a conditional branch turned into
//! `OpBranch`, two adjacent blocks swapped, two headers given the same merge block.
//! Mutants may or may not be valid: the reference decides.

use std::collections::HashSet;
use std::fmt::Write;

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// True with probability `pct`%.
    pub fn chance(&mut self, pct: u32) -> bool {
        (self.next_u64() % 100) < pct as u64
    }
}

/// A block's label: `%b<n>`.
pub type Label = u32;

/// A merge instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Merge {
    Selection(Label),
    /// Merge block, continue target.
    Loop(Label, Label),
}

/// A block's terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Branch(Label),
    /// Condition (true / false constant), true target, false target.
    Cond(bool, Label, Label),
    /// Selector value, default, (literal, target) cases.
    Switch(u32, Label, Vec<(u32, Label)>),
    Return,
    Unreachable,
}

impl Term {
    fn targets_mut(&mut self) -> Vec<&mut Label> {
        match self {
            Term::Branch(t) => vec![t],
            Term::Cond(_, a, b) => vec![a, b],
            Term::Switch(_, d, cases) => {
                let mut v = vec![d];
                v.extend(cases.iter_mut().map(|(_, t)| t));
                v
            }
            Term::Return | Term::Unreachable => vec![],
        }
    }
}

/// One block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub label: Label,
    pub merge: Option<Merge>,
    pub term: Term,
}

/// A generated function: its blocks in layout order (the first is the entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub blocks: Vec<Block>,
}

/// Generator settings.
#[derive(Clone, Copy, Debug)]
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
}

impl Default for Config {
    fn default() -> Self {
        Config { blocks: 24, max_depth: 6, dead_blocks: 1, fill: false }
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
struct Cx {
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
    slot: std::collections::HashMap<Label, usize>,
    /// Labels branched to from reachable blocks.
    hit: HashSet<Label>,
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
    fn seq(&mut self, mut cur: Label, exit: Exit, cx: Cx) -> bool {
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
                let mut options = vec![Term::Return];
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
            let inner = Cx { depth: cx.depth + 1, ..cx };
            let next = if pick < 30 {
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

    fn selection(&mut self, h: Label, cx: Cx) -> Option<Label> {
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

    fn looped(&mut self, h: Label, cx: Cx) -> Option<Label> {
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
        let body = Cx { looped: Some((m, c)), switch: None, ..cx };
        self.seq(b, Exit::To(c), body);
        self.open(c);
        if !self.hit.contains(&c) {
            // Nothing continues: the continue target is unreachable.
            self.put(Block { label: c, merge: None, term: Term::Branch(h) });
        } else {
            // The continue construct: maybe some code, then the back-edge block.
            let back = self.fresh();
            let cont = Cx { in_continue: true, looped: None, switch: None, ..cx };
            if self.rng.chance(40) && self.budget_left() {
                self.seq(c, Exit::To(back), cont);
                self.open(back);
            } else {
                self.close(c, None, Term::Branch(back));
                self.open(back);
            }
            let term =
                if self.rng.chance(60) { Term::Cond(self.rng.chance(50), h, m) } else { Term::Branch(h) };
            self.close(back, None, term);
        }
        self.open(m);
        self.after(m)
    }

    fn switch(&mut self, h: Label, cx: Cx) -> Option<Label> {
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
        let inner = Cx { switch: Some(m), ..cx };
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

impl Func {
    /// A random valid structured function.
    pub fn generate(rng: &mut Rng, cfg: Config) -> Func {
        let mut g = Gen {
            rng,
            cfg,
            next: 0,
            blocks: Vec::new(),
            slot: Default::default(),
            hit: HashSet::new(),
            entry: 1,
        };
        let entry = g.fresh();
        g.entry = entry;
        g.open(entry);
        g.seq(entry, Exit::Return, Cx::default());
        let mut blocks: Vec<Block> = g.blocks.into_iter().flatten().collect();
        for _ in 0..cfg.dead_blocks {
            g.next += 1;
            let term = if g.rng.chance(50) { Term::Unreachable } else { Term::Return };
            let b = Block { label: g.next, merge: None, term };
            // Anywhere after the entry; mostly at the end.
            let at = if g.rng.chance(70) { blocks.len() } else { 1 + g.rng.below(blocks.len()) };
            blocks.insert(at.min(blocks.len()), b);
        }
        Func { blocks }
    }

    /// A near-miss mutant (see the module doc), and what was done.
    pub fn mutate(&self, rng: &mut Rng) -> (Func, &'static str) {
        let mut f = self.clone();
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

    /// The whole module, as assembly text.
    pub fn module_text(&self) -> String {
        let mut s = String::from(
            "; a random structured function (spvlab-tests cfggen)\n\
             OpCapability Shader\n\
             OpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\n\
             OpExecutionMode %main LocalSize 1 1 1\n\
             %void = OpTypeVoid\n\
             %bool = OpTypeBool\n\
             %int = OpTypeInt 32 1\n\
             %fn = OpTypeFunction %void\n\
             %true = OpConstantTrue %bool\n\
             %false = OpConstantFalse %bool\n\
             %sel0 = OpConstant %int 0\n\
             %sel1 = OpConstant %int 1\n\
             %sel2 = OpConstant %int 2\n\
             %sel3 = OpConstant %int 3\n\
             %main = OpFunction %void None %fn\n",
        );
        self.write_blocks(&mut s);
        s.push_str("OpFunctionEnd\n");
        s
    }

    /// The blocks, as assembly text.
    pub fn write_blocks(&self, s: &mut String) {
        for b in &self.blocks {
            let _ = writeln!(s, "%b{} = OpLabel", b.label);
            match &b.merge {
                Some(Merge::Selection(m)) => {
                    let _ = writeln!(s, "OpSelectionMerge %b{m} None");
                }
                Some(Merge::Loop(m, c)) => {
                    let _ = writeln!(s, "OpLoopMerge %b{m} %b{c} None");
                }
                None => {}
            }
            let _ = match &b.term {
                Term::Branch(t) => writeln!(s, "OpBranch %b{t}"),
                Term::Cond(c, t, f) => writeln!(s, "OpBranchConditional %{c} %b{t} %b{f}"),
                Term::Switch(v, d, cases) => {
                    let _ = write!(s, "OpSwitch %sel{v} %b{d}");
                    for (l, t) in cases {
                        let _ = write!(s, " {l} %b{t}");
                    }
                    writeln!(s)
                }
                Term::Return => writeln!(s, "OpReturn"),
                Term::Unreachable => writeln!(s, "OpUnreachable"),
            };
        }
    }
}

/// The `i`-th module of a run seeded with `seed`: a valid function, or (about
/// half the time) a near-miss mutant of one. Returns the text and its kind
/// (`valid` or the mutation).
pub fn case(seed: u64, i: u64) -> (String, &'static str) {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0000_01b3) ^ i);
    let cfg = Config {
        blocks: 4 + rng.below(40),
        max_depth: 2 + rng.below(6),
        dead_blocks: rng.below(3),
        fill: false,
    };
    let f = Func::generate(&mut rng, cfg);
    if rng.chance(50) {
        (f.module_text(), "valid")
    } else {
        let (m, kind) = f.mutate(&mut rng);
        (m.module_text(), kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_structured() {
        assert_eq!(case(1, 7), case(1, 7));
        let mut rng = Rng::new(3);
        let f = Func::generate(&mut rng, Config { blocks: 60, max_depth: 5, dead_blocks: 2, fill: false });
        // Every label is defined once, every branch target is a block.
        let labels: HashSet<Label> = f.blocks.iter().map(|b| b.label).collect();
        assert_eq!(labels.len(), f.blocks.len());
        for b in &f.blocks {
            for t in b.term.clone().targets_mut() {
                assert!(labels.contains(t), "%b{t} is not a block");
            }
        }
        assert!(f.module_text().contains("OpFunctionEnd"));
    }

    #[test]
    fn fill_reaches_the_budget() {
        let mut rng = Rng::new(5);
        let f = Func::generate(&mut rng, Config { blocks: 5000, max_depth: 40, dead_blocks: 0, fill: true });
        assert!(f.blocks.len() >= 5000, "{} blocks", f.blocks.len());
    }
}
