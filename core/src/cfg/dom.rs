//! Compressed adjacency lists and dominator trees.
//!
//! Dominators are computed with the Lengauer-Tarjan algorithm (the "simple"
//! version, with path compression: O(m log n)), written without recursion.
//! The tree is then numbered by an iterative depth-first walk so that
//! `dominates(a, b)` is an O(1) interval test.

use super::NONE;
use alloc::vec;
use alloc::vec::Vec;

/// A graph's adjacency lists in compressed form: the neighbours of node `v`
/// are `adj[start[v]..start[v + 1]]`, in insertion order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Csr {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl Csr {
    /// Build from `(from, to)` pairs over `n` nodes; the order of each node's
    /// neighbours is the order of the pairs. Pairs naming a node `>= n` are dropped.
    pub fn from_pairs(n: usize, pairs: &[(u32, u32)]) -> Csr {
        let mut start = vec![0u32; n + 1];
        let ok = |&(a, b): &(u32, u32)| (a as usize) < n && (b as usize) < n;
        for p in pairs.iter().filter(|p| ok(p)) {
            start[p.0 as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        // `start[a]` is the fill slot of `a` (no copy of `start`): it ends
        // at `a`'s end, which is `a + 1`'s start, then moves up one place.
        let mut adj = vec![0u32; start[n] as usize];
        for p in pairs.iter().filter(|p| ok(p)) {
            let slot = &mut start[p.0 as usize];
            adj[*slot as usize] = p.1;
            *slot += 1;
        }
        start.copy_within(0..n, 1);
        start[0] = 0;
        Csr { start, adj }
    }

    /// [`Csr::from_pairs`] for pairs in order of their source (no counting pass).
    pub(crate) fn from_sorted(n: usize, pairs: impl Iterator<Item = (u32, u32)>) -> Csr {
        let mut start = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(pairs.size_hint().0);
        start.push(0);
        for (a, b) in pairs {
            if (a as usize) >= n || (b as usize) >= n {
                continue;
            }
            debug_assert!(start.len() <= a as usize + 1, "pairs out of order");
            while start.len() <= a as usize {
                start.push(adj.len() as u32);
            }
            adj.push(b);
        }
        start.resize(n + 1, adj.len() as u32);
        Csr { start, adj }
    }

    /// The reversed graph (neighbour order: by source, then insertion order).
    pub fn reversed(&self) -> Csr {
        // A counting sort by target, sources in increasing order: the same
        // lists as `from_pairs` over the (target, source) pairs in source order.
        let n = self.len();
        let mut start = vec![0u32; n + 1];
        count_targets(&self.adj, &mut start);
        let mut adj = vec![0u32; prefix_sum(&mut start) as usize];
        fill_reversed(self.rows(), &mut start, &mut adj);
        Csr { start, adj }
    }

    /// A borrowed view of the lists.
    pub(crate) fn rows(&self) -> Rows<'_> {
        Rows {
            start: &self.start,
            adj: &self.adj,
        }
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The neighbours of `v` (empty for an unknown node).
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.start.get(v), self.start.get(v + 1)) {
            (Some(&a), Some(&b)) => self.adj.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Counts, in `start[w + 1]`, the lists' entries naming each node `w` below
/// `start.len() - 1` (the first step of a counting sort by target).
fn count_targets(adj: &[u32], start: &mut [u32]) {
    let n = start.len() - 1;
    for &w in adj {
        if (w as usize) < n {
            start[w as usize + 1] += 1;
        }
    }
}

/// Turns counts (`start[v + 1]`: the length of `v`'s list) into starts;
/// returns the total.
fn prefix_sum(start: &mut [u32]) -> u32 {
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    start[start.len() - 1]
}

/// Fills `adj` with the reversed lists of `src` (by source, then insertion
/// order), `start` holding the starts [`count_targets`] and [`prefix_sum`]
/// gave. `start[w]` serves as `w`'s fill slot (no copy of `start`): it ends
/// at `w`'s end, which is `w + 1`'s start, then everything moves up one place.
fn fill_reversed(src: Rows<'_>, start: &mut [u32], adj: &mut [u32]) {
    let n = start.len() - 1;
    for v in 0..src.len() {
        for &w in src.of(v as u32) {
            if (w as usize) < n {
                let slot = &mut start[w as usize];
                adj[*slot as usize] = v as u32;
                *slot += 1;
            }
        }
    }
    start.copy_within(0..n, 1);
    start[0] = 0;
}

/// Adjacency lists laid out as in a [`Csr`], borrowed (from a [`Csr`] or
/// from a buffer holding several graphs, see [`Graphs`]).
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a> {
    start: &'a [u32],
    adj: &'a [u32],
}

impl<'a> Rows<'a> {
    /// The number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// The neighbours of `v` (empty for an unknown node).
    pub(crate) fn of(&self, v: u32) -> &'a [u32] {
        let v = v as usize;
        match (self.start.get(v), self.start.get(v + 1)) {
            (Some(&a), Some(&b)) => self.adj.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Several graphs' adjacency lists in one buffer, each `n + 1` starts then
/// the lists, added one graph after the other: the analysis of a function
/// builds its forward, reversed and post-dominance graphs here (one
/// allocation, reused from function to function).
#[derive(Default)]
pub(crate) struct Graphs {
    buf: Vec<u32>,
}

/// Where a graph lies in a [`Graphs`] buffer: its starts and its lists.
#[derive(Clone, Copy)]
pub(crate) struct GraphAt {
    start: usize,
    adj: usize,
    end: usize,
}

impl Graphs {
    /// Empties the buffer, with room for `words` words.
    pub(crate) fn clear(&mut self, words: usize) {
        self.buf.clear();
        self.buf.reserve(words);
    }

    /// Adds a graph of `n` nodes whose lists `row(v, buf)` appends to `buf`
    /// for each node in turn.
    pub(crate) fn add(&mut self, n: usize, mut row: impl FnMut(u32, &mut Vec<u32>)) -> GraphAt {
        let start = self.buf.len();
        self.buf.resize(start + n + 1, 0);
        let adj = self.buf.len();
        for v in 0..n {
            self.buf[start + v] = (self.buf.len() - adj) as u32;
            row(v as u32, &mut self.buf);
        }
        self.buf[start + n] = (self.buf.len() - adj) as u32;
        GraphAt {
            start,
            adj,
            end: self.buf.len(),
        }
    }

    /// Adds the reversed graph of `g` (as [`Csr::reversed`] gives it).
    pub(crate) fn add_reversed(&mut self, g: GraphAt) -> GraphAt {
        let n = g.adj - g.start - 1;
        let start = self.buf.len();
        self.buf.resize(start + n + 1, 0);
        let (old, new) = self.buf.split_at_mut(start);
        let src = Rows {
            start: &old[g.start..g.adj],
            adj: &old[g.adj..g.end],
        };
        count_targets(src.adj, new);
        let total = prefix_sum(new) as usize;
        self.buf.resize(start + n + 1 + total, 0);
        let (old, new) = self.buf.split_at_mut(start);
        let src = Rows {
            start: &old[g.start..g.adj],
            adj: &old[g.adj..g.end],
        };
        let (s, a) = new.split_at_mut(n + 1);
        fill_reversed(src, s, a);
        GraphAt {
            start,
            adj: start + n + 1,
            end: self.buf.len(),
        }
    }

    /// Appends `g`'s list of `v` to `buf` (for [`Graphs::add`]'s rows).
    pub(crate) fn copy_row(buf: &mut Vec<u32>, g: GraphAt, v: u32) {
        let a = buf[g.start + v as usize] as usize;
        let b = buf[g.start + v as usize + 1] as usize;
        buf.extend_from_within(g.adj + a..g.adj + b);
    }

    /// The graph at `g`.
    pub(crate) fn rows(&self, g: GraphAt) -> Rows<'_> {
        Rows {
            start: &self.buf[g.start..g.adj],
            adj: &self.buf[g.adj..g.end],
        }
    }
}

/// Graphs up to this many nodes are solved by [`idom_small`] (whose setup
/// is cheaper than Lengauer-Tarjan's), larger ones by Lengauer-Tarjan.
const SMALL_GRAPH: usize = 64;

/// A step of [`depth_first`].
enum Dfs {
    /// The edge `from` -> `to`: whether `to` is new (then marked, and entered).
    Edge { from: u32, to: u32 },
    /// The search is done with this node (postorder).
    Leave(u32),
}

/// A depth-first search from `root` over `succ`, without recursion, telling
/// `visit` each step ([`Dfs`]; the answer counts for edges only). `stack`
/// holds (node, next successor) pairs: room for two per node.
fn depth_first(root: u32, succ: Rows<'_>, stack: &mut [u32], mut visit: impl FnMut(Dfs) -> bool) {
    stack[0] = root;
    stack[1] = 0;
    let mut top = 1usize;
    while top > 0 {
        let k = 2 * (top - 1);
        let (v, i) = (stack[k], stack[k + 1]);
        if let Some(&w) = succ.of(v).get(i as usize) {
            stack[k + 1] += 1;
            if visit(Dfs::Edge { from: v, to: w }) {
                stack[2 * top] = w;
                stack[2 * top + 1] = 0;
                top += 1;
            }
        } else {
            visit(Dfs::Leave(v));
            top -= 1;
        }
    }
}

/// [`idom_into`] by the iterative algorithm of Cooper, Harvey and Kennedy ("A
/// Simple, Fast Dominance Algorithm", 2001): immediate dominators refined
/// over reverse postorder until they settle. Quadratic at worst, so only for
/// small graphs. `out` is all [`NONE`], of the graph's size; `root` is a node.
fn idom_small(root: u32, succ: Rows<'_>, pred: Rows<'_>, scratch: &mut Vec<u32>, out: &mut [u32]) {
    let n = out.len();
    // The postorder number of each node (NONE: not reached), the nodes in
    // postorder, and the search stack (node, next successor).
    scratch.clear();
    scratch.resize(4 * n, NONE);
    let (po, rest) = scratch.split_at_mut(n);
    let (post, stack) = rest.split_at_mut(n);
    let mut count = 0usize;
    // `po` marks a node on the stack with n until it is numbered.
    po[root as usize] = n as u32;
    depth_first(root, succ, stack, |step| match step {
        Dfs::Edge { to: w, .. } => {
            let new = (w as usize) < n && po[w as usize] == NONE;
            if new {
                po[w as usize] = n as u32;
            }
            new
        }
        Dfs::Leave(v) => {
            po[v as usize] = count as u32;
            post[count] = v;
            count += 1;
            false
        }
    });
    // `out` holds the dominators found so far (the root's is itself).
    out[root as usize] = root;
    let mut changed = true;
    while changed {
        changed = false;
        for &v in post[..count - 1].iter().rev() {
            let mut new = NONE;
            for &p in pred.of(v) {
                if (p as usize) >= n || po[p as usize] == NONE || out[p as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    // The nearest common dominator, walking up by postorder number.
                    let (mut a, mut b) = (p, new);
                    while a != b {
                        while po[a as usize] < po[b as usize] {
                            a = out[a as usize];
                        }
                        while po[b as usize] < po[a as usize] {
                            b = out[b as usize];
                        }
                    }
                    a
                };
            }
            if out[v as usize] != new {
                out[v as usize] = new;
                changed = true;
            }
        }
    }
    out[root as usize] = NONE;
}

/// Immediate dominators of every node of a graph, by Lengauer-Tarjan.
/// Returns `idom[v]`: [`NONE`] for the root and for nodes not reached from it.
pub fn immediate_dominators(n: usize, root: u32, succ: &Csr, pred: &Csr) -> Vec<u32> {
    let mut out = vec![NONE; n];
    idom_into(root, succ.rows(), pred.rows(), &mut Vec::new(), &mut out);
    out
}

/// [`immediate_dominators`] into `out` (all [`NONE`], one per node), its
/// work arrays in `scratch` (whose contents do not matter; reused from graph
/// to graph). The result does not depend on the order of the lists:
/// immediate dominators are unique.
fn idom_into(root: u32, succ: Rows<'_>, pred: Rows<'_>, scratch: &mut Vec<u32>, out: &mut [u32]) {
    let n = out.len();
    if root as usize >= n {
        return;
    }
    if n <= SMALL_GRAPH {
        idom_small(root, succ, pred, scratch, out);
        return;
    }
    // Depth-first numbering from 1 (0 means "not reached"). The numbers,
    // the vertex and parent of each number and the search stack (node, next
    // successor), then the six arrays of the second part and the path of
    // `eval`, in one buffer.
    let m = n + 1;
    scratch.clear();
    scratch.resize(n + 2 * m + 2 * n + 6 * m + n, 0);
    let (dfn, rest) = scratch.split_at_mut(n);
    let (vertex, rest) = rest.split_at_mut(m);
    let (parent, rest) = rest.split_at_mut(m);
    let (stack, rest) = rest.split_at_mut(2 * n);
    let (work, path) = rest.split_at_mut(6 * m);
    vertex[0] = NONE;
    dfn[root as usize] = 1;
    vertex[1] = root;
    let mut numbered = 2usize;
    depth_first(root, succ, stack, |step| match step {
        Dfs::Edge { from: v, to: w } => {
            let new = (w as usize) < n && dfn[w as usize] == 0;
            if new {
                dfn[w as usize] = numbered as u32;
                vertex[numbered] = w;
                parent[numbered] = dfn[v as usize];
                numbered += 1;
            }
            new
        }
        Dfs::Leave(_) => false,
    });
    let count = numbered - 1;
    // Everything below is in depth-first-number space.
    let m = count + 1;
    let (semi, rest) = work.split_at_mut(m);
    let (label, rest) = rest.split_at_mut(m);
    let (ancestor, rest) = rest.split_at_mut(m);
    let (idom, rest) = rest.split_at_mut(m);
    let (bucket_head, rest) = rest.split_at_mut(m);
    let bucket_next = &mut rest[..m];
    for k in 0..m {
        semi[k] = k as u32;
        label[k] = k as u32;
    }

    // eval with iterative path compression (the path is at most `count - 1` long).
    let eval =
        |v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut [u32]| -> u32 {
            if ancestor[v as usize] == 0 {
                return v;
            }
            let mut len = 0;
            let mut x = v;
            while ancestor[ancestor[x as usize] as usize] != 0 {
                path[len] = x;
                len += 1;
                x = ancestor[x as usize];
            }
            for &x in path[..len].iter().rev() {
                let a = ancestor[x as usize];
                if semi[label[a as usize] as usize] < semi[label[x as usize] as usize] {
                    label[x as usize] = label[a as usize];
                }
                ancestor[x as usize] = ancestor[a as usize];
            }
            label[v as usize]
        };

    for w in (2..=count as u32).rev() {
        let node = vertex[w as usize];
        for &p in pred.of(node) {
            let v = match dfn.get(p as usize) {
                Some(&d) if d != 0 => d,
                _ => continue,
            };
            let u = eval(v, ancestor, label, semi, path);
            if semi[u as usize] < semi[w as usize] {
                semi[w as usize] = semi[u as usize];
            }
        }
        let s = semi[w as usize] as usize;
        bucket_next[w as usize] = bucket_head[s];
        bucket_head[s] = w;
        let p = parent[w as usize];
        ancestor[w as usize] = p;
        let mut v = bucket_head[p as usize];
        bucket_head[p as usize] = 0;
        while v != 0 {
            let next = bucket_next[v as usize];
            let u = eval(v, ancestor, label, semi, path);
            idom[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                p
            };
            v = next;
        }
    }
    for w in 2..=count {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w] as usize];
        }
    }
    for w in 2..=count {
        out[vertex[w] as usize] = vertex[idom[w] as usize];
    }
}

