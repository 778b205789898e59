//! Choosing a path through a skeleton, as the paper's section 6.1 does: a
//! random walk over branch edges from the entry until a block that leaves
//! the function, or, past the length bound, the shortest route to one.
//! Blocks that cannot reach such a block are never entered, so every path
//! ends. The path comes with the directions that force it: for each
//! conditional branch taken, 1 for the true target and 0 for the false one;
//! for each `OpSwitch`, the index of the case taken in operand order (the
//! fleshed program numbers its literals 0, 1, ...), or the number of cases
//! for the default.

use super::rng::Rng;
use super::skeleton::{Label, Skeleton, Term};
use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// A path and the directions that force it.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// The labels of the blocks visited, in order; the last leaves the function.
    pub blocks: Vec<Label>,
    /// One per conditional branch or switch executed, in order.
    pub directions: Vec<u32>,
}

/// Per block: the fewest branch edges to a block that leaves the function
/// (`None`: it cannot reach one).
pub fn distance_to_exit(s: &Skeleton) -> Vec<Option<u32>> {
    let n = s.blocks.len();
    let mut preds: Vec<Vec<usize>> = alloc::vec![Vec::new(); n];
    for (i, b) in s.blocks.iter().enumerate() {
        for t in b.term.targets() {
            if let Some(j) = s.position(t) {
                preds[j].push(i);
            }
        }
    }
    let mut dist = alloc::vec![None; n];
    let mut queue = VecDeque::new();
    for (i, b) in s.blocks.iter().enumerate() {
        if b.term == Term::Return {
            dist[i] = Some(0);
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let d = dist[i].unwrap_or(0) + 1;
        for &p in &preds[i] {
            if dist[p].is_none() {
                dist[p] = Some(d);
                queue.push_back(p);
            }
        }
    }
    dist
}

/// A random path from the entry of `s`, walking at random for up to
/// `max_len` blocks and then by the shortest route. `None` when the entry
/// cannot reach a block that leaves the function.
pub fn choose(s: &Skeleton, rng: &mut Rng, max_len: usize) -> Option<Path> {
    let dist = distance_to_exit(s);
    dist.first().copied().flatten()?;
    let mut cur = 0usize;
    let mut path = Path { blocks: Vec::new(), directions: Vec::new() };
    loop {
        let b = &s.blocks[cur];
        path.blocks.push(b.label);
        if b.term == Term::Return {
            return Some(path);
        }
        // The targets that can still reach an exit, as (position, distance).
        let live: Vec<(usize, u32)> =
            b.term.targets().into_iter().filter_map(|t| s.position(t).and_then(|j| dist[j].map(|d| (j, d)))).collect();
        let (next, _) = if path.blocks.len() < max_len {
            live[rng.below(live.len())]
        } else {
            live.iter().copied().min_by_key(|&(_, d)| d)?
        };
        let to = s.blocks[next].label;
        if let Some(d) = direction(&b.term, to, rng) {
            path.directions.push(d);
        }
        cur = next;
    }
}

/// The direction that takes `term` to `to` (`None` for a plain branch):
/// ties (two ways to the same block) are broken by `rng`.
fn direction(term: &Term, to: Label, rng: &mut Rng) -> Option<u32> {
    match term {
        Term::Cond(_, t, f) => Some(match (*t == to, *f == to) {
            (true, true) => rng.below(2) as u32,
            (true, false) => 1,
            _ => 0,
        }),
        Term::Switch(_, default, cases) => {
            let mut ways: Vec<u32> =
                cases.iter().enumerate().filter(|(_, c)| c.1 == to).map(|(k, _)| k as u32).collect();
            if *default == to {
                ways.push(cases.len() as u32);
            }
            Some(ways[rng.below(ways.len())])
        }
        _ => None,
    }
}

/// The path of `s` that follows `old` (labels, from the entry) for as long
/// as each next block of it is a successor of the block before, then takes
/// the shortest route to a return; the blocks of `old` that `s` no longer
/// has are skipped. `None` when the entry cannot reach a return.
pub fn follow(s: &Skeleton, old: &[Label]) -> Option<Path> {
    let dist = distance_to_exit(s);
    dist.first().copied().flatten()?;
    let old: Vec<Label> = old.iter().copied().filter(|&l| s.position(l).is_some()).collect();
    // Ties never occur on a followed path's choices; a fixed generator
    // breaks those of the shortest route the same way every time.
    let mut rng = Rng::new(0);
    let mut cur = 0usize;
    let mut k = 1usize;
    let mut path = Path { blocks: Vec::new(), directions: Vec::new() };
    let mut on_old = old.first() == Some(&s.blocks[0].label);
    loop {
        let b = &s.blocks[cur];
        path.blocks.push(b.label);
        if b.term == Term::Return {
            return Some(path);
        }
        let targets = b.term.targets();
        let live = |t: &Label| s.position(*t).is_some_and(|j| dist[j].is_some());
        let next = match old.get(k) {
            Some(t) if on_old && targets.contains(t) && live(t) => {
                k += 1;
                *t
            }
            _ => {
                on_old = false;
                *targets.iter().filter(|t| live(t)).min_by_key(|t| dist[s.position(**t).unwrap_or(0)])?
            }
        };
        if let Some(d) = direction(&b.term, next, &mut rng) {
            path.directions.push(d);
        }
        cur = s.position(next)?;
        if path.blocks.len() > old.len() + s.blocks.len() {
            // Following `old` through a changed graph cannot loop for ever:
            // the shortest route takes over.
            on_old = false;
        }
    }
}
