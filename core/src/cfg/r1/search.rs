//! The two depth-first searches that define back edges.
//!
//! * SPIR-V 1.6r1 (section 2.2.5): "a branch is a back edge if there is a
//!   depth-first search starting at the entry block of the CFG where the
//!   branch branches to one of its ancestors". The search follows branch
//!   edges only, so it never enters a block that branch edges do not reach
//!   from the entry: such blocks have no back edges (Klimis et al., POPL
//!   2023, section 3.3, Fig. 5).
//! * SPIR-V 1.6r2: the search follows all structured edges (merge, continue
//!   and branch edges); a back edge is still a branch edge. This is the search
//!   of [`FunctionCfg::back_edge_pairs`]; [`FunctionCfg::back_edge_search_path`]
//!   replays it to show *why* an edge is a back edge.
//!
//! Both searches visit a block's edges in the order of
//! [`FunctionCfg::out_edges`] (merge, continue, then branch edges in operand
//! order). SPIR-V control-flow graphs of valid modules are reducible, so every
//! depth-first search finds the same back edges there; on other graphs the
//! answer is the one of this order.

use super::super::{EdgeKind, FunctionCfg};
use alloc::vec;
use alloc::vec::Vec;

/// One block on a search path, and the kind of edge the search took to reach
/// it (`None` for the block the search started from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SearchStep {
    pub block: u32,
    pub via: Option<EdgeKind>,
}

/// A depth-first search from `roots`, over branch edges only or over all
/// structured edges. `hit` is called for each edge that meets a block on the
/// stack, with the stack (root first, the edge's source last); it returns
/// `true` to stop the search.
fn search(
    f: &FunctionCfg,
    roots: &[u32],
    branch_only: bool,
    mut hit: impl FnMut(&[SearchStep], u32) -> bool,
) {
    let n = f.blocks.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut path: Vec<SearchStep> = Vec::new();
    let mut cursor: Vec<usize> = Vec::new();
    for &r in roots {
        if (r as usize) >= n || state[r as usize] != 0 {
            continue;
        }
        state[r as usize] = 1;
        path.push(SearchStep { block: r, via: None });
        cursor.push(0);
        while let (Some(step), Some(i)) = (path.last().copied(), cursor.last_mut()) {
            let v = step.block;
            let Some(e) = f.out_edges(v).get(*i) else {
                state[v as usize] = 2;
                path.pop();
                cursor.pop();
                continue;
            };
            *i += 1;
            if branch_only && e.kind != EdgeKind::Branch {
                continue;
            }
            match state[e.to as usize] {
                0 => {
                    state[e.to as usize] = 1;
                    path.push(SearchStep { block: e.to, via: Some(e.kind) });
                    cursor.push(0);
                }
                1 if e.kind == EdgeKind::Branch && hit(&path, e.to) => return,
                _ => {}
            }
        }
    }
}

impl FunctionCfg {
    /// The back edges under SPIR-V 1.6r1: the branch edges that a depth-first
    /// search over branch edges from the entry block finds going to a block on
    /// its stack, as distinct (source, target) pairs in the order found.
    pub fn r1_back_edges(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        if self.blocks.is_empty() {
            return out;
        }
        search(self, &[0], true, |path, to| {
            if let Some(s) = path.last()
                && !out.contains(&(s.block, to))
            {
                out.push((s.block, to));
            }
            false
        });
        out
    }

    /// Why the branch `from -> to` is a back edge under SPIR-V 1.6r2: the
    /// stack of the structural depth-first search (the search of
    /// [`FunctionCfg::back_edge_pairs`], replayed) when it meets that branch,
    /// from the block it started at to `from`; `to` is on it. `None` when the
    /// search does not find that back edge.
    pub fn back_edge_search_path(&self, from: u32, to: u32) -> Option<Vec<SearchStep>> {
        let roots = self.search_roots();
        let mut found = None;
        search(self, &roots, false, |path, t| {
            if t == to && path.last().is_some_and(|s| s.block == from) {
                found = Some(path.to_vec());
                return true;
            }
            false
        });
        found
    }
}