/// A dominator tree (or a post-dominator tree: the dominator tree of the
/// reversed graph), numbered for O(1) ancestor queries.
///
/// A tree may have a *virtual* root (the joined exit of a post-dominator
/// tree): it is node `len()`, which is not a block; [`DomTree::idom`] never
/// returns it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "DomTreeParts", into = "DomTreeParts"))]
pub struct DomTree {
    /// The number of nodes, `n`.
    n: usize,
    /// In one buffer (one allocation per tree): the immediate dominator of
    /// each node ([`NONE`] for the root and nodes not in the tree), the
    /// preorder number of each node ([`NONE`] when not in the tree), the
    /// largest preorder number in each node's subtree (`n` words each), then
    /// the nodes in preorder.
    data: Vec<u32>,
    root: u32,
    /// Whether the root is a virtual node (index `n - 1`).
    virtual_root: bool,
}

/// A [`DomTree`] as it is serialised: its arrays one by one.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct DomTreeParts {
    idom: Vec<u32>,
    pre: Vec<u32>,
    last: Vec<u32>,
    order: Vec<u32>,
    root: u32,
    virtual_root: bool,
}

#[cfg(feature = "serde")]
impl From<DomTree> for DomTreeParts {
    fn from(t: DomTree) -> DomTreeParts {
        DomTreeParts {
            idom: t.idoms().to_vec(),
            pre: t.pre().to_vec(),
            last: t.last().to_vec(),
            order: t.preorder().to_vec(),
            root: t.root,
            virtual_root: t.virtual_root,
        }
    }
}

