//! Graphviz DOT for one function's control-flow graph, drawn from the control-flow
//! analysis itself ([`cfg::FunctionCfg`]), with names and instruction text from
//! [`Labels`] (the analysis's disassembly).
//!
//! * nodes `b<label id>`, labelled with the block's name or its listing;
//! * branch edges solid, merge edges dashed, continue edges dotted, back edges
//!   bold with a `back` label; entry blocks drawn as `house`, exit blocks as
//!   `invhouse` (an entry that is also an exit: `doubleoctagon`);
//! * constructs as nested clusters labelled `loop %header`;
//! * dominator tree overlay as grey `constraint=false` edges;
//! * every element has a stable `id` and `class` (Graphviz copies both into SVG):
//!   `block-12` / `block entry`, `edge-12-15-merge` / `edge merge`,
//!   `construct-3` / `construct loop`, `dom-12-15` / `dom regular`.
//!
//! Names are untrusted text: they only ever appear inside DOT quoted strings,
//! escaped (`"`, `\`, newlines, and `&` so Graphviz does not read entities),
//! never in ids and never in HTML-like labels.

use super::Disassembly;
use crate::cfg::{self, EdgeKind, FunctionCfg};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

/// Which dominator tree to overlay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Dominators {
    #[default]
    None,
    Regular,
    Structural,
}

/// Options of the drawing (`DotOptions` of `www/src/api.ts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase", default))]
pub struct DotOptions {
    /// Label blocks with their instruction listing rather than their name.
    pub listing: bool,
    /// Draw constructs as clusters.
    pub constructs: bool,
    pub dominators: Dominators,
    /// Leave out blocks that are not structurally reachable.
    pub hide_unreachable: bool,
    /// The selected block (label id), highlighted with the constructs holding it.
    pub selected: Option<u32>,
}

impl Default for DotOptions {
    fn default() -> Self {
        DotOptions { listing: false, constructs: true, dominators: Dominators::None, hide_unreachable: false, selected: None }
    }
}

/// Append `s` escaped for the inside of a DOT quoted string used as a label.
pub fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '&' => out.push_str("&amp;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// `s` escaped for a DOT quoted string.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    escape_into(&mut out, s);
    out
}

/// What a drawing needs beyond the CFG: names, and the text of instructions.
pub trait Labels {
    /// The name of a block or function id, without `%`.
    fn name(&self, id: u32) -> String;
    /// The text of instruction `i` (an index into the module's instructions).
    fn inst(&self, i: usize) -> &str;
}

impl Labels for Disassembly {
    fn name(&self, id: u32) -> String {
        Disassembly::name(self, id)
    }
    fn inst(&self, i: usize) -> &str {
        Disassembly::inst(self, i)
    }
}

