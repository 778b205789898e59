//! SSA form: every use of an id defined in a block is dominated by its
//! definition (spec 2.16.1, "the definition of an SSA <id> dominates its uses");
//! an id defined in a function is only used in that function; and the OpPhi
//! rules: one incoming pair per predecessor, parents that are predecessors and
//! are listed once, incoming values whose definitions dominate their parent
//! block, a non-void result type, pointer results only with variable pointers.
//!
//! Dominance is the regular one (branch edges), over blocks reachable from the
//! entry, as spirv-val checks it: uses in unreachable blocks are not checked.

use crate::grammar::{addressing_model, capability, op};
use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::cfg::{Csr, EdgeKind, NONE};
use crate::grammar::OperandKind;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "ssa.def-does-not-dominate-use",
        summary: "The definition of an id must dominate its uses.",
        explanation: "Section 2.16.1: each use of an SSA <id> must be dominated by its \
                      definition: every path from the function's entry block to the block of \
                      the use passes through the block of the definition. Here a path reaches \
                      the use without going through the definition, so the value may not exist \
                      there. Pass it through an OpPhi, or an OpVariable, instead.",
    },
    Rule {
        code: "ssa.used-outside-function",
        summary: "An id defined inside a function can only be used in that function.",
        explanation: "Values and parameters of a function are local to it: another function \
                      cannot name them. Pass the value as an argument instead.",
    },
    Rule {
        code: "ssa.phi-value-does-not-dominate-parent",
        summary: "An OpPhi's incoming value must be defined in a block that dominates its parent block.",
        explanation: "For each (value, parent) pair of an OpPhi, the value is read at the end of \
                      the parent block, so its definition must dominate the parent block.",
    },
    Rule {
        code: "ssa.phi-predecessor-count",
        summary: "An OpPhi must have one (value, parent) pair per predecessor of its block.",
        explanation: "OpPhi selects a value by the block control came from: it needs exactly one \
                      pair for each distinct predecessor of its block.",
    },
    Rule {
        code: "ssa.phi-parent-not-predecessor",
        summary: "Every OpPhi parent must be a predecessor of the OpPhi's block.",
        explanation: "Each parent <id> of an OpPhi must be the label of a block that branches to \
                      the OpPhi's block.",
    },
    Rule {
        code: "ssa.phi-parent-not-label",
        summary: "Every OpPhi parent must be a block label.",
        explanation: "The second <id> of each OpPhi pair names the parent block: it must be an \
                      OpLabel.",
    },
    Rule {
        code: "ssa.phi-duplicate-parent",
        summary: "An OpPhi may list each parent block only once.",
        explanation: "A predecessor reaches the OpPhi's block with a single value; listing the \
                      same parent twice is ambiguous.",
    },
    Rule {
        code: "ssa.phi-void",
        summary: "An OpPhi cannot have void type.",
        explanation: "OpPhi produces a value; its Result Type cannot be OpTypeVoid.",
    },
    Rule {
        code: "ssa.phi-pointer",
        summary: "In Logical addressing, pointer OpPhis need variable pointers.",
        explanation: "With the Logical addressing model pointers cannot be selected at run time \
                      unless the module declares the VariablePointers or \
                      VariablePointersStorageBuffer capability.",
    },
    Rule {
        code: "ssa.phi-opaque-type",
        summary: "In shaders, an OpPhi cannot select an image, sampler or sampled image.",
        explanation: "With the Shader capability, images, samplers and sampled images must be \
                      loaded where they are used; they cannot flow through OpPhi.",
    },
    Rule {
        code: "ssa.phi-value-type",
        summary: "Each OpPhi incoming value must have the OpPhi's result type.",
        explanation: "All incoming values of an OpPhi must have exactly its Result Type.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check_ssa)],
    instructions: Instructions::None,
};

/// A finding, described with ids and instruction indices; worded afterwards.
enum Finding {
    NotDominate {
        use_inst: usize,
        id: u32,
        def: usize,
        def_block: u32,
        use_block: u32,
    },
    OutsideFunction {
        use_inst: usize,
        id: u32,
        def: usize,
        def_fn: u32,
        use_fn: u32,
    },
    PhiNotDominate {
        phi: usize,
        id: u32,
        def: usize,
        parent: u32,
    },
    PhiCount {
        phi: usize,
        pairs: usize,
        preds: usize,
        block: u32,
    },
    PhiNotPred {
        phi: usize,
        parent: u32,
        block: u32,
    },
    PhiNotLabel {
        phi: usize,
        parent: u32,
    },
    PhiDuplicate {
        phi: usize,
        parent: u32,
    },
    PhiVoid {
        phi: usize,
    },
    PhiPointer {
        phi: usize,
    },
    PhiOpaque {
        phi: usize,
        what: &'static str,
    },
    PhiValueType {
        phi: usize,
        value: u32,
        ty: u32,
    },
}