#[cfg(feature = "serde")]
impl From<DomTreeParts> for DomTree {
    fn from(p: DomTreeParts) -> DomTree {
        let n = p.idom.len();
        let mut data = p.idom;
        for mut part in [p.pre, p.last] {
            part.resize(n, NONE);
            data.extend(part);
        }
        data.extend(p.order);
        DomTree {
            n,
            data,
            root: p.root,
            virtual_root: p.virtual_root,
        }
    }
}

impl DomTree {
    /// The dominator tree of a graph of `n` nodes from `root`.
    pub fn build(n: usize, root: u32, succ: &Csr, pred: &Csr, virtual_root: bool) -> DomTree {
        DomTree::build_in(
            n,
            root,
            succ.rows(),
            pred.rows(),
            virtual_root,
            &mut Vec::new(),
        )
    }

    /// [`DomTree::build`] over borrowed lists, with the work arrays in `scratch`.
    pub(crate) fn build_in(
        n: usize,
        root: u32,
        succ: Rows<'_>,
        pred: Rows<'_>,
        virtual_root: bool,
        scratch: &mut Vec<u32>,
    ) -> DomTree {
        let mut data = Vec::with_capacity(4 * n);
        data.resize(n, NONE);
        idom_into(root, succ, pred, scratch, &mut data);
        DomTree::from_idom_in(data, root, virtual_root, scratch)
    }