/// The DOT text of one function.
pub fn to_dot(f: &FunctionCfg, labels: &impl Labels, opts: &DotOptions) -> String {
    let mut out = String::with_capacity(256 + f.blocks.len() * 96 + f.edges.len() * 64);
    let n = f.blocks.len();
    let shown: Vec<bool> = (0..n as u32).map(|b| !opts.hide_unreachable || f.is_structurally_reachable(b)).collect();
    let is_shown = |b: u32| shown.get(b as usize).copied().unwrap_or(false);
    let label = |b: u32| f.blocks.get(b as usize).map_or(0, |x| x.label);
    let constructs = f.constructs();

    // The constructs holding the selected block.
    let mut selected_constructs = vec![false; constructs.len()];
    if let Some(b) = opts.selected.and_then(|sel| f.block_of(sel)) {
        let mut c = f.innermost_construct(b);
        let mut guard = 0;
        while let Some(ci) = c
            && guard <= constructs.len()
        {
            if let Some(slot) = selected_constructs.get_mut(ci as usize) {
                *slot = true;
            }
            c = constructs.get(ci as usize).and_then(|k| k.parent);
            guard += 1;
        }
    }

    let _ = writeln!(out, "digraph cfg {{");
    let _ = writeln!(out, "  graph [id=\"function-{}\" class=\"cfg\" compound=true];", f.id);
    let _ = writeln!(out, "  node [shape=box fontname=\"monospace\" fontsize=10];");
    let _ = writeln!(out, "  edge [fontname=\"monospace\" fontsize=9];");

    // Which cluster each block goes into: its innermost construct.
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); constructs.len()];
    let mut roots: Vec<u32> = Vec::new();
    for (ci, c) in constructs.iter().enumerate() {
        match c.parent.filter(|&p| (p as usize) < constructs.len() && p as usize != ci) {
            Some(p) => children[p as usize].push(ci as u32),
            None => roots.push(ci as u32),
        }
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); constructs.len()];
    let mut top: Vec<u32> = Vec::new();
    for b in 0..n as u32 {
        if !is_shown(b) {
            continue;
        }
        match f.innermost_construct(b).filter(|&c| opts.constructs && (c as usize) < constructs.len()) {
            Some(c) => members[c as usize].push(b),
            None => top.push(b),
        }
    }
    for &b in &top {
        node(&mut out, f, labels, b, opts, 1);
    }
    if opts.constructs {
        // Iterative depth-first walk of the construct tree (no recursion).
        let mut emitted = vec![false; constructs.len()];
        let mut stack: Vec<(u32, bool)> = roots.iter().rev().map(|&c| (c, false)).collect();
        while let Some((ci, closing)) = stack.pop() {
            let depth = stack.iter().filter(|(_, cl)| *cl).count() + 1;
            let pad = "  ".repeat(depth);
            if closing {
                let _ = writeln!(out, "{pad}}}");
                continue;
            }
            if core::mem::replace(&mut emitted[ci as usize], true) {
                continue;
            }
            let c = &constructs[ci as usize];
            let kind = c.kind.name();
            let sel = selected_constructs[ci as usize];
            let header_name = labels.name(super::report::construct_label(f, c));
            let _ = write!(
                out,
                "{pad}subgraph cluster_c{ci} {{\n{pad}  id=\"construct-{ci}\";\n{pad}  class=\"construct {kind}{}\";\n{pad}  label=\"{kind} %",
                if sel { " selected" } else { "" }
            );
            escape_into(&mut out, &header_name);
            let _ = writeln!(out, "\";");
            let _ = writeln!(
                out,
                "{pad}  style=\"rounded{}\"; color=\"{}\"; penwidth={};",
                if sel { ",filled" } else { "" },
                construct_color(c.kind),
                if sel { 2 } else { 1 }
            );
            if sel {
                let _ = writeln!(out, "{pad}  fillcolor=\"#fff8d0\";");
            }
            for &b in &members[ci as usize] {
                node(&mut out, f, labels, b, opts, depth + 1);
            }
            stack.push((ci, true));
            for &k in children[ci as usize].iter().rev() {
                stack.push((k, false));
            }
        }
    }

    // Blocks of constructs the tree walk did not reach (a malformed tree).
    let reached = reached_constructs(constructs.len(), &roots, &children);
    for (ci, m) in members.iter().enumerate() {
        if opts.constructs && !reached[ci] {
            for &b in m {
                node(&mut out, f, labels, b, opts, 1);
            }
        }
    }

    // Edges, with ids made unique by a counter for repeated (from, to, kind).
    let mut seen: Vec<(u32, u32, EdgeKind, u32)> = Vec::new();
    for (k, e) in f.edges.iter().enumerate() {
        if !is_shown(e.from) || !is_shown(e.to) {
            continue;
        }
        let (from, to) = (label(e.from), label(e.to));
        let n = match seen.iter_mut().find(|s| s.0 == from && s.1 == to && s.2 == e.kind) {
            Some(s) => {
                s.3 += 1;
                s.3
            }
            None => {
                seen.push((from, to, e.kind, 1));
                1
            }
        };
        let back = f.is_back_edge(k);
        let kind = e.kind.name();
        let _ = write!(out, "  b{from} -> b{to} [id=\"edge-{from}-{to}-{kind}");
        if n > 1 {
            let _ = write!(out, "-{n}");
        }
        let _ = write!(out, "\" class=\"edge {kind}{}\"", if back { " back" } else { "" });
        match e.kind {
            EdgeKind::Branch => {}
            EdgeKind::Merge => out.push_str(" style=dashed color=\"#1f6fb2\""),
            EdgeKind::Continue => out.push_str(" style=dotted color=\"#7a3fb0\""),
        }
        if back {
            out.push_str(" style=bold label=\"back\" color=\"#c0392b\"");
        }
        out.push_str("];\n");
    }

    // Dominator overlay.
    if opts.dominators != Dominators::None {
        let structural = opts.dominators == Dominators::Structural;
        let class = if structural { "structural" } else { "regular" };
        let tree = if structural { &f.sdom } else { &f.dom };
        for b in 0..n as u32 {
            if let Some(d) = tree.idom(b)
                && is_shown(d)
                && is_shown(b)
            {
                let (d, b) = (label(d), label(b));
                let _ = writeln!(
                    out,
                    "  b{d} -> b{b} [id=\"dom-{d}-{b}\" class=\"dom {class}\" color=\"#999999\" style=dashed arrowhead=empty constraint=false];"
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

/// The constructs reached from the roots through `children`.
fn reached_constructs(n: usize, roots: &[u32], children: &[Vec<u32>]) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack: Vec<u32> = roots.to_vec();
    while let Some(c) = stack.pop() {
        let Some(slot) = seen.get_mut(c as usize) else { continue };
        if core::mem::replace(slot, true) {
            continue;
        }
        stack.extend(children.get(c as usize).into_iter().flatten());
    }
    seen
}

fn construct_color(kind: cfg::ConstructKind) -> &'static str {
    match kind {
        cfg::ConstructKind::Loop => "#2e8b57",
        cfg::ConstructKind::Continue => "#7a3fb0",
        cfg::ConstructKind::Switch => "#b8860b",
        cfg::ConstructKind::Case => "#cd853f",
        cfg::ConstructKind::Selection => "#1f6fb2",
    }
}

fn node(out: &mut String, f: &FunctionCfg, labels: &impl Labels, b: u32, opts: &DotOptions, depth: usize) {
    let Some(blk) = f.blocks.get(b as usize) else { return };
    let id = blk.label;
    let (entry, exit, reachable) = (b == 0, blk.is_exit(), f.is_structurally_reachable(b));
    let pad = "  ".repeat(depth);
    let mut class = String::from("block");
    if entry {
        class.push_str(" entry");
    }
    if exit {
        class.push_str(" exit");
    }
    if !reachable {
        class.push_str(" unreachable");
    }
    let selected = opts.selected == Some(id);
    if selected {
        class.push_str(" selected");
    }
    let _ = write!(out, "{pad}b{id} [id=\"block-{id}\" class=\"{class}\" label=\"");
    if opts.listing && blk.end > blk.start {
        for i in blk.start..blk.end {
            escape_into(out, labels.inst(i as usize));
            out.push_str("\\l");
        }
    } else {
        out.push('%');
        escape_into(out, &labels.name(id));
    }
    out.push('"');
    let shape = match (entry, exit) {
        (true, true) => Some("doubleoctagon"),
        (true, false) => Some("house"),
        (false, true) => Some("invhouse"),
        _ => None,
    };
    if let Some(s) = shape {
        let _ = write!(out, " shape={s}");
    }
    if !reachable {
        out.push_str(" style=dashed fontcolor=\"#888888\" color=\"#888888\"");
    }
    if selected {
        out.push_str(" penwidth=3 color=\"#d35400\"");
    }
    out.push_str("];\n");
}

#[cfg(test)]
mod tests;