pub(super) fn check_ssa(cx: &mut Context<'_>) {
    let variable_pointers = cx.declares_capability(capability::VariablePointers)
        || cx.declares_capability(capability::VariablePointersStorageBuffer);
    let logical = cx.addressing_model() == addressing_model::Logical;
    let shader = cx.declares_capability(capability::Shader);
    let findings = cx.with_cfg(|cx, cfg| {
        let insts = cx.insts();
        let n = insts.len();
        // Per instruction: its function (index into cfg.functions) and block.
        let mut func_of = vec![NONE; n];
        let mut block_of = vec![NONE; n];
        for (fi, f) in cfg.functions.iter().enumerate() {
            let end = f.end_instruction.map_or(n, |e| e as usize + 1).min(n);
            for slot in func_of.iter_mut().take(end).skip(f.instruction as usize) {
                *slot = fi as u32;
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                for slot in block_of
                    .iter_mut()
                    .take((b.end as usize).min(n))
                    .skip(b.start as usize)
                {
                    *slot = bi as u32;
                }
            }
        }
        // Per function: the predecessors of each block over branch edges.
        let preds_of: Vec<Csr> = cfg
            .functions
            .iter()
            .map(|f| {
                let pairs: Vec<(u32, u32)> = f
                    .edges
                    .iter()
                    .filter(|e| e.kind == EdgeKind::Branch)
                    .map(|e| (e.to, e.from))
                    .collect();
                Csr::from_pairs(f.blocks.len(), &pairs)
            })
            .collect();
        let mut out = Vec::new();
        for i in 0..n {
            let fi = func_of[i];
            let bi = block_of[i];
            if fi == NONE || bi == NONE {
                continue;
            }
            let f = &cfg.functions[fi as usize];
            let opcode = insts[i].opcode;
            if opcode == op::OpPhi {
                let preds = preds_of[fi as usize].of(bi);
                check_phi(
                    cx,
                    cfg,
                    i,
                    fi,
                    bi,
                    preds,
                    &func_of,
                    &block_of,
                    variable_pointers,
                    logical,
                    shader,
                    &mut out,
                );
                continue;
            }
            if opcode == op::OpLabel {
                continue;
            }
            let use_reachable = f.is_reachable(bi);
            for o in cx.operands(i) {
                if !matches!(
                    o.kind,
                    OperandKind::IdRef | OperandKind::IdMemorySemantics | OperandKind::IdScope
                ) {
                    continue;
                }
                let Some(&w) = insts[i].operands.get(o.start as usize) else {
                    continue;
                };
                let Some(d) = cx.def(w) else { continue };
                let dop = insts[d].opcode;
                if dop == op::OpLabel || dop == op::OpFunction {
                    continue;
                }
                let dfi = func_of[d];
                if dfi == NONE {
                    continue;
                }
                let dbi = block_of[d];
                // A function parameter has no block: only its function is checked.
                let in_block = dbi != NONE;
                if in_block && (!cfg.functions[dfi as usize].is_reachable(dbi) || !use_reachable) {
                    continue;
                }
                if dfi != fi {
                    out.push(Finding::OutsideFunction {
                        use_inst: i,
                        id: w,
                        def: d,
                        def_fn: dfi,
                        use_fn: fi,
                    });
                } else if in_block && !f.dominates(dbi, bi) {
                    out.push(Finding::NotDominate {
                        use_inst: i,
                        id: w,
                        def: d,
                        def_block: dbi,
                        use_block: bi,
                    });
                }
            }
        }
        // Words for the report: labels of blocks and functions' ids.
        out.into_iter()
            .map(|x| {
                let label = |fi: u32, b: u32| {
                    cfg.functions
                        .get(fi as usize)
                        .and_then(|f| f.blocks.get(b as usize))
                        .map_or(0, |b| b.label)
                };
                let fid = |fi: u32| cfg.functions.get(fi as usize).map_or(0, |f| f.id);
                let lab_inst = |fi: u32, b: u32| {
                    cfg.functions
                        .get(fi as usize)
                        .and_then(|f| f.blocks.get(b as usize))
                        .map_or(0, |b| b.start as usize)
                };
                match x {
                    Finding::NotDominate {
                        use_inst,
                        def,
                        def_block,
                        use_block,
                        ..
                    } => {
                        let fi = func_of[use_inst];
                        (
                            x,
                            [label(fi, def_block), label(fi, use_block)],
                            [lab_inst(fi, def_block), def],
                        )
                    }
                    Finding::OutsideFunction { def_fn, use_fn, .. } => {
                        (x, [fid(def_fn), fid(use_fn)], [0, 0])
                    }
                    _ => (x, [0, 0], [0, 0]),
                }
            })
            .collect::<Vec<_>>()
    });
    for (f, ids, insts) in findings {
        report(cx, f, ids, insts);
    }
}

