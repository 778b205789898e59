//! Checks that need no dominance: targets, merge instructions and their
//! operands, the entry block, block order, nesting depth, and the extension
//! rules (maximal reconvergence, unstructured loop controls).

use crate::grammar::{execution_mode, loop_control, op};
use super::{bname, label_at, report, term_at};
use crate::cfg::{EdgeKind, FunctionCfg, ModuleCfg};
use crate::grammar::OperandKind;
use crate::valid::Context;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Whether the module declares `cap`, directly or implicitly (a declared
/// capability implicitly declares the ones it depends on).
pub(super) fn has_capability(cx: &Context<'_>, cap: u32) -> bool {
    let mut todo: Vec<u32> = cx
        .insts()
        .iter()
        .filter(|i| i.opcode == op::OpCapability)
        .filter_map(|i| i.operands.first().copied())
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(c) = todo.pop() {
        if c == cap {
            return true;
        }
        if seen.insert(c)
            && let Some(e) = OperandKind::Capability.enumerant(c)
        {
            todo.extend_from_slice(e.capabilities);
        }
    }
    false
}

/// Targets, merge instructions, loop controls, the entry block. Returns whether
/// the function's CFG is sound enough (every target a block of the function,
/// every block terminated) for the dominance-based rules.
pub(super) fn check_function(cx: &mut Context<'_>, f: &FunctionCfg) -> bool {
    let mut sound = f.issues.is_empty() || f.issues.iter().all(|i| {
        matches!(i, crate::cfg::CfgIssue::UnparsedSwitch { .. } | crate::cfg::CfgIssue::MultipleMergeInstructions { .. })
    });
    // Targets that are not blocks of this function.
    let mut reported: BTreeSet<(u32, u32)> = BTreeSet::new();
    for d in &f.dangling {
        sound = false;
        if !reported.insert((d.instruction, d.target)) {
            continue;
        }
        let what = match d.kind {
            EdgeKind::Branch => "branch target",
            EdgeKind::Merge => "Merge Block",
            EdgeKind::Continue => "Continue Target",
        };
        let inst = d.instruction as usize;
        let tname = cx.name(d.target);
        let fname = cx.name(f.id);
        match cx.def(d.target) {
            // Undefined ids are the ids family's to report.
            None => {}
            Some(def) if cx.insts()[def].opcode == op::OpLabel => report(
                cx,
                "cfg.label-in-other-function",
                inst,
                format!("the {what} {tname} is a block of another function, not of {fname}"),
                "target outside the function",
                &[(def, format!("{tname} is defined here"))],
            ),
            Some(def) => report(
                cx,
                "cfg.target-not-label",
                inst,
                format!("the {what} {tname} is not the id of an OpLabel"),
                "not a block",
                &[(def, format!("{tname} is defined here"))],
            ),
        }
    }
    // The entry block is never a branch target.
    for b in 0..f.blocks.len() as u32 {
        if f.out_edges(b).iter().any(|e| e.kind == EdgeKind::Branch && e.to == 0) {
            let entry = bname(cx, f, 0);
            let fname = cx.name(f.id);
            let from = bname(cx, f, b);
            report(
                cx,
                "cfg.entry-block-targeted",
                term_at(f, b),
                format!("{from} branches to {entry}, the first block of function {fname}; the entry block cannot be a branch target"),
                "branch to the entry block",
                &[(label_at(f, 0), format!("{entry} is the entry block of {fname}"))],
            );
        }
    }
    // Merge instructions, conditional branches and switches.
    let mut merge_of: alloc::collections::BTreeMap<u32, usize> = alloc::collections::BTreeMap::new(); // merge id -> merge instruction
    for (bi, b) in f.blocks.iter().enumerate() {
        for i in b.start as usize..b.end as usize {
            let inst = &cx.insts()[i];
            let ops = &inst.operands;
            match inst.opcode {
                op::OpSelectionMerge | op::OpLoopMerge => {
                    let is_loop = inst.opcode == op::OpLoopMerge;
                    let next = cx.insts().get(i + 1).map(|x| x.opcode);
                    let ok = if is_loop {
                        matches!(next, Some(op::OpBranch | op::OpBranchConditional) | None)
                    } else {
                        matches!(next, Some(op::OpBranchConditional | op::OpSwitch) | None)
                    };
                    if !ok {
                        let (name, allowed) = if is_loop {
                            ("OpLoopMerge", "OpBranch or OpBranchConditional")
                        } else {
                            ("OpSelectionMerge", "OpBranchConditional or OpSwitch")
                        };
                        let h = bname(cx, f, bi as u32);
                        report(
                            cx,
                            "cfg.merge-placement",
                            i,
                            format!("{name} in {h} must immediately precede {allowed}: it must be the second-to-last instruction of its block"),
                            "not followed by the block's branch",
                            &[(i + 1, "the next instruction".into())],
                        );
                    }
                    let Some(&m) = ops.first() else { continue };
                    if let Some(&first) = merge_of.get(&m) {
                        let mname = cx.name(m);
                        report(
                            cx,
                            "cfg.merge-block-reused",
                            i,
                            format!("{mname} is already the merge block of another header"),
                            "second header merging here",
                            &[(first, format!("{mname} is declared as a merge block here"))],
                        );
                    } else {
                        merge_of.insert(m, i);
                    }
                    if is_loop {
                        check_loop_merge(cx, f, bi as u32, i);
                    }
                }
                op::OpBranchConditional if cx.version >= (1, 6) => {
                    if let (Some(t), Some(e)) = (ops.get(1), ops.get(2))
                        && t == e
                    {
                        let tn = cx.name(*t);
                        report(
                            cx,
                            "cfg.same-true-false-labels",
                            i,
                            format!("in SPIR-V 1.6 or later, True Label and False Label must be different labels, but both are {tn}"),
                            "same label twice",
                            &[],
                        );
                    }
                }
                op::OpSwitch => {
                    let sel = ops.first().copied().unwrap_or(0);
                    let ty = cx.type_of(sel);
                    let is_int = ty.and_then(|t| cx.def_opcode(t)) == Some(op::OpTypeInt);
                    if !is_int {
                        let sn = cx.name(sel);
                        report(
                            cx,
                            "cfg.switch-selector-not-int",
                            i,
                            format!("the Selector {sn} of OpSwitch must be an integer scalar (OpTypeInt)"),
                            "selector is not an integer",
                            &[],
                        );
                    } else {
                        let pairs = f
                            .out_edges(bi as u32)
                            .iter()
                            .filter(|e| e.kind == EdgeKind::Branch && e.instruction as usize == i)
                            .count()
                            .saturating_sub(1)
                            + f.dangling.iter().filter(|d| d.instruction as usize == i && d.operand > 1).count();
                        let limit = cx.opts.limits.max_switch_branches as usize;
                        if pairs > limit {
                            report(
                                cx,
                                "cfg.switch-too-many-branches",
                                i,
                                format!("the OpSwitch has {pairs} (literal, label) pairs, more than the limit of {limit}"),
                                "too many branches",
                                &[],
                            );
                        }
                    }
                }
                _ => {}
            }
        }
    }
    sound
}

fn check_loop_merge(cx: &mut Context<'_>, f: &FunctionCfg, b: u32, i: usize) {
    let ops = &cx.insts()[i].operands;
    let (m, c) = (ops.first().copied().unwrap_or(0), ops.get(1).copied().unwrap_or(0));
    let control = ops.get(2).copied().unwrap_or(0);
    let params: Vec<u32> = ops.iter().skip(3).copied().collect();
    let label = f.blocks[b as usize].label;
    let h = cx.name(label);
    if m == label {
        report(
            cx,
            "cfg.loop-merge-is-header",
            i,
            format!("the Merge Block of the loop headed by {h} is {h} itself; the merge block may not be the block containing the OpLoopMerge"),
            "merge block is the header",
            &[(label_at(f, b), format!("loop header {h}"))],
        );
    }
    if m == c {
        let mn = cx.name(m);
        report(
            cx,
            "cfg.merge-equals-continue",
            i,
            format!("the loop headed by {h} names {mn} as both its Merge Block and its Continue Target; they must be different blocks"),
            "same block twice",
            &[],
        );
    }
    let has = |mask: u32| control & mask != 0;
    let (unroll, dont, peel, partial) = (
        has(loop_control::Unroll),
        has(loop_control::DontUnroll),
        has(loop_control::PeelCount),
        has(loop_control::PartialCount),
    );
    for (on, what) in [(unroll, "Unroll"), (peel, "PeelCount"), (partial, "PartialCount")] {
        if on && dont {
            report(
                cx,
                "cfg.loop-control-conflict",
                i,
                format!("the loop headed by {h} asks for both {what} and DontUnroll; these loop controls must not both be specified"),
                "conflicting loop controls",
                &[],
            );
        }
    }
    if has(loop_control::IterationMultiple) {
        // Its parameter follows those of DependencyLength, MinIterations and
        // MaxIterations, when present.
        let k = has(loop_control::DependencyLength) as usize
            + has(loop_control::MinIterations) as usize
            + has(loop_control::MaxIterations) as usize;
        if params.get(k).is_none_or(|&v| v == 0) {
            report(
                cx,
                "cfg.iteration-multiple-zero",
                i,
                format!("the IterationMultiple loop control of the loop headed by {h} must be greater than zero"),
                "IterationMultiple is 0",
                &[],
            );
        }
    }
}

/// SPIR-V 2.16.1: a block appears after its (regular) dominator.
pub(super) fn block_order(cx: &mut Context<'_>, f: &FunctionCfg) {
    for b in 1..f.blocks.len() as u32 {
        if let Some(d) = f.dom.idom(b)
            && d > b
        {
            let (bn, dn) = (bname(cx, f, b), bname(cx, f, d));
            report(
                cx,
                "cfg.block-before-dominator",
                label_at(f, b),
                format!("block {bn} appears in the binary before its dominator {dn}"),
                "appears too early",
                &[(label_at(f, d), format!("{dn}, which dominates {bn}, appears later"))],
            );
        }
    }
}

/// spirv-val's nesting depth (regular dominance, headers and merges), against
/// `--max-control-flow-nesting-depth`.
pub(super) fn nesting_depth(cx: &mut Context<'_>, f: &FunctionCfg) {
    let n = f.blocks.len();
    let limit = cx.opts.limits.max_control_flow_nesting_depth as i64;
    // Block roles as spirv-val types them.
    let mut merge_header = vec![u32::MAX; n];
    let mut continue_header = vec![u32::MAX; n];
    for (h, b) in f.blocks.iter().enumerate() {
        if let Some(m) = b.merge {
            if let Some(mb) = m.merge_block {
                merge_header[mb as usize] = h as u32;
            }
            if let Some(cb) = m.continue_block
                && continue_header[cb as usize] == u32::MAX
            {
                continue_header[cb as usize] = h as u32;
            }
        }
    }
    let is_header = |b: u32| f.blocks[b as usize].merge.is_some();
    // 0 new, 1 in progress, 2 done; spirv-val's recursion reads 0 for a
    // block in progress (its cycle guard).
    let mut state = vec![0u8; n];
    let mut depth = vec![0i64; n];
    for start in 0..n as u32 {
        if state[start as usize] != 0 {
            continue;
        }
        let mut stack = vec![start];
        while let Some(&b) = stack.last() {
            let bi = b as usize;
            if state[bi] == 2 {
                stack.pop();
                continue;
            }
            let Some(d) = f.dom.idom(b) else {
                depth[bi] = 0;
                state[bi] = 2;
                stack.pop();
                continue;
            };
            let (dep, off) = if continue_header[bi] != u32::MAX {
                let h = continue_header[bi];
                if h == b { (d, 1) } else { (h, 1) }
            } else if merge_header[bi] != u32::MAX {
                (merge_header[bi], 0)
            } else if is_header(d) {
                (d, 1)
            } else {
                (d, 0)
            };
            if state[bi] == 0 {
                state[bi] = 1;
                if state[dep as usize] == 0 {
                    stack.push(dep);
                    continue;
                }
            }
            let v = if state[dep as usize] == 2 { depth[dep as usize] } else { 0 };
            depth[bi] = v + off;
            state[bi] = 2;
            stack.pop();
        }
    }
    for b in 0..n as u32 {
        if depth[b as usize] > limit {
            let bn = bname(cx, f, b);
            report(
                cx,
                "cfg.nesting-too-deep",
                label_at(f, b),
                format!("block {bn} is nested {} constructs deep, more than the limit of {limit}", depth[b as usize]),
                "nested too deeply",
                &[],
            );
            return;
        }
    }
}

/// SPV_KHR_maximal_reconvergence.
pub(super) fn maximal_reconvergence(cx: &mut Context<'_>, m: &ModuleCfg) {
    let insts = cx.insts();
    let mut roots: Vec<u32> = insts
        .iter()
        .filter(|i| matches!(i.opcode, op::OpExecutionMode | op::OpExecutionModeId))
        .filter(|i| i.operands.get(1) == Some(&execution_mode::MaximallyReconvergesKHR))
        .filter_map(|i| i.operands.first().copied())
        .collect();
    roots.retain(|f| {
        insts.iter().any(|i| i.opcode == op::OpEntryPoint && i.operands.get(1) == Some(f))
    });
    if roots.is_empty() {
        return;
    }
    // Functions reachable through calls.
    let mut reach: BTreeSet<u32> = BTreeSet::new();
    while let Some(fid) = roots.pop() {
        if !reach.insert(fid) {
            continue;
        }
        if let Some(f) = m.functions.iter().find(|f| f.id == fid) {
            let end = f.end_instruction.map_or(insts.len(), |e| e as usize);
            for i in &insts[f.instruction as usize..end] {
                if i.opcode == op::OpFunctionCall
                    && let Some(&callee) = i.operands.get(2)
                {
                    roots.push(callee);
                }
            }
        }
    }
    // Labels named by a merge instruction or a switch anywhere.
    let mut special: BTreeSet<u32> = BTreeSet::new();
    for i in insts {
        match i.opcode {
            op::OpSelectionMerge => special.extend(i.operands.first()),
            op::OpLoopMerge => special.extend(i.operands.iter().take(2)),
            op::OpSwitch => special.extend(i.operands.iter().skip(1)),
            _ => {}
        }
    }
    for f in m.functions.iter().filter(|f| reach.contains(&f.id)) {
        for b in 0..f.blocks.len() as u32 {
            let blk = &f.blocks[b as usize];
            if let Some(t) = blk.terminator
                && blk.terminator_opcode == Some(op::OpBranchConditional)
            {
                let ops = &insts[t as usize].operands;
                if ops.get(1).is_some() && ops.get(1) == ops.get(2) {
                    report(
                        cx,
                        "cfg.maximal-reconvergence",
                        t as usize,
                        "in entry points using the MaximallyReconvergesKHR execution mode, True Label and False Label must be different labels".into(),
                        "same label twice",
                        &[],
                    );
                }
            }
        }
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); f.blocks.len()];
        for e in f.edges.iter().filter(|e| e.kind == EdgeKind::Branch) {
            if !preds[e.to as usize].contains(&e.from) {
                preds[e.to as usize].push(e.from);
            }
        }
        for b in 0..f.blocks.len() as u32 {
            if preds[b as usize].len() < 2 {
                continue;
            }
            let blk = &f.blocks[b as usize];
            let before_term = blk.terminator.and_then(|t| (t as usize).checked_sub(1));
            if before_term.is_some_and(|i| insts[i].opcode == op::OpLoopMerge) {
                continue;
            }
            if special.contains(&blk.label) {
                continue;
            }
            let bn = bname(cx, f, b);
            let rel: Vec<(usize, alloc::string::String)> = preds[b as usize]
                .iter()
                .map(|&p| (term_at(f, p), "a predecessor".into()))
                .collect();
            report(
                cx,
                "cfg.maximal-reconvergence",
                label_at(f, b),
                format!("in entry points using the MaximallyReconvergesKHR execution mode, block {bn} must not have multiple unique predecessors: only merge blocks, continue targets, loop headers and switch targets may"),
                "several predecessors",
                &rel,
            );
        }
    }
}

