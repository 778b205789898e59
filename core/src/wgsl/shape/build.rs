//! [`structure`]: the construct tree of a function lowered to a [`Shape`].
//! The algorithm is described in the parent module's documentation.

use super::{Case, CaseValues, Cond, Selector, Shape, ShapeError, Stmt};
use crate::Module;
use crate::cfg::{ConstructKind, EdgeKind, FunctionCfg, NONE};
use crate::grammar::op;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The one dispatch variable.
const D: u32 = 0;

/// The value the dispatch variable holds on the way to block `t`.
fn tag(t: u32) -> u32 {
    t + 1
}

/// What a frame of the statement stack is (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The function body.
    Root,
    /// A selection construct: an `if`, left by falling off its end.
    Sel,
    /// A case construct of the switch whose merge block is `merge`: in a
    /// `switch` on the selector (direct) or in the re-dispatch `loop { switch
    /// d { .. } break; }` (dispatch).
    Case { merge: u32, header: u32, dispatch: bool },
    /// A loop construct: the body of the `loop` (simple), or of the one-pass
    /// `loop { ..; break; }` whose `break` goes to the continue target (general).
    Body { lp: u32, general: bool },
    /// A continue construct: WGSL's `continuing` (simple), or plain statements
    /// at the end of the loop's body (general).
    Cont { lp: u32, general: bool },
}

impl Kind {
    /// Whether a WGSL `break` inside the frame stops at the frame's statement.
    fn takes_break(self) -> bool {
        matches!(self, Kind::Case { .. } | Kind::Body { general: true, .. })
    }
    /// Whether a WGSL `continue` inside the frame stops at the frame's statement.
    fn takes_continue(self) -> bool {
        matches!(self, Kind::Case { dispatch: true, .. } | Kind::Body { general: true, .. })
    }
}

struct Frame {
    kind: Kind,
    /// The region (construct index, or [`Builder::root`]).
    region: u32,
    /// Targets that leave the frame's statement by the dispatch variable.
    escapes: Vec<u32>,
    /// Simple continuing: the `break if` condition found at the back-edge block.
    break_if: Option<Cond>,
}

/// What the builder knows of a block.
#[derive(Clone, Copy)]
struct Node {
    /// The selection, switch or loop construct it heads, or NONE.
    hdr: u32,
    /// The region it is a node of (collapsed for a header).
    home: u32,
    /// Its predecessors in its region's acyclic graph.
    preds: u32,
    /// Whether it has OpPhi instructions.
    phi: bool,
    /// A join whose code follows its dominator's unconditionally.
    direct: bool,
    /// Written as a plain node (1), as a construct (2).
    written: u8,
}

/// What the builder knows of a construct.
#[derive(Clone, Copy)]
struct ConstructInfo {
    /// A loop construct's continue construct, or NONE.
    cont: u32,
    /// A loop construct whose continue construct is not structurally
    /// dominated by the header; the body is SDom(header) - SDom(merge).
    wide: bool,
    /// A continue construct that is no region (see [`Builder::new`]).
    bogus: bool,
}

struct Builder<'a> {
    m: &'a Module,
    f: &'a FunctionCfg,
    /// The region id of the function body (one past the constructs).
    root: u32,
    /// Per block.
    nodes: Vec<Node>,
    /// Per construct.
    cons: Vec<ConstructInfo>,
    /// `(z, t)`: the guarded join `t` whose check follows block `z`'s code,
    /// by `z`, then in the region graph's reverse postorder.
    joins: Vec<(u32, u32)>,
    /// Branch predecessors of each block (distinct), in one buffer: the
    /// `n + 1` starts, then the lists (see [`Builder::bpreds`]).
    bpred: Vec<u32>,
    frames: Vec<Frame>,
    uses_var: bool,
    /// Nesting of [`Builder::code`] calls.
    depth: u32,
    /// The chains of [`Builder::code_at`] calls, innermost last (one stack
    /// for all of them).
    chain: Vec<u32>,
}

/// How deep statements may nest (WGSL implementations allow far less: the
/// WGSL specification only requires 127 levels of braces).
const MAX_DEPTH: u32 = 600;

fn err(block: u32, message: String) -> ShapeError {
    ShapeError { block, message }
}

/// The structured shape of `f`, a function of `module`, a valid module (its
/// terminators' operands are read from `module`).
pub fn structure(module: &Module, f: &FunctionCfg) -> Result<Shape, ShapeError> {
    structure_within(module, f, super::flatten::DEPTH_TARGET)
}

/// [`structure`], with the nesting limited to `depth` braces (see
/// [`super::flatten`]) instead of [`super::flatten::DEPTH_TARGET`]:
/// `usize::MAX` leaves the shape as deep as the constructs nest, a small
/// depth flattens every chain of `if`s (tests use both).
pub fn structure_within(module: &Module, f: &FunctionCfg, depth: usize) -> Result<Shape, ShapeError> {
    let Some(entry) = f.entry() else {
        return Ok(Shape::default());
    };
    let mut b = Builder::new(module, f)?;
    b.frames.push(Frame { kind: Kind::Root, region: b.root, escapes: Vec::new(), break_if: None });
    let mut body = Vec::new();
    b.code(entry, b.root, &mut body)?;
    let mut flags = 0;
    super::flatten::limit_depth(&mut body, &mut flags, depth);
    Ok(Shape { body, flags, vars: b.uses_var as u32 })
}