#[allow(clippy::too_many_arguments)]
fn check_phi(
    cx: &Context<'_>,
    cfg: &crate::cfg::ModuleCfg,
    i: usize,
    fi: u32,
    bi: u32,
    preds: &[u32],
    func_of: &[u32],
    block_of: &[u32],
    variable_pointers: bool,
    logical: bool,
    shader: bool,
    out: &mut Vec<Finding>,
) {
    let insts = cx.insts();
    let inst = &insts[i];
    let f = &cfg.functions[fi as usize];
    let ty = inst.operands.first().copied().unwrap_or(0);
    let start = out.len();
    match cx.type_def(ty).map(|t| t.0) {
        Some(op::OpTypeVoid) => {
            out.push(Finding::PhiVoid { phi: i });
            return;
        }
        Some(op::OpTypePointer | op::OpTypeUntypedPointerKHR)
            if logical
                && !variable_pointers
                && !(cx.opts.relax_logical_pointer || cx.opts.before_hlsl_legalization) =>
        {
            out.push(Finding::PhiPointer { phi: i });
            return;
        }
        Some(t @ (op::OpTypeImage | op::OpTypeSampler | op::OpTypeSampledImage))
            if shader && !cx.opts.before_hlsl_legalization =>
        {
            let what = match t {
                op::OpTypeImage => "an image",
                op::OpTypeSampler => "a sampler",
                _ => "a sampled image",
            };
            out.push(Finding::PhiOpaque { phi: i, what });
            return;
        }
        _ => {}
    }
    // Distinct predecessors of the block (branch edges).
    let mut preds: Vec<u32> = preds.to_vec();
    preds.sort_unstable();
    preds.dedup();
    let pairs: Vec<(u32, u32)> = inst
        .operands
        .get(2..)
        .unwrap_or(&[])
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0], c[1]))
        .collect();
    if pairs.len() != preds.len() {
        out.push(Finding::PhiCount {
            phi: i,
            pairs: pairs.len(),
            preds: preds.len(),
            block: bi,
        });
        return;
    }
    let mut seen: Vec<u32> = Vec::with_capacity(pairs.len());
    for &(value, parent) in &pairs {
        if let Some(vt) = cx.type_of(value)
            && vt != ty
        {
            out.push(Finding::PhiValueType {
                phi: i,
                value,
                ty: vt,
            });
            continue;
        }
        if cx.def_opcode(parent) != Some(op::OpLabel) {
            out.push(Finding::PhiNotLabel { phi: i, parent });
            continue;
        }
        let pb = f.block_of(parent);
        match pb {
            Some(pb) if preds.binary_search(&pb).is_ok() => {}
            _ => {
                out.push(Finding::PhiNotPred {
                    phi: i,
                    parent,
                    block: bi,
                });
                continue;
            }
        }
        if seen.contains(&parent) {
            out.push(Finding::PhiDuplicate { phi: i, parent });
            continue;
        }
        seen.push(parent);
    }
    if out.len() > start {
        return;
    }
    // Incoming values dominate their parents.
    for &(value, parent) in &pairs {
        let Some(d) = cx.def(value) else { continue };
        if func_of.get(d) != Some(&fi) {
            continue;
        }
        let Some(&db) = block_of.get(d) else { continue };
        let Some(pb) = f.block_of(parent) else {
            continue;
        };
        if db == NONE || !f.is_reachable(pb) {
            continue;
        }
        if !f.dominates(db, pb) {
            out.push(Finding::PhiNotDominate {
                phi: i,
                id: value,
                def: d,
                parent,
            });
        }
    }
}