    /// Number a tree given by immediate dominators.
    pub fn from_idom(idom: Vec<u32>, root: u32, virtual_root: bool) -> DomTree {
        DomTree::from_idom_in(idom, root, virtual_root, &mut Vec::new())
    }

    /// [`DomTree::from_idom`], with the work arrays in `scratch`; `data`
    /// holds the immediate dominators.
    fn from_idom_in(
        mut data: Vec<u32>,
        root: u32,
        virtual_root: bool,
        scratch: &mut Vec<u32>,
    ) -> DomTree {
        let n = data.len();
        // The preorder numbers and subtree ends, then the preorder.
        data.resize(3 * n, NONE);
        let (pre, last) = (n, 2 * n);
        if (root as usize) < n {
            // Each node's children as a linked list (`head`, `next`;
            // prepended in increasing order, so a list runs from the largest
            // child down), then the DFS stack.
            scratch.clear();
            scratch.resize(3 * n, NONE);
            let (head, rest) = scratch.split_at_mut(n);
            let (next, stack) = rest.split_at_mut(n);
            for (v, &d) in data[..n].iter().enumerate() {
                if d != NONE && (d as usize) < n {
                    next[v] = head[d as usize];
                    head[d as usize] = v as u32;
                }
            }
            // Preorder, children in increasing order (the largest pushed first).
            stack[0] = root;
            let mut top = 1usize;
            while top > 0 {
                top -= 1;
                let v = stack[top];
                data[pre + v as usize] = (data.len() - 3 * n) as u32;
                data.push(v);
                let mut c = head[v as usize];
                while c != NONE {
                    stack[top] = c;
                    top += 1;
                    c = next[c as usize];
                }
            }
            // Subtree sizes, in `head`'s room.
            let size = head;
            size.fill(1);
            for k in (3 * n..data.len()).rev() {
                let v = data[k] as usize;
                let d = data[v];
                if d != NONE {
                    size[d as usize] += size[v];
                }
                data[last + v] = data[pre + v] + size[v] - 1;
            }
        }
        DomTree {
            n,
            data,
            root,
            virtual_root,
        }
    }

