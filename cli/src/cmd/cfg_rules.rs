//! `spvlab cfg --rules 1.6r1|1.6r2`: a function's constructs, back edges and
//! section 2.11 verdict under one revision of SPIR-V 1.6's structured control
//! flow (`spvlab_core::cfg::r1`), as text:
//!
//! ```text
//! ; function %main, SPIR-V 1.6r1 (regular dominance)
//! back edges: %7 -> %2
//! loop %2 (merge %8, continue target %7, back-edge block %7): %2 %3 %4 %5 %6
//! continue %7 (loop %2, back-edge block %7): %7
//! selection %3 (merge %6): %3 %4 %5
//! verdict: valid
//! ```

use spvlab_core::analysis::Analysis;
use spvlab_core::cfg::{ConstructKind, Revision, Violation};
use std::fmt::Write;

pub fn listing(a: &Analysis, fi: usize, r: Revision) -> String {
    let f = &a.cfg().functions[fi];
    let view = f.revision(r);
    let n = |b: u32| format!("%{}", a.display_name(f.blocks.get(b as usize).map_or(0, |x| x.label)));
    let mut out = String::new();
    let how = match r {
        Revision::V1_6R1 => "regular dominance",
        Revision::V1_6R2 => "structural dominance",
    };
    let _ = writeln!(out, "; function %{}, SPIR-V {} ({how})", a.display_name(f.id), r.name());
    let back: Vec<String> = view.back_edges.iter().map(|&(x, y)| format!("{} -> {}", n(x), n(y))).collect();
    let _ = writeln!(out, "back edges: {}", if back.is_empty() { "none".into() } else { back.join(", ") });
    let mut order: Vec<usize> = (0..view.constructs.len()).collect();
    order.sort_by_key(|&i| {
        let c = &view.constructs[i];
        (c.header, c.kind != ConstructKind::Loop && c.kind != ConstructKind::Selection && c.kind != ConstructKind::Switch, c.entry)
    });
    for i in order {
        let c = &view.constructs[i];
        let mut about: Vec<String> = Vec::new();
        match c.kind {
            ConstructKind::Continue => about.push(format!("loop {}", n(c.header))),
            ConstructKind::Case => about.push(format!("switch {}", n(c.header))),
            _ => {}
        }
        if c.kind != ConstructKind::Continue && c.kind != ConstructKind::Case {
            if let Some(m) = c.merge {
                about.push(format!("merge {}", n(m)));
            }
            if let Some(ct) = c.continue_target {
                about.push(format!("continue target {}", n(ct)));
            }
        }
        if matches!(c.kind, ConstructKind::Loop | ConstructKind::Continue) {
            about.push(match c.back_edge_block {
                Some(b) => format!("back-edge block {}", n(b)),
                None => "no back-edge block".into(),
            });
        }
        let blocks: Vec<String> = c.blocks.iter().map(|&b| n(b)).collect();
        let _ = writeln!(
            out,
            "{} {} ({}): {}",
            c.kind.name(),
            n(c.entry),
            about.join(", "),
            if blocks.is_empty() { "(no blocks)".into() } else { blocks.join(" ") }
        );
    }
    if view.is_valid() {
        let _ = writeln!(out, "verdict: valid");
    } else {
        let _ = writeln!(out, "verdict: invalid");
        for v in &view.violations {
            let _ = writeln!(out, "  {}", violation(r, v, &n));
        }
    }
    out
}

fn violation(r: Revision, v: &Violation, n: &dyn Fn(u32) -> String) -> String {
    let s = if r == Revision::V1_6R2 { "structurally " } else { "" };
    match *v {
        Violation::BackEdgeNotToLoopHeader { from, to } => {
            format!("the back edge {} -> {} does not branch to a loop header", n(from), n(to))
        }
        Violation::BackEdgeCount { header, count } => {
            format!("the loop header {} is the target of {count} back-edge blocks, not exactly one", n(header))
        }
        Violation::MergeNotDominated { header, merge } => {
            format!("the header {} does not strictly {s}dominate its merge block {}", n(header), n(merge))
        }
        Violation::ContinueTargetNotDominated { header, continue_target } => {
            format!("the loop header {} does not {s}dominate its continue target {}", n(header), n(continue_target))
        }
        Violation::BackEdgeBlockNotDominated { continue_target, back_edge_block } => format!(
            "the continue target {} does not {s}dominate the back-edge block {}",
            n(continue_target),
            n(back_edge_block)
        ),
        Violation::ContinueNotPostDominated { continue_target, back_edge_block } => format!(
            "the back-edge block {} does not {s}post-dominate the continue target {}",
            n(back_edge_block),
            n(continue_target)
        ),
    }
}