fn report(cx: &mut Context<'_>, f: Finding, ids: [u32; 2], at: [usize; 2]) {
    let (at_inst, code, message, related) = match f {
        Finding::NotDominate {
            use_inst, id, def, ..
        } => {
            let (name, db, ub) = (cx.name(id), cx.name(ids[0]), cx.name(ids[1]));
            let d = cx.error_related(
                "ssa.def-does-not-dominate-use",
                use_inst,
                format!("{name} is defined in block {db}, which does not dominate this use in block {ub}"),
                [(def, format!("{name} is defined here")), (at[0], format!("block {db}"))],
            );
            d.label = format!("{name} may not have been computed on every path to here");
            return;
        }
        Finding::OutsideFunction {
            use_inst, id, def, ..
        } => {
            let (name, df, uf) = (cx.name(id), cx.name(ids[0]), cx.name(ids[1]));
            (
                use_inst,
                "ssa.used-outside-function",
                format!("{name} belongs to function {df} but is used in function {uf}"),
                Some((def, format!("{name} is defined in {df} here"))),
            )
        }
        Finding::PhiNotDominate {
            phi,
            id,
            def,
            parent,
        } => {
            let (p, name, par) = (phi_name(cx, phi), cx.name(id), cx.name(parent));
            (
                phi,
                "ssa.phi-value-does-not-dominate-parent",
                format!("the incoming value {name} of OpPhi {p} is not defined on every path to its parent block {par}"),
                Some((def, format!("{name} is defined here"))),
            )
        }
        Finding::PhiCount {
            phi,
            pairs,
            preds,
            block,
        } => {
            let p = phi_name(cx, phi);
            let label = block_label(cx, phi, block);
            let s = if preds == 1 { "" } else { "s" };
            (phi, "ssa.phi-predecessor-count", format!("OpPhi {p} has {pairs} incoming pair(s), but its block {label} has {preds} predecessor{s}"), None)
        }
        Finding::PhiNotPred { phi, parent, block } => {
            let (p, par) = (phi_name(cx, phi), cx.name(parent));
            let label = block_label(cx, phi, block);
            (phi, "ssa.phi-parent-not-predecessor", format!("OpPhi {p} lists {par} as a parent, but {par} does not branch to {label}"), None)
        }
        Finding::PhiNotLabel { phi, parent } => {
            let (p, par) = (phi_name(cx, phi), cx.name(parent));
            (phi, "ssa.phi-parent-not-label", format!("OpPhi {p} lists {par} as a parent block, but {par} is not a label"), None)
        }
        Finding::PhiDuplicate { phi, parent } => {
            let (p, par) = (phi_name(cx, phi), cx.name(parent));
            (phi, "ssa.phi-duplicate-parent", format!("OpPhi {p} lists the parent block {par} more than once"), None)
        }
        Finding::PhiVoid { phi } => {
            let p = phi_name(cx, phi);
            (phi, "ssa.phi-void", format!("OpPhi {p} has void result type"), None)
        }
        Finding::PhiPointer { phi } => {
            let p = phi_name(cx, phi);
            cx.error(
                "ssa.phi-pointer",
                phi,
                format!("OpPhi {p} selects a pointer, which needs the VariablePointers or VariablePointersStorageBuffer capability"),
            )
            .help = Some(String::from("declare `OpCapability VariablePointers`, or select the pointee values instead"));
            return;
        }
        Finding::PhiOpaque { phi, what } => {
            let p = phi_name(cx, phi);
            (phi, "ssa.phi-opaque-type", format!("OpPhi {p} selects {what}, which shaders cannot do"), None)
        }
        Finding::PhiValueType { phi, value, ty } => {
            let (p, v, t) = (phi_name(cx, phi), cx.name(value), cx.name(ty));
            let rt = cx.name(cx.insts()[phi].operands.first().copied().unwrap_or(0));
            (phi, "ssa.phi-value-type", format!("the incoming value {v} of OpPhi {p} has type {t}, not the OpPhi's type {rt}"), None)
        }
    };
    cx.error_related(code, at_inst, message, related);
}

fn phi_name(cx: &mut Context<'_>, phi: usize) -> String {
    let id = cx.insts()[phi].operands.get(1).copied().unwrap_or(0);
    cx.name(id)
}

fn block_label(cx: &mut Context<'_>, phi: usize, _block: u32) -> String {
    // The label of the OpPhi's block: the nearest OpLabel before it.
    let insts = cx.insts();
    let id = insts[..phi]
        .iter()
        .rev()
        .find(|x| x.opcode == op::OpLabel)
        .and_then(|x| x.operands.first().copied())
        .unwrap_or(0);
    cx.name(id)
}