    /// The immediate dominator of each node.
    fn idoms(&self) -> &[u32] {
        &self.data[..self.n]
    }

    /// The preorder number of each node.
    fn pre(&self) -> &[u32] {
        &self.data[self.n..2 * self.n]
    }

    /// The largest preorder number in each node's subtree.
    fn last(&self) -> &[u32] {
        &self.data[2 * self.n..3 * self.n]
    }

    /// The number of block nodes (the virtual root excluded).
    pub fn len(&self) -> usize {
        self.n - usize::from(self.virtual_root)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn is_block(&self, v: u32) -> bool {
        (v as usize) < self.len()
    }

    /// Whether the block is in the tree (reached from the root).
    pub fn contains(&self, v: u32) -> bool {
        self.is_block(v) && self.pre()[v as usize] != NONE
    }

    /// The immediate dominator of a block: `None` for the root, for a block
    /// whose immediate dominator is the virtual root, and for blocks not in the tree.
    pub fn idom(&self, v: u32) -> Option<u32> {
        if !self.is_block(v) {
            return None;
        }
        let d = self.idoms()[v as usize];
        (d != NONE && self.is_block(d)).then_some(d)
    }

    /// `a` dominates `b`: `a == b` (always, even outside the tree), or both are
    /// in the tree and `a` is an ancestor of `b`.
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        a == b || (self.contains(a) && self.contains(b) && self.in_subtree(a, b))
    }

