//! Rules that depend on the module's SPIR-V version and the target environment:
//! the module's version must not exceed the environment's; some extensions need
//! a minimum version; from SPIR-V 1.4 on, an entry point's interface lists every
//! global variable its call tree references.
//!
//! (Instructions and enumerants removed after some version, e.g. BufferBlock
//! after 1.3, are checked with the other grammar requirements in `caps.rs`.)

use crate::grammar::{op, storage_class};
use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::binary::parse::decode_string;
use crate::{Diagnostic, Span, TargetEnv};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "version.env-version",
        summary: "The module's SPIR-V version must not exceed the target environment's.",
        explanation: "Each target environment consumes SPIR-V up to some version (Vulkan 1.0: \
                      1.0, Vulkan 1.1: 1.3, Vulkan 1.2: 1.5, Vulkan 1.3: 1.6, OpenCL 1.2/2.0/2.1: \
                      1.0, OpenCL 2.2: 1.2). A module whose header declares a newer version \
                      cannot be consumed. Fix: assemble for an older version or validate for a \
                      newer environment.",
    },
    Rule {
        code: "version.extension-version",
        summary: "Some extensions need a minimum SPIR-V version.",
        explanation: "SPV_KHR_vulkan_memory_model is written against SPIR-V 1.3 and needs a \
                      module of version 1.3 or later; SPV_KHR_workgroup_memory_explicit_layout \
                      needs 1.4 or later. Fix: raise the module's version, or drop the \
                      extension.",
    },
    Rule {
        code: "version.interface-incomplete",
        summary: "From SPIR-V 1.4 on, an entry point's interface lists every global variable it uses.",
        explanation: "Before SPIR-V 1.4 the OpEntryPoint interface lists only the Input and Output \
                      variables; starting with 1.4 it must list every module-scope variable \
                      (any storage class but Function) that the entry point's static call tree \
                      references. Fix: add the variable's id to the OpEntryPoint's interface.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Binary, check_env), (Stage::Sound, check)],
    instructions: Instructions::None,
};

/// spirv-val's name of an environment in the version message.
fn env_phrase(env: TargetEnv) -> String {
    use TargetEnv::*;
    let (maj, min) = env.spirv_version();
    let api = match env {
        Vulkan1_0 => Some("Vulkan 1.0"),
        Vulkan1_1 => Some("Vulkan 1.1"),
        Vulkan1_1Spv1_4 => Some("Vulkan 1.1"),
        Vulkan1_2 => Some("Vulkan 1.2"),
        Vulkan1_3 => Some("Vulkan 1.3"),
        Vulkan1_4 => Some("Vulkan 1.4"),
        OpenCl1_2 => Some("OpenCL 1.2 Full Profile"),
        OpenCl1_2Embedded => Some("OpenCL 1.2 Embedded Profile"),
        OpenCl2_0 => Some("OpenCL 2.0 Full Profile"),
        OpenCl2_0Embedded => Some("OpenCL 2.0 Embedded Profile"),
        OpenCl2_1 => Some("OpenCL 2.1 Full Profile"),
        OpenCl2_1Embedded => Some("OpenCL 2.1 Embedded Profile"),
        OpenCl2_2 => Some("OpenCL 2.2 Full Profile"),
        OpenCl2_2Embedded => Some("OpenCL 2.2 Embedded Profile"),
        OpenGl4_0 => Some("OpenGL 4.0"),
        OpenGl4_1 => Some("OpenGL 4.1"),
        OpenGl4_2 => Some("OpenGL 4.2"),
        OpenGl4_3 => Some("OpenGL 4.3"),
        OpenGl4_5 => Some("OpenGL 4.5"),
        _ => None,
    };
    match api {
        Some(a) => format!("SPIR-V {maj}.{min} (under {a} semantics)"),
        None => format!("SPIR-V {maj}.{min}"),
    }
}

/// Stage 0: the header's version against the environment.
pub(super) fn check_env(cx: &mut Context<'_>) {
    let env = cx.opts.env;
    let (maj, min) = cx.version;
    if cx.version > env.spirv_version() {
        let msg = format!("Invalid SPIR-V binary version {maj}.{min} for target environment {}.", env_phrase(env));
        let (em, en) = env.spirv_version();
        let d = Diagnostic::error("version.env-version", Span::new(0, 5), msg)
            .in_binary()
            .with_label(format!("the header declares SPIR-V {maj}.{min}"))
            .with_help(format!(
                "{} consumes SPIR-V up to {em}.{en}: assemble for that version or validate for a newer environment",
                env.name()
            ));
        cx.diags.push(d);
    }
}

/// Stage 2: extension versions and the entry point interfaces.
pub(super) fn check(cx: &mut Context<'_>) {
    extension_versions(cx);
    if cx.version >= (1, 4) {
        interfaces(cx);
    }
}