/// SPV_INTEL_unstructured_loop_controls: OpLoopControlINTEL is the
/// second-to-last instruction of a block that is the target of a back edge and
/// dominates the back-edge block, and never shares its block with OpLoopMerge.
pub(super) fn loop_control_intel(cx: &mut Context<'_>, m: &ModuleCfg) {
    for f in &m.functions {
        for (bi, blk) in f.blocks.iter().enumerate() {
            let b = bi as u32;
            for i in blk.start as usize..blk.end as usize {
                if cx.insts()[i].opcode != op::OpLoopControlINTEL {
                    continue;
                }
                let bn = bname(cx, f, b);
                let next = cx.insts().get(i + 1).map(|x| x.opcode);
                if !matches!(next, Some(op::OpBranch | op::OpBranchConditional))
                    || blk.terminator != Some(i as u32 + 1)
                {
                    report(
                        cx,
                        "cfg.loop-control-intel",
                        i,
                        format!("OpLoopControlINTEL in {bn} must immediately precede OpBranch or OpBranchConditional (the second-to-last instruction of its block)"),
                        "not followed by the block's branch",
                        &[(term_at(f, b), "the block's terminator".into())],
                    );
                }
                if let Some(mi) = blk.merge {
                    report(
                        cx,
                        "cfg.loop-control-intel",
                        i,
                        format!("OpLoopControlINTEL in {bn} cannot be used together with a merge instruction in the same block"),
                        "with a merge instruction",
                        &[(mi.instruction as usize, "the merge instruction".into())],
                    );
                }
                // A back edge to this block from a block it dominates.
                let is_loop = f.is_reachable(b)
                    && f.edges.iter().any(|e| {
                        e.kind == EdgeKind::Branch && e.to == b && f.is_reachable(e.from) && f.dominates(b, e.from)
                    });
                if !is_loop {
                    report(
                        cx,
                        "cfg.loop-control-intel",
                        i,
                        format!("OpLoopControlINTEL declares a loop, but {bn} is not the target of a back edge from a block it dominates"),
                        "not a loop header",
                        &[(label_at(f, b), format!("block {bn}"))],
                    );
                }
            }
        }
    }
}