    /// `a` dominates `b` and `a != b`.
    pub fn strictly_dominates(&self, a: u32, b: u32) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Both in the tree and `b` in `a`'s subtree (no reflexive shortcut).
    pub(crate) fn in_subtree(&self, a: u32, b: u32) -> bool {
        let pre = self.pre();
        match (pre.get(a as usize), pre.get(b as usize)) {
            (Some(&pa), Some(&pb)) if pa != NONE && pb != NONE => {
                pa <= pb && pb <= self.last()[a as usize]
            }
            _ => false,
        }
    }

    /// The tree's root block (`None` when the root is virtual or the graph is empty).
    pub fn root(&self) -> Option<u32> {
        (!self.virtual_root && self.is_block(self.root)).then_some(self.root)
    }

    /// The tree's nodes in preorder (the virtual root, if any, included first).
    pub fn preorder(&self) -> &[u32] {
        self.data.get(3 * self.n..).unwrap_or(&[])
    }

    /// The preorder range `[first, last]` of a node's subtree.
    pub(crate) fn range(&self, v: u32) -> Option<(u32, u32)> {
        let p = *self.pre().get(v as usize)?;
        (p != NONE).then(|| (p, self.last()[v as usize]))
    }

    /// The nodes dominated by `v` (its subtree), in preorder.
    pub fn subtree(&self, v: u32) -> &[u32] {
        match self.range(v) {
            Some((a, b)) => &self.preorder()[a as usize..=b as usize],
            None => &[],
        }
    }

    /// The depth of a block in the tree (the root block, or a child of the
    /// virtual root, has depth 0), walking up: O(depth).
    pub fn depth(&self, v: u32) -> Option<u32> {
        if !self.contains(v) {
            return None;
        }
        let mut d = 0;
        let mut x = v;
        let idom = self.idoms();
        while idom[x as usize] != NONE {
            x = idom[x as usize];
            d += 1;
        }
        // The virtual root is not counted.
        Some(d - u32::from(self.virtual_root))
    }
}
