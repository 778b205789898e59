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

    /// The reversed graph (neighbour order: by source, then insertion order).
    pub fn reversed(&self) -> Csr {
        // A counting sort by target, sources in increasing order: the same
        // lists as `from_pairs` over the (target, source) pairs in source order.
        let n = self.len();
        let mut start = vec![0u32; n + 1];
        for &w in &self.adj {
            if (w as usize) < n {
                start[w as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start[..n].to_vec();
        let mut adj = vec![0u32; start[n] as usize];
        for v in 0..n {
            for &w in self.of(v as u32) {
                if (w as usize) < n {
                    let slot = &mut fill[w as usize];
                    adj[*slot as usize] = v as u32;
                    *slot += 1;
                }
            }
        }
        Csr { start, adj }
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

/// Immediate dominators of every node of a graph, by Lengauer-Tarjan.
/// Returns `idom[v]`: [`NONE`] for the root and for nodes not reached from it.
pub fn immediate_dominators(n: usize, root: u32, succ: &Csr, pred: &Csr) -> Vec<u32> {
    let mut out = vec![NONE; n];
    if root as usize >= n {
        return out;
    }
    // Depth-first numbering from 1 (0 means "not reached"). The numbers,
    // the vertex and parent of each number and the search stack (node, next
    // successor) in one allocation.
    let mut scratch = vec![0u32; n + 2 * (n + 1) + 2 * n];
    let (dfn, rest) = scratch.split_at_mut(n);
    let (vertex, rest) = rest.split_at_mut(n + 1);
    let (parent, stack) = rest.split_at_mut(n + 1);
    vertex[0] = NONE;
    dfn[root as usize] = 1;
    vertex[1] = root;
    let mut numbered = 2usize;
    stack[0] = root;
    let mut top = 1usize;
    while top > 0 {
        let k = 2 * (top - 1);
        let (v, i) = (stack[k], stack[k + 1]);
        if let Some(&w) = succ.of(v).get(i as usize) {
            stack[k + 1] += 1;
            if (w as usize) < n && dfn[w as usize] == 0 {
                dfn[w as usize] = numbered as u32;
                vertex[numbered] = w;
                parent[numbered] = dfn[v as usize];
                numbered += 1;
                stack[2 * top] = w;
                stack[2 * top + 1] = 0;
                top += 1;
            }
        } else {
            top -= 1;
        }
    }
    let count = numbered - 1;
    // Everything below is in depth-first-number space.
    // The six arrays in one allocation.
    let m = count + 1;
    let mut work = vec![0u32; 6 * m];
    let (semi, rest) = work.split_at_mut(m);
    let (label, rest) = rest.split_at_mut(m);
    let (ancestor, rest) = rest.split_at_mut(m);
    let (idom, rest) = rest.split_at_mut(m);
    let (bucket_head, bucket_next) = rest.split_at_mut(m);
    for k in 0..m {
        semi[k] = k as u32;
        label[k] = k as u32;
    }
    let mut path: Vec<u32> = Vec::new();

    // eval with iterative path compression.
    let eval = |v: u32,
                ancestor: &mut [u32],
                label: &mut [u32],
                semi: &[u32],
                path: &mut Vec<u32>|
     -> u32 {
        if ancestor[v as usize] == 0 {
            return v;
        }
        path.clear();
        let mut x = v;
        while ancestor[ancestor[x as usize] as usize] != 0 {
            path.push(x);
            x = ancestor[x as usize];
        }
        for &x in path.iter().rev() {
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
            let u = eval(v, ancestor, label, semi, &mut path);
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
            let u = eval(v, ancestor, label, semi, &mut path);
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
    out
}

/// A dominator tree (or a post-dominator tree: the dominator tree of the
/// reversed graph), numbered for O(1) ancestor queries.
///
/// A tree may have a *virtual* root (the joined exit of a post-dominator
/// tree): it is node `len()`, which is not a block; [`DomTree::idom`] never
/// returns it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DomTree {
    /// Immediate dominator of each node ([`NONE`] for the root and nodes not in the tree).
    idom: Vec<u32>,
    /// Preorder number of each node ([`NONE`] when not in the tree).
    pre: Vec<u32>,
    /// The largest preorder number in each node's subtree.
    last: Vec<u32>,
    /// The nodes in preorder.
    order: Vec<u32>,
    root: u32,
    /// Whether the root is a virtual node (index `idom.len() - 1`).
    virtual_root: bool,
}

impl DomTree {
    /// The dominator tree of a graph of `n` nodes from `root`.
    pub fn build(n: usize, root: u32, succ: &Csr, pred: &Csr, virtual_root: bool) -> DomTree {
        let idom = immediate_dominators(n, root, succ, pred);
        DomTree::from_idom(idom, root, virtual_root)
    }

    /// Number a tree given by immediate dominators.
    pub fn from_idom(idom: Vec<u32>, root: u32, virtual_root: bool) -> DomTree {
        let n = idom.len();
        let mut pre = vec![NONE; n];
        let mut last = vec![NONE; n];
        let mut order = Vec::with_capacity(n);
        if (root as usize) < n {
            // One scratch allocation: each node's children as a linked list
            // (`head`, `next`; prepended in increasing order, so a list runs
            // from the largest child down), then the DFS stack.
            let mut scratch = vec![NONE; 3 * n];
            let (head, rest) = scratch.split_at_mut(n);
            let (next, stack) = rest.split_at_mut(n);
            for (v, &d) in idom.iter().enumerate() {
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
                pre[v as usize] = order.len() as u32;
                order.push(v);
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
            for &v in order.iter().rev() {
                let d = idom[v as usize];
                if d != NONE {
                    size[d as usize] += size[v as usize];
                }
                last[v as usize] = pre[v as usize] + size[v as usize] - 1;
            }
        }
        DomTree {
            idom,
            pre,
            last,
            order,
            root,
            virtual_root,
        }
    }

    /// The number of block nodes (the virtual root excluded).
    pub fn len(&self) -> usize {
        self.idom.len() - usize::from(self.virtual_root)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn is_block(&self, v: u32) -> bool {
        (v as usize) < self.len()
    }

    /// Whether the block is in the tree (reached from the root).
    pub fn contains(&self, v: u32) -> bool {
        self.is_block(v) && self.pre[v as usize] != NONE
    }

    /// The immediate dominator of a block: `None` for the root, for a block
    /// whose immediate dominator is the virtual root, and for blocks not in the tree.
    pub fn idom(&self, v: u32) -> Option<u32> {
        if !self.is_block(v) {
            return None;
        }
        let d = self.idom[v as usize];
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
        match (self.pre.get(a as usize), self.pre.get(b as usize)) {
            (Some(&pa), Some(&pb)) if pa != NONE && pb != NONE => {
                pa <= pb && pb <= self.last[a as usize]
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
        &self.order
    }

    /// The preorder range `[first, last]` of a node's subtree.
    pub(crate) fn range(&self, v: u32) -> Option<(u32, u32)> {
        let p = *self.pre.get(v as usize)?;
        (p != NONE).then(|| (p, self.last[v as usize]))
    }

    /// The nodes dominated by `v` (its subtree), in preorder.
    pub fn subtree(&self, v: u32) -> &[u32] {
        match self.range(v) {
            Some((a, b)) => &self.order[a as usize..=b as usize],
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
        while self.idom[x as usize] != NONE {
            x = self.idom[x as usize];
            d += 1;
        }
        // The virtual root is not counted.
        Some(d - u32::from(self.virtual_root))
    }
}