fn extension_versions(cx: &mut Context<'_>) {
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpExtension {
            continue;
        }
        let name = decode_string(&inst.operands);
        let need = match name.as_str() {
            "SPV_KHR_vulkan_memory_model" => (1, 3),
            "SPV_KHR_workgroup_memory_explicit_layout" => (1, 4),
            _ => continue,
        };
        if cx.version < need {
            let (maj, min) = cx.version;
            let msg = format!("{name} extension requires SPIR-V version {}.{} or later.", need.0, need.1);
            let d = cx.error("version.extension-version", i, msg);
            d.label = format!("this module is SPIR-V {maj}.{min}");
            d.help = Some(format!("assemble for SPIR-V {}.{} or later (e.g. --target-env spv{}.{})", need.0, need.1, need.0, need.1));
        }
    }
}

/// Every global variable referenced by an entry point's call tree is in its interface.
fn interfaces(cx: &mut Context<'_>) {
    let insts = cx.insts();
    // Global variables: id -> instruction index.
    let is_global = |cx: &Context<'_>, id: u32| -> Option<usize> {
        let i = cx.def(id)?;
        let inst = &insts[i];
        match inst.opcode {
            op::OpVariable | op::OpUntypedVariableKHR => {
                let sc = *inst.operands.get(2)?;
                (sc != storage_class::Function).then_some(i)
            }
            _ => None,
        }
    };
    // Functions: their id, the globals they use (with the using instruction), their callees.
    struct Func {
        uses: Vec<(u32, usize)>,
        calls: Vec<u32>,
    }
    let mut funcs: Vec<(u32, Func)> = Vec::new();
    let mut cur: Option<(u32, Func)> = None;
    for (i, inst) in insts.iter().enumerate() {
        match inst.opcode {
            op::OpFunction => {
                let id = inst.operands.get(1).copied().unwrap_or(0);
                cur = Some((id, Func { uses: Vec::new(), calls: Vec::new() }));
            }
            op::OpFunctionEnd => {
                if let Some(f) = cur.take() {
                    funcs.push(f);
                }
            }
            _ => {
                let Some((_, f)) = cur.as_mut() else { continue };
                if inst.opcode == op::OpFunctionCall
                    && let Some(&callee) = inst.operands.get(2) {
                        f.calls.push(callee);
                    }
                for (k, op) in cx.operands(i).iter().enumerate() {
                    if !op.kind.is_id() || op.kind == crate::grammar::OperandKind::IdResult {
                        continue;
                    }
                    for &w in cx.operand_words(i, k) {
                        if is_global(cx, w).is_some() {
                            f.uses.push((w, i));
                        }
                    }
                }
            }
        }
    }
    funcs.sort_by_key(|f| f.0);
    let find = |id: u32| funcs.binary_search_by_key(&id, |f| f.0).ok();
    for ep in 0..insts.len() {
        if insts[ep].opcode != op::OpEntryPoint {
            continue;
        }
        let Some(&fid) = insts[ep].operands.get(1) else { continue };
        // Interface ids: after the name string.
        let ops = cx.operands(ep);
        let mut interface: Vec<u32> = Vec::new();
        for k in 3..ops.len() {
            interface.extend_from_slice(cx.operand_words(ep, k));
        }
        interface.sort_unstable();
        let mut seen = vec![false; funcs.len()];
        let mut stack: Vec<usize> = find(fid).into_iter().collect();
        let mut missing: Vec<(u32, usize)> = Vec::new();
        while let Some(f) = stack.pop() {
            if core::mem::replace(&mut seen[f], true) {
                continue;
            }
            for &(v, at) in &funcs[f].1.uses {
                if interface.binary_search(&v).is_err() && !missing.iter().any(|m| m.0 == v) {
                    missing.push((v, at));
                }
            }
            for &c in &funcs[f].1.calls {
                if let Some(g) = find(c)
                    && !seen[g] {
                        stack.push(g);
                    }
            }
        }
        if missing.is_empty() {
            continue;
        }
        let ep_name = decode_string(cx.operand_words(ep, 2));
        for (v, at) in missing {
            let vname = cx.name(v);
            let Some(vi) = cx.def(v) else { continue };
            let msg = format!(
                "Interface variable {vname} is used by entry point '{ep_name}', but is not listed as an interface"
            );
            let related = [(vi, format!("{vname} is declared here")), (at, format!("{vname} is used here"))];
            let d = cx.error_related("version.interface-incomplete", ep, msg, related);
            d.label = format!("the interface of '{ep_name}' does not list {vname}");
            d.help = Some(format!("add {vname} to the OpEntryPoint's interface (required from SPIR-V 1.4 on)"));
        }
    }
}