impl<'a> Builder<'a> {
    fn new(m: &'a Module, f: &'a FunctionCfg) -> Result<Builder<'a>, ShapeError> {
        let n = f.blocks.len();
        let ks = f.constructs();
        let root = ks.len() as u32;
        let mut nodes = vec![Node { hdr: NONE, home: NONE, preds: 0, phi: false, direct: false, written: 0 }; n];
        let mut cons = vec![ConstructInfo { cont: NONE, wide: false, bogus: false }; ks.len()];
        for (i, k) in ks.iter().enumerate() {
            match k.kind {
                ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Loop => {
                    nodes[k.header as usize].hdr = i as u32
                }
                _ => {}
            }
        }
        // A continue construct whose loop header does not structurally
        // dominate it (a continue target that is the entry block or is
        // reached only from elsewhere: the loop never continues) is no
        // region: its blocks belong to the enclosing one, and the loop's body
        // is SDom(header) - SDom(merge) ("wide").
        for (i, k) in ks.iter().enumerate() {
            if k.kind == ConstructKind::Continue {
                let h = nodes[k.header as usize].hdr;
                if !f.structurally_dominates(k.header, k.entry) {
                    cons[i].bogus = true;
                    if h != NONE {
                        cons[h as usize].wide = true;
                    }
                } else if h != NONE {
                    cons[h as usize].cont = i as u32;
                }
            }
        }
        let fix = |mut c: Option<u32>| -> u32 {
            while let Some(x) = c {
                if !cons[x as usize].bogus {
                    return x;
                }
                c = f.construct_parent(x);
            }
            root
        };
        for x in 0..n as u32 {
            nodes[x as usize].home = match nodes[x as usize].hdr {
                NONE => fix(f.innermost_construct(x)),
                h => fix(f.construct_parent(h)),
            };
        }
        let mut wides: Vec<u32> = (0..ks.len() as u32).filter(|&h| cons[h as usize].wide).collect();
        wides.sort_by_key(|&h| f.sdom.depth(ks[h as usize].header).unwrap_or(0));
        for h in wides {
            let k = ks[h as usize];
            let outer = nodes[k.header as usize].home;
            for &x in f.sdom.subtree(k.header) {
                if x != k.header
                    && nodes[x as usize].home == outer
                    && !k.merge.is_some_and(|m| f.structurally_dominates(m, x))
                {
                    nodes[x as usize].home = h;
                }
            }
        }
        for (x, blk) in f.blocks.iter().enumerate() {
            let mut i = blk.start as usize + 1;
            while i < blk.end as usize {
                match m.instructions.get(i).map(|x| x.opcode) {
                    Some(op::OpPhi) => nodes[x].phi = true,
                    Some(op::OpLine | op::OpNoLine) => {}
                    _ => break,
                }
                i += 1;
            }
        }
        // Per block: the last predecessor counted (for the branch
        // predecessors), then whether it was seen (the reverse postorder),
        // then the stamp of the last search that met it (the free joins);
        // after it, the stack of the reverse postorder's search.
        let mut work = vec![NONE; 3 * n];
        let (mark, dfs) = work.split_at_mut(n);
        // The branch predecessors: counted, then placed (a counting sort by
        // target; each block's come in block order, a block branching twice
        // to the same target counted once).
        let reachable = (0..n as u32).filter(|&x| f.is_reachable(x));
        let mut bpred = Vec::with_capacity(n + 1 + f.edges.len());
        bpred.resize(n + 1, 0u32);
        for x in reachable.clone() {
            for t in f.successors(x) {
                if core::mem::replace(&mut mark[t as usize], x) != x {
                    bpred[t as usize + 1] += 1;
                }
            }
        }
        for i in 0..n {
            bpred[i + 1] += bpred[i];
        }
        bpred.resize(n + 1 + bpred[n] as usize, 0);
        // `start[t]` is `t`'s fill slot until all are placed, then the
        // starts move up one place.
        let (start, list) = bpred.split_at_mut(n + 1);
        mark.fill(NONE);
        for x in reachable {
            for t in f.successors(x) {
                if core::mem::replace(&mut mark[t as usize], x) != x {
                    let slot = &mut start[t as usize];
                    list[*slot as usize] = x;
                    *slot += 1;
                }
            }
        }
        start.copy_within(0..n, 1);
        start[0] = 0;
        let mut b = Builder {
            m,
            f,
            root,
            nodes,
            cons,
            joins: Vec::new(),
            bpred,
            frames: Vec::new(),
            uses_var: false,
            depth: 0,
            chain: Vec::new(),
        };
        // The region graphs: a node's successors, node `y`'s being
        // `succ[n + 1 + succ[y]..n + 1 + succ[y + 1]]` (at most one per
        // edge, and the merge block of a header).
        let mut succ: Vec<u32> = Vec::with_capacity(2 * n + 1 + f.edges.len());
        succ.resize(n + 1, 0);
        for y in 0..n as u32 {
            let row = succ.len();
            succ[y as usize] = (row - n - 1) as u32;
            if !f.is_reachable(y) {
                continue;
            }
            let h = b.nodes[y as usize].hdr;
            if h != NONE
                && let Some(mg) = b.succ_of(h)
                && b.nodes[mg as usize].home == b.nodes[y as usize].home
                && mg != b.entry(b.nodes[y as usize].home)
            {
                succ.push(mg);
            }
            let Some(r) = b.plain_region(y) else { continue };
            for t in f.successors(y) {
                if b.nodes[t as usize].home == r && t != b.entry(r) && !succ[row..].contains(&t) {
                    succ.push(t);
                }
            }
        }
        succ[n] = (succ.len() - n - 1) as u32;
        let (succ_start, succ) = succ.split_at(n + 1);
        for &t in succ {
            b.nodes[t as usize].preds += 1;
        }
        let succ_of = |v: u32| &succ[succ_start[v as usize] as usize..succ_start[v as usize + 1] as usize];
        // Reverse postorder of the region graphs (acyclic: back edges go to
        // region entries, which have no edges in).
        const SEEN: u32 = 0;
        mark.fill(NONE);
        let mut order: Vec<u32> = Vec::with_capacity(n);
        for s in 0..n {
            if mark[s] == SEEN || b.nodes[s].preds != 0 || !f.is_reachable(s as u32) {
                continue;
            }
            // (node, next successor) pairs.
            dfs[0] = s as u32;
            dfs[1] = 0;
            let mut top = 1;
            mark[s] = SEEN;
            while top > 0 {
                let k = 2 * (top - 1);
                let (v, i) = (dfs[k], dfs[k + 1]);
                if let Some(&w) = succ_of(v).get(i as usize) {
                    dfs[k + 1] += 1;
                    if mark[w as usize] != SEEN {
                        mark[w as usize] = SEEN;
                        dfs[2 * top] = w;
                        dfs[2 * top + 1] = 0;
                        top += 1;
                    }
                } else {
                    order.push(v);
                    top -= 1;
                }
            }
        }
        order.reverse();
        for &t in &order {
            if b.nodes[t as usize].preds < 2 {
                continue;
            }
            let r = b.nodes[t as usize].home;
            let e = b.entry(r);
            let mut z = f.sdom.idom(t).unwrap_or(e);
            let mut guard = 0;
            while z != e && b.nodes[z as usize].home != r {
                z = f.sdom.idom(z).unwrap_or(e);
                guard += 1;
                if guard > n {
                    return Err(err(t, "the structural dominator tree has a cycle".into()));
                }
            }
            b.joins.push((z, t));
        }
        b.joins.sort_by_key(|&(z, _)| z);
        // A join that every path from its dominator's code reaches unless it
        // leaves by a break, continue or return needs no check: clear its mark.
        // (The stamps start above SEEN and NONE is never reached.)
        let mut stamp = SEEN;
        let mut stack = order; // its room, for the searches
        for j in 0..b.joins.len() {
            let (z, t) = b.joins[j];
            stamp += 1;
            if !b.falls_off_avoiding(z, t, mark, stamp, &mut stack) {
                b.nodes[t as usize].direct = true;
            }
        }
        Ok(b)
    }

    /// The branch predecessors of block `b` (distinct, in block order).
    fn bpreds(&self, b: u32) -> &[u32] {
        let (start, list) = self.bpred.split_at(self.nodes.len() + 1);
        &list[start[b as usize] as usize..start[b as usize + 1] as usize]
    }

    /// The joins whose checks follow block `z`'s code: a range of [`Builder::joins`].
    fn joins_of(&self, z: u32) -> core::ops::Range<usize> {
        self.joins.partition_point(|j| j.0 < z)..self.joins.partition_point(|j| j.0 <= z)
    }

    fn kinds(&self, c: u32) -> ConstructKind {
        self.f.constructs()[c as usize].kind
    }

    /// The block a region starts at.
    fn entry(&self, r: u32) -> u32 {
        if r == self.root { 0 } else { self.f.constructs()[r as usize].entry }
    }

    /// The region in which block `y`'s own terminator is lowered, if any.
    fn plain_region(&self, y: u32) -> Option<u32> {
        match self.nodes[y as usize].hdr {
            NONE => Some(self.nodes[y as usize].home),
            h => match self.kinds(h) {
                ConstructKind::Selection => Some(h),
                ConstructKind::Loop => {
                    let k = &self.f.constructs()[h as usize];
                    if k.continue_target == Some(y) { Some(self.cons[h as usize].cont).filter(|&c| c != NONE) } else { Some(h) }
                }
                _ => None,
            },
        }
    }

    /// Whether block `p` is inside the statement of construct `h`.
    fn inside(&self, h: u32, p: u32) -> bool {
        if self.cons[h as usize].wide {
            let k = self.f.constructs()[h as usize];
            return self.f.structurally_dominates(k.header, p)
                && !k.merge.is_some_and(|m| self.f.structurally_dominates(m, p));
        }
        self.f.construct_contains(h, p) || {
            let c = self.cons.get(h as usize).map_or(NONE, |c| c.cont);
            c != NONE && self.f.construct_contains(c, p)
        }
    }

    /// The merge block of construct `h` when control can reach it from inside.
    fn succ_of(&self, h: u32) -> Option<u32> {
        let mg = self.f.constructs()[h as usize].merge?;
        if !self.f.is_reachable(mg) {
            return None;
        }
        self.bpreds(mg).iter().any(|&p| self.inside(h, p)).then_some(mg)
    }

    fn guarded(&self, t: u32) -> bool {
        self.nodes[t as usize].preds >= 2 && !self.nodes[t as usize].direct
    }

    /// Where falling off the end of region `r`'s code goes (conservatively:
    /// a continue construct's loop header even when its form has no
    /// `continuing`).
    fn region_falls_to(&self, r: u32) -> u32 {
        if r == self.root {
            return NONE;
        }
        let k = self.f.constructs()[r as usize];
        match k.kind {
            ConstructKind::Selection | ConstructKind::Case => k.merge.unwrap_or(NONE),
            ConstructKind::Continue => k.header,
            _ => NONE,
        }
    }

    /// Whether a path from node `z` falls off the end of its region's code
    /// (or of the region graph's walk limit) without going through `t`.
    /// `stack`: scratch space.
    fn falls_off_avoiding(&self, z: u32, t: u32, mark: &mut [u32], stamp: u32, stack: &mut Vec<u32>) -> bool {
        let r = self.nodes[t as usize].home;
        let e = self.entry(r);
        let out = self.region_falls_to(r);
        stack.clear();
        stack.push(z);
        mark[z as usize] = stamp;
        let mut visited = 0;
        while let Some(y) = stack.pop() {
            visited += 1;
            if visited > 4096 {
                return true;
            }
            // A collapsed header goes on to its merge block, a plain node by its branches.
            let collapsed = self.nodes[y as usize].hdr != NONE && self.nodes[y as usize].home == r;
            let (merge, branches) = if collapsed {
                (self.succ_of(self.nodes[y as usize].hdr), None)
            } else {
                (None, Some(self.f.successors(y)))
            };
            for w in merge.into_iter().chain(branches.into_iter().flatten()) {
                if w == t {
                    continue;
                }
                if self.nodes[w as usize].home == r && w != e {
                    if mark[w as usize] != stamp {
                        mark[w as usize] = stamp;
                        stack.push(w);
                    }
                } else if w == out {
                    return true;
                }
            }
        }
        false
    }

    fn term(&self, b: u32) -> Result<(u16, &'a [u32]), ShapeError> {
        let blk = &self.f.blocks[b as usize];
        let t = blk.terminator.ok_or_else(|| err(b, "the block has no terminator".into()))?;
        let i = &self.m.instructions[t as usize];
        Ok((i.opcode, &i.operands))
    }

    fn block_of(&self, b: u32, id: u32) -> Result<u32, ShapeError> {
        self.f.block_of(id).ok_or_else(|| err(b, format!("the branch target %{id} is not a block of the function")))
    }

    /// The code of node `z` of region `r`, and of the nodes that follow it.
    fn code(&mut self, z: u32, r: u32, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        if self.depth >= MAX_DEPTH {
            return Err(err(z, format!("the control flow is nested more than {MAX_DEPTH} statements deep")));
        }
        self.depth += 1;
        let r = self.code_at(z, r, out);
        self.depth -= 1;
        r
    }

    fn code_at(&mut self, z: u32, r: u32, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        // This call's chain is `self.chain[base..]` (the calls it makes
        // leave the stack as they found it, unless they fail).
        let base = self.chain.len();
        let mut z = z;
        loop {
            self.chain.push(z);
            // Each block is written once as a plain node and each construct
            // once; a second time means a cycle that is not a loop.
            let collapsed = self.nodes[z as usize].hdr != NONE && self.nodes[z as usize].home == r;
            let bit = if collapsed { 2 } else { 1 };
            if self.nodes[z as usize].written & bit != 0 {
                return Err(err(z, format!("block {z} is reached again without a loop header (a cycle that is not a loop)")));
            }
            self.nodes[z as usize].written |= bit;
            let next = if collapsed {
                self.construct(self.nodes[z as usize].hdr, out)?
            } else {
                self.plain(z, r, out)?
            };
            match next {
                Some(t) => z = t,
                None => break,
            }
        }
        while self.chain.len() > base {
            let z = self.chain.pop().expect("the chain");
            for j in self.joins_of(z) {
                let t = self.joins[j].1;
                if self.nodes[t as usize].home != r {
                    continue;
                }
                if self.nodes[t as usize].direct {
                    self.code(t, r, out)?;
                    continue;
                }
                self.uses_var = true;
                let mut then = vec![Stmt::SetVar { var: D, value: 0 }];
                self.code(t, r, &mut then)?;
                out.push(Stmt::If { cond: Cond::VarIs { var: D, value: tag(t) }, then, els: Vec::new() });
            }
        }
        Ok(())
    }

    /// Whether `t` is emitted right where the branch from its one predecessor is.
    fn is_inline(&self, t: u32, r: u32) -> bool {
        self.nodes[t as usize].home == r && t != self.entry(r) && self.nodes[t as usize].preds == 1
    }

    fn phis(&self, from: u32, to: u32, out: &mut Vec<Stmt>) {
        if self.nodes[to as usize].phi {
            out.push(Stmt::Phis { from, to });
        }
    }

    /// The statements of the branch edge `x` -> `t` taken in region `r`; an
    /// inline target's code is written in place.
    fn edge(&mut self, x: u32, t: u32, r: u32, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        self.phis(x, t, out);
        if self.is_inline(t, r) {
            return self.code(t, r, out);
        }
        self.jump(x, t, out, true)
    }

    /// Block `z` as a plain node of region `r`: its code and terminator.
    /// Returns the inline successor to go on with.
    fn plain(&mut self, z: u32, r: u32, out: &mut Vec<Stmt>) -> Result<Option<u32>, ShapeError> {
        out.push(Stmt::Block(z));
        let (opc, ops) = self.term(z)?;
        match opc {
            op::OpReturn => out.push(Stmt::Return(None)),
            op::OpReturnValue => out.push(Stmt::Return(ops.first().copied())),
            op::OpKill | op::OpTerminateInvocation => out.push(Stmt::Discard),
            op::OpUnreachable => out.push(Stmt::Unreachable),
            op::OpBranch | op::OpBranchConditional => {
                let pair;
                let targets: &[u32] = if opc == op::OpBranch {
                    pair = [self.block_of(z, *ops.first().unwrap_or(&0))?, 0];
                    &pair[..1]
                } else {
                    pair = [self.block_of(z, *ops.get(1).unwrap_or(&0))?, self.block_of(z, *ops.get(2).unwrap_or(&0))?];
                    &pair
                };
                let top = self.frames.last().map(|f| f.kind);
                if let Some(Kind::Cont { lp, general: false }) = top {
                    let k = self.f.constructs()[lp as usize];
                    if targets.contains(&k.header) {
                        return self.back_edge(z, targets, ops.first().copied().unwrap_or(0), k.header, out).map(|_| None);
                    }
                }
                if targets.len() == 1 || targets[0] == targets[1] {
                    let t = targets[0];
                    self.phis(z, t, out);
                    if self.is_inline(t, r) {
                        return Ok(Some(t));
                    }
                    self.jump(z, t, out, true)?;
                } else {
                    let mut then = Vec::new();
                    self.edge(z, targets[0], r, &mut then)?;
                    let mut els = Vec::new();
                    self.edge(z, targets[1], r, &mut els)?;
                    if then.is_empty() {
                        out.push(Stmt::If { cond: Cond::Not(Box::new(Cond::Id(ops[0]))), then: els, els: then });
                    } else {
                        out.push(Stmt::If { cond: Cond::Id(ops[0]), then, els });
                    }
                }
            }
            op::OpSwitch => return Err(err(z, "an OpSwitch block has no OpSelectionMerge".into())),
            _ if crate::cfg::is_exit_opcode(opc) => out.push(Stmt::Return(None)),
            _ => return Err(err(z, "the block does not end in a terminator".into())),
        }
        Ok(None)
    }

    /// The back-edge block `b` of a simple continuing: its edges' OpPhi copies
    /// and the `break if`.
    fn back_edge(&mut self, b: u32, targets: &[u32], cond: u32, header: u32, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        if targets.len() == 1 || targets[0] == targets[1] {
            self.phis(b, header, out);
            return Ok(());
        }
        let exit = if targets[0] == header { targets[1] } else { targets[0] };
        let mut to_header = Vec::new();
        self.phis(b, header, &mut to_header);
        let mut to_exit = Vec::new();
        self.phis(b, exit, &mut to_exit);
        if self.guarded(exit) {
            self.uses_var = true;
            to_exit.push(Stmt::SetVar { var: D, value: tag(exit) });
        }
        let (then, els, brk) = if targets[0] == header {
            (to_header, to_exit, Cond::Not(Box::new(Cond::Id(cond))))
        } else {
            (to_exit, to_header, Cond::Id(cond))
        };
        if !then.is_empty() || !els.is_empty() {
            out.push(Stmt::If { cond: Cond::Id(cond), then, els });
        }
        if let Some(f) = self.frames.last_mut() {
            f.break_if = Some(brk);
        }
        Ok(())
    }

    /// Where a jump to `t` lands when control falls off the end of frame `k`.
    fn falls_to(&self, k: usize) -> u32 {
        match self.frames[k].kind {
            Kind::Sel => self.f.constructs()[self.frames[k].region as usize].merge.unwrap_or(NONE),
            Kind::Case { merge, .. } => merge,
            Kind::Cont { lp, general: false } => self.f.constructs()[lp as usize].header,
            _ => NONE,
        }
    }

    /// The statements that take control from block `x` (in the innermost
    /// frame) to `t`, after the edge's OpPhi copies. `set`: whether the
    /// dispatch variable must still be set for a guarded `t`.
    fn jump(&mut self, x: u32, t: u32, out: &mut Vec<Stmt>, set: bool) -> Result<(), ShapeError> {
        let depth = self.frames.len();
        self.jump_from(x, t, depth, out, set)
    }

    /// [`Builder::jump`] from inside the first `depth` frames.
    fn jump_from(&mut self, x: u32, t: u32, depth: usize, out: &mut Vec<Stmt>, set: bool) -> Result<(), ShapeError> {
        let k = depth - 1;
        let guarded = self.guarded(t);
        if guarded && set {
            self.uses_var = true;
            out.push(Stmt::SetVar { var: D, value: tag(t) });
        }
        let r = self.frames[k].region;
        if self.nodes[t as usize].home == r && t != self.entry(r) && self.nodes[t as usize].preds < 2 {
            // Only a join is reached by falling off: anything else would be
            // code left out.
            return Err(err(x, format!("block {t} is reached from block {x} by no edge of its region's graph")));
        }
        if (self.nodes[t as usize].home == r && t != self.entry(r)) || t == self.falls_to(k) {
            if !guarded && !set {
                out.push(Stmt::SetVar { var: D, value: 0 });
            }
            return Ok(());
        }
        // Reset the variable before a final break or continue that ends an
        // escape (a guarded target keeps it for its check).
        let reset = !guarded && !set;
        let fin = |out: &mut Vec<Stmt>, s: Stmt| {
            if reset {
                out.push(Stmt::SetVar { var: D, value: 0 });
            }
            out.push(s);
        };
        let mut blocker: Option<usize> = None;
        let (mut brk_ok, mut cont_ok) = (true, true);
        for j in (0..=k).rev() {
            let kind = self.frames[j].kind;
            match kind {
                Kind::Case { merge, header, dispatch } => {
                    if t == merge && brk_ok {
                        fin(out, Stmt::Break);
                        return Ok(());
                    }
                    if dispatch && t != merge && self.is_case_target(header, t) {
                        if !cont_ok || !set {
                            return Err(err(x, format!("block {t} is reached by a fallthrough from a nested construct")));
                        }
                        self.uses_var = true;
                        out.push(Stmt::SetVar { var: D, value: tag(t) });
                        out.push(Stmt::Continue);
                        return Ok(());
                    }
                }
                Kind::Body { lp, general } => {
                    let k2 = self.f.constructs()[lp as usize];
                    if Some(t) == k2.continue_target {
                        if !general && cont_ok {
                            fin(out, Stmt::Continue);
                            return Ok(());
                        }
                        if general && brk_ok {
                            fin(out, Stmt::Break);
                            return Ok(());
                        }
                    } else if Some(t) == k2.merge {
                        if !general && brk_ok {
                            fin(out, Stmt::Break);
                            return Ok(());
                        }
                    } else {
                        return Err(err(x, format!("the branch to block {t} leaves the loop headed by block {} and is not a structured exit", k2.header)));
                    }
                }
                Kind::Cont { lp, general } => {
                    let k2 = self.f.constructs()[lp as usize];
                    if !general {
                        return Err(err(x, format!("the branch to block {t} leaves the continue construct of the loop headed by block {}", k2.header)));
                    }
                    if t == k2.header && cont_ok {
                        fin(out, Stmt::Continue);
                        return Ok(());
                    }
                    if Some(t) == k2.merge && brk_ok {
                        fin(out, Stmt::Break);
                        return Ok(());
                    }
                    if t != k2.header && Some(t) != k2.merge {
                        return Err(err(x, format!("the branch to block {t} leaves the continue construct of the loop headed by block {} and is not a structured exit", k2.header)));
                    }
                }
                Kind::Sel | Kind::Root => {}
            }
            if kind.takes_break() {
                brk_ok = false;
                blocker.get_or_insert(j);
            }
            if kind.takes_continue() {
                cont_ok = false;
            }
            if matches!(kind, Kind::Body { .. } | Kind::Cont { .. }) {
                break;
            }
        }
        let Some(b) = blocker else {
            return Err(err(x, format!("the branch to block {t} is not a structured exit of its constructs")));
        };
        // Leave the blocking frame's statement with `break`; the check after
        // it goes on.
        if !(guarded && set) {
            self.uses_var = true;
            out.push(Stmt::SetVar { var: D, value: tag(t) });
        }
        out.push(Stmt::Break);
        if !self.frames[b].escapes.contains(&t) {
            self.frames[b].escapes.push(t);
        }
        Ok(())
    }

    fn is_case_target(&self, header: u32, t: u32) -> bool {
        self.case_construct(header, t).is_some()
    }

    /// The checks after a statement that targets left by the dispatch
    /// variable: each goes on from the enclosing frames.
    fn escape_checks(&mut self, x: u32, mut escapes: Vec<u32>, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        escapes.sort_unstable();
        escapes.dedup();
        for t in escapes {
            let mut then = Vec::new();
            self.jump_from(x, t, self.frames.len(), &mut then, false)?;
            out.push(Stmt::If { cond: Cond::VarIs { var: D, value: tag(t) }, then, els: Vec::new() });
        }
        Ok(())
    }

    fn push(&mut self, kind: Kind, region: u32) {
        self.frames.push(Frame { kind, region, escapes: Vec::new(), break_if: None });
    }

    /// The statement of construct `h` (a node of the enclosing region), then
    /// the jump to its merge block when that is not the next node. Returns the
    /// merge block when it follows inline.
    fn construct(&mut self, h: u32, out: &mut Vec<Stmt>) -> Result<Option<u32>, ShapeError> {
        let k = self.f.constructs()[h as usize];
        match k.kind {
            ConstructKind::Selection => {
                self.push(Kind::Sel, h);
                let r = self.code(k.header, h, out);
                self.frames.pop();
                r?;
            }
            ConstructKind::Switch => self.switch(h, out)?,
            ConstructKind::Loop => self.lp(h, out)?,
            _ => return Err(err(k.entry, "not a header".into())),
        }
        let Some(mg) = self.succ_of(h) else { return Ok(None) };
        let r = self.frames.last().map_or(self.root, |f| f.region);
        if self.is_inline(mg, r) {
            return Ok(Some(mg));
        }
        if self.nodes[mg as usize].home == r && mg != self.entry(r) {
            return Ok(None); // a guarded join: the branches set the variable
        }
        self.jump(k.header, mg, out, true)?;
        Ok(None)
    }

    fn switch(&mut self, h: u32, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        let k = self.f.constructs()[h as usize];
        let s = k.header;
        out.push(Stmt::Block(s));
        let ms = k.merge.unwrap_or(NONE);
        let (opc, ops) = self.term(s)?;
        if opc != op::OpSwitch || ops.len() < 2 {
            return Err(err(s, "a switch header does not end in OpSwitch".into()));
        }
        let sel = ops[0];
        // The literal width: the first case target's operand index less 2.
        let lw = self
            .f
            .out_edges(s)
            .iter()
            .filter(|e| e.kind == EdgeKind::Branch && e.operand >= 2)
            .map(|e| e.operand as usize - 2)
            .min()
            .unwrap_or(1)
            .max(1);
        let default = self.block_of(s, ops[1])?;
        // Case groups: targets in order of first appearance, with their literals.
        let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
        for case in ops[2..].chunks(lw + 1) {
            if case.len() != lw + 1 {
                return Err(err(s, "OpSwitch has a truncated case".into()));
            }
            let t = self.block_of(s, case[lw])?;
            match groups.iter_mut().find(|g| g.0 == t) {
                Some(g) => g.1.push(case[0]),
                None => groups.push((t, vec![case[0]])),
            }
        }
        if !groups.iter().any(|g| g.0 == default) {
            groups.push((default, Vec::new()));
        }
        let values = |t: u32, lits: Vec<u32>| {
            if t == default { CaseValues::Default(lits) } else { CaseValues::Values(lits) }
        };
        // Fallthrough: a case target with a branch predecessor other than the header.
        let dispatch = groups
            .iter()
            .any(|a| a.0 != ms && groups.iter().any(|b| b.0 != ms && b.0 != a.0 && self.falls_into(s, a.0, b.0)));
        let mut escapes: Vec<u32> = Vec::new();
        let mut cases = Vec::new();
        let to_merge = |me: &mut Self, body: &mut Vec<Stmt>| {
            if me.guarded(ms) {
                me.uses_var = true;
                body.push(Stmt::SetVar { var: D, value: tag(ms) });
            }
        };
        // Case targets in an order where each fallthrough goes forward.
        let mut order: Vec<u32> = Vec::new();
        if dispatch {
            let targets: Vec<u32> = groups.iter().map(|g| g.0).filter(|&t| t != ms).collect();
            let chained = |t: u32| targets.iter().any(|&o| o != t && (self.falls_into(s, t, o) || self.falls_into(s, o, t)));
            for &t in &targets {
                if order.contains(&t) || !chained(t) {
                    continue;
                }
                // Go back to the start of t's fallthrough chain.
                let mut first = t;
                let mut steps = 0;
                while let Some(&p) = targets.iter().find(|&&p| p != first && !order.contains(&p) && self.falls_into(s, p, first)) {
                    first = p;
                    steps += 1;
                    if steps > targets.len() {
                        break;
                    }
                }
                let mut c = first;
                loop {
                    order.push(c);
                    match targets.iter().find(|&&n| !order.contains(&n) && self.falls_into(s, c, n)) {
                        Some(&n) => c = n,
                        None => break,
                    }
                }
            }
        }
        // The switch on the selector: each case's code, or for the cases of a
        // fallthrough chain, their dispatch value.
        for (t, lits) in groups {
            let mut body = Vec::new();
            self.phis(s, t, &mut body);
            if t == ms {
                to_merge(self, &mut body);
            } else if order.contains(&t) {
                self.uses_var = true;
                body.push(Stmt::SetVar { var: D, value: tag(t) });
            } else {
                self.case_body(s, t, ms, false, &mut body, &mut escapes)?;
            }
            cases.push(Case { values: values(t, lits), body });
        }
        out.push(Stmt::Switch { selector: Selector::Id(sel), cases });
        if !order.is_empty() {
            let mut inner = Vec::new();
            for t in order {
                let mut body = vec![Stmt::SetVar { var: D, value: 0 }];
                self.case_body(s, t, ms, true, &mut body, &mut escapes)?;
                inner.push(Case { values: CaseValues::Values(vec![tag(t)]), body });
            }
            inner.push(Case { values: CaseValues::Default(Vec::new()), body: Vec::new() });
            out.push(Stmt::Loop {
                body: vec![Stmt::Switch { selector: Selector::Var(D), cases: inner }, Stmt::Break],
                continuing: Vec::new(),
                break_if: None,
            });
        }
        escapes.dedup();
        self.escape_checks(s, escapes, out)
    }

    /// The code of the case construct of target `t` of switch `s` (merge
    /// block `ms`), in a `switch` on the selector or (`dispatch`) on the
    /// dispatch variable; the targets it leaves by the variable go to `escapes`.
    fn case_body(&mut self, s: u32, t: u32, ms: u32, dispatch: bool, body: &mut Vec<Stmt>, escapes: &mut Vec<u32>) -> Result<(), ShapeError> {
        let cr = self.case_construct(s, t).ok_or_else(|| err(t, "a case target has no case construct".into()))?;
        self.push(Kind::Case { merge: ms, header: s, dispatch }, cr);
        let r = self.code(t, cr, body);
        let f = self.frames.pop().expect("the case frame");
        r?;
        escapes.extend(f.escapes);
        Ok(())
    }

    /// The case construct of target `t` of switch header `s`.
    fn case_construct(&self, s: u32, t: u32) -> Option<u32> {
        self.f.rooted_at(t).iter().copied().find(|&c| {
            let k = self.f.constructs()[c as usize];
            k.kind == ConstructKind::Case && k.header == s
        })
    }

    /// Whether the case construct of `a` (of switch `s`) branches to case target `b`.
    fn falls_into(&self, s: u32, a: u32, b: u32) -> bool {
        let Some(ca) = self.case_construct(s, a) else {
            return false;
        };
        self.bpreds(b).iter().any(|&p| p != s && self.f.construct_contains(ca, p))
    }

    /// Whether the continue construct `c` of loop `h` fits WGSL's `continuing`:
    /// no exit instruction, and only its back-edge block leaves it (to the
    /// header, or to the merge block as the `break if`).
    fn simple_continue(&self, h: u32, c: u32) -> bool {
        let k = self.f.constructs()[h as usize];
        let Some(back) = k.back_edge_block else { return false };
        if k.continue_target == Some(k.header) || self.f.innermost_construct(back) != Some(c) {
            return false;
        }
        if self.f.blocks[back as usize].merge.is_some() {
            return false;
        }
        for x in self.f.construct_blocks(c) {
            if !self.f.is_reachable(x) {
                continue;
            }
            let blk = &self.f.blocks[x as usize];
            match blk.terminator_opcode {
                Some(op::OpUnreachable) => {}
                Some(o) if crate::cfg::is_exit_opcode(o) => return false,
                None => return false,
                _ => {}
            }
            for t in self.f.successors(x) {
                if (Some(t) == k.merge || t == k.header) && x != back {
                    return false;
                }
            }
        }
        true
    }

    fn lp(&mut self, h: u32, out: &mut Vec<Stmt>) -> Result<(), ShapeError> {
        let k = self.f.constructs()[h as usize];
        let l = k.header;
        let c = self.cons[h as usize].cont;
        let ct = k.continue_target.unwrap_or(NONE);
        let cont_live = c != NONE && ct != NONE && self.f.is_reachable(ct);
        if ct != l && (c == NONE || self.simple_continue(h, c)) {
            let mut body = Vec::new();
            self.push(Kind::Body { lp: h, general: false }, h);
            let r = self.code(l, h, &mut body);
            self.frames.pop();
            r?;
            let mut continuing = Vec::new();
            let mut break_if = None;
            if cont_live {
                self.push(Kind::Cont { lp: h, general: false }, c);
                let r = self.code(ct, c, &mut continuing);
                let f = self.frames.pop().expect("frame");
                r?;
                break_if = f.break_if;
            }
            if body.last() == Some(&Stmt::Continue) {
                body.pop();
            }
            out.push(Stmt::Loop { body, continuing, break_if });
            return Ok(());
        }
        let mut body = Vec::new();
        if ct != l {
            let mut inner = Vec::new();
            self.push(Kind::Body { lp: h, general: true }, h);
            let r = self.code(l, h, &mut inner);
            let f = self.frames.pop().expect("frame");
            r?;
            inner.push(Stmt::Break);
            body.push(Stmt::Loop { body: inner, continuing: Vec::new(), break_if: None });
            self.push(Kind::Cont { lp: h, general: true }, c);
            let r = self.escape_checks(l, f.escapes, &mut body);
            if r.is_err() {
                self.frames.pop();
                return r;
            }
            if cont_live {
                let r = self.code(ct, c, &mut body);
                if r.is_err() {
                    self.frames.pop();
                    return r;
                }
            }
            self.frames.pop();
        } else {
            if c == NONE {
                return Err(err(l, "the loop has no continue construct".into()));
            }
            self.push(Kind::Cont { lp: h, general: true }, c);
            let r = self.code(l, c, &mut body);
            self.frames.pop();
            r?;
        }
        if body.last() == Some(&Stmt::Continue) {
            body.pop();
        }
        out.push(Stmt::Loop { body, continuing: Vec::new(), break_if: None });
        Ok(())
    }
}
