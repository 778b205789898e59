//! Entry points and execution modes: what OpEntryPoint may name, which execution
//! modes each execution model needs, and where OpExecutionMode points (SPIR-V
//! spec 2.16.1 "Universal Validation Rules", 3.52.5 "Mode-Setting
//! Instructions"; spirv-val's validate_mode_setting and its entry point checks).

use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{built_in, capability, decoration, execution_mode as em, execution_model as model, op};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.modes.no-entry-point",
        summary: "A module needs an OpEntryPoint unless it declares Linkage.",
        explanation: "SPIR-V spec 2.16.1: a module must have at least one OpEntryPoint, unless \
                      it declares the Linkage capability (a library to link with others). Fix: \
                      add `OpEntryPoint GLCompute %main \"main\"` or `OpCapability Linkage`.",
    },
    Rule {
        code: "inst.modes.entry-point-function",
        summary: "OpEntryPoint's Entry Point must be an OpFunction returning void, without parameters for shaders.",
        explanation: "SPIR-V spec 3.52.5, OpEntryPoint: Entry Point must be the Result <id> of an \
                      OpFunction; 2.16.1 and Vulkan (VUID-StandaloneSpirv-None-04633): a \
                      shader's entry point takes no parameters and returns void (only Kernel \
                      entry points take parameters). Fix: name the function, declared as \
                      `OpFunction %void None %fn_void`.",
    },
    Rule {
        code: "inst.modes.mode-target",
        summary: "OpExecutionMode's Entry Point must be named by an OpEntryPoint.",
        explanation: "SPIR-V spec 3.52.5, OpExecutionMode and OpExecutionModeId: Entry Point must \
                      be the Entry Point <id> operand of an OpEntryPoint instruction. Fix: use the \
                      id of the function the OpEntryPoint names.",
    },
    Rule {
        code: "inst.modes.required-mode",
        summary: "Each execution model needs its execution modes: Fragment an origin, Geometry its primitives...",
        explanation: "SPIR-V spec 3.6 and 2.16.2 (Shader capability): a Fragment entry point \
                      declares exactly one of OriginUpperLeft and OriginLowerLeft and at most \
                      one depth mode; Tessellation entry points at most one spacing, primitive \
                      and vertex order mode; Geometry exactly one input and one output \
                      primitive mode; MeshEXT an output primitive mode with OutputVertices and \
                      OutputPrimitivesEXT. Vulkan (VUID-StandaloneSpirv-None-10685): compute, \
                      task and mesh entry points need LocalSize, LocalSizeId or a WorkgroupSize \
                      built-in. Fix: add `OpExecutionMode %main OriginUpperLeft` (or the mode \
                      the message names).",
    },
    Rule {
        code: "inst.modes.local-size-zero",
        summary: "LocalSize (or a constant WorkgroupSize built-in) must not have a product of zero.",
        explanation: "SPIR-V spec 3.6, LocalSize: x, y and z are the workgroup's dimensions, so \
                      each must be at least 1 (spirv-val computes their product with 32-bit \
                      wrap-around, as its reference does). Fix: use 1 for an unused dimension.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

const REQUIRED: &str = "inst.modes.required-mode";

/// Check the entry points and execution modes.
pub(super) fn check(cx: &mut Context<'_>) {
    let declared = cx.declared();
    let shader = declared.has_cap(capability::Shader);
    let vulkan = cx.opts.env.is_vulkan();
    // Entry points by function id: (instruction, model), and each function's modes.
    let mut entries: Vec<(usize, u32, u32)> = Vec::new();
    let mut entry_ids: BTreeSet<u32> = BTreeSet::new();
    let mut modes: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut local_sizes: Vec<usize> = Vec::new();
    let mut workgroup_size = false;
    let mut workgroup_size_decos: Vec<usize> = Vec::new();
    let mut local_size_id = false;
    for (i, inst) in cx.insts().iter().enumerate() {
        let o = inst.operands.as_slice();
        match inst.opcode {
            op::OpFunction => break,
            op::OpEntryPoint => {
                if let [m, f, ..] = *o {
                    entries.push((i, m, f));
                    entry_ids.insert(f);
                }
            }
            op::OpExecutionMode | op::OpExecutionModeId => {
                if let [f, m, ..] = *o {
                    modes.entry(f).or_default().insert(m);
                    if inst.opcode == op::OpExecutionModeId && m == em::LocalSizeId {
                        local_size_id = true;
                    }
                    if inst.opcode == op::OpExecutionMode && m == em::LocalSize {
                        local_sizes.push(i);
                    }
                }
            }
            op::OpDecorate
                if o.get(1) == Some(&decoration::BuiltIn) && o.get(2) == Some(&built_in::WorkgroupSize) => {
                    workgroup_size = true;
                    workgroup_size_decos.push(i);
                }
            _ => {}
        }
    }
    if entries.is_empty()
        && !declared.has_cap(capability::Linkage)
        && !declared.has_cap(capability::GraphARM)
        && !cx.insts().is_empty()
    {
        let at = cx.insts().iter().position(|x| x.opcode == op::OpMemoryModel).unwrap_or(0);
        let m = String::from("The module has no OpEntryPoint; only a module that declares the Linkage (or GraphARM) capability may have none");
        cx.error("inst.modes.no-entry-point", at, m).label = "no entry point in this module".into();
    }
    let none = BTreeSet::new();
    for &(i, m, f) in &entries {
        if !entry_point(cx, i, m, f) {
            continue;
        }
        // Its interface operands: the interface family (interface.rs).
        let has = modes.get(&f).unwrap_or(&none);
        let count = |set: &[u32]| set.iter().filter(|x| has.contains(x)).count();
        let need = |cx: &mut Context<'_>, msg: &str| {
            let name = cx.name(f);
            let m = format!("The entry point {name} {msg}");
            cx.error_at(REQUIRED, i, 1, m).label = String::from("missing or conflicting execution modes");
        };
        if shader {
            match m {
                model::Fragment => {
                    let origins = count(&[em::OriginUpperLeft, em::OriginLowerLeft]);
                    if origins == 2 {
                        need(cx, "(Fragment) declares both OriginUpperLeft and OriginLowerLeft: it must declare only one");
                    } else if origins == 0 {
                        need(cx, "(Fragment) must declare an OriginUpperLeft or OriginLowerLeft execution mode");
                    } else if count(&[em::DepthGreater, em::DepthLess, em::DepthUnchanged]) > 1 {
                        need(cx, "(Fragment) may declare at most one of DepthGreater, DepthLess and DepthUnchanged");
                    }
                }
                model::TessellationControl | model::TessellationEvaluation => {
                    if count(&[em::SpacingEqual, em::SpacingFractionalEven, em::SpacingFractionalOdd]) > 1 {
                        need(cx, "(Tessellation) may declare at most one of SpacingEqual, SpacingFractionalEven and SpacingFractionalOdd");
                    } else if count(&[em::Triangles, em::Quads, em::Isolines]) > 1 {
                        need(cx, "(Tessellation) may declare at most one of Triangles, Quads and Isolines");
                    } else if count(&[em::VertexOrderCw, em::VertexOrderCcw]) > 1 {
                        need(cx, "(Tessellation) may declare at most one of VertexOrderCw and VertexOrderCcw");
                    }
                }
                model::Geometry => {
                    let inputs = [em::InputPoints, em::InputLines, em::InputLinesAdjacency, em::Triangles, em::InputTrianglesAdjacency];
                    if count(&inputs) != 1 {
                        need(cx, "(Geometry) must declare exactly one of InputPoints, InputLines, InputLinesAdjacency, Triangles and InputTrianglesAdjacency");
                    } else if count(&[em::OutputPoints, em::OutputLineStrip, em::OutputTriangleStrip]) != 1 {
                        need(cx, "(Geometry) must declare exactly one of OutputPoints, OutputLineStrip and OutputTriangleStrip");
                    }
                }
                model::MeshEXT => {
                    if count(&[em::OutputPoints, em::OutputLinesEXT, em::OutputTrianglesEXT]) != 1 {
                        need(cx, "(MeshEXT) must declare exactly one of OutputPoints, OutputLinesEXT and OutputTrianglesEXT");
                    } else if count(&[em::OutputPrimitivesEXT, em::OutputVertices]) != 2 {
                        need(cx, "(MeshEXT) must declare both OutputPrimitivesEXT and OutputVertices");
                    }
                }
                _ => {}
            }
        }
        let compute = matches!(m, model::GLCompute | model::MeshEXT | model::MeshNV | model::TaskEXT | model::TaskNV);
        if vulkan
            && compute
            && !has.contains(&em::LocalSize)
            && !workgroup_size
            && !local_size_id
            && !has.contains(&em::TileShadingRateQCOM)
        {
            need(cx, "must declare a LocalSize or LocalSizeId execution mode, or the module a WorkgroupSize built-in, in the Vulkan environment");
        }
    }
    for i in local_sizes {
        let o = cx.insts()[i].operands.as_slice();
        let [f, _, x, y, z, ..] = *o else { continue };
        if workgroup_size || !entry_ids.contains(&f) {
            continue;
        }
        if x.wrapping_mul(y).wrapping_mul(z) == 0 {
            let m = format!("LocalSize {x} {y} {z} has a product of zero: each dimension must be at least 1");
            let k = if x == 0 { 2 } else if y == 0 { 3 } else { 4 };
            cx.error_at("inst.modes.local-size-zero", i, k, m).label = "a workgroup of no invocations".into();
        }
    }
    // A WorkgroupSize built-in that is a constant composite of constants: the
    // same rule on its static value (spec constants' defaults are not static).
    for i in workgroup_size_decos {
        let Some(&target) = cx.insts()[i].operands.first() else { continue };
        let Some(def) = cx.def_inst(target) else { continue };
        if def.opcode != op::OpConstantComposite {
            continue;
        }
        let parts: Vec<u32> = def.operands.get(2..).unwrap_or(&[]).to_vec();
        let dims: Option<Vec<u32>> = parts
            .iter()
            .map(|&p| cx.def_inst(p).filter(|d| d.opcode == op::OpConstant).and_then(|d| d.operands.get(2).copied()))
            .collect();
        let Some(d) = dims.filter(|d| d.len() == 3) else { continue };
        if d[0].wrapping_mul(d[1]).wrapping_mul(d[2]) == 0 {
            let name = cx.name(target);
            let m = format!(
                "the WorkgroupSize built-in {name} is ({}, {}, {}), a product of zero: each dimension must be at least 1",
                d[0], d[1], d[2]
            );
            cx.error_at("inst.modes.local-size-zero", i, 0, m).label = "a workgroup of no invocations".into();
        }
    }
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode == op::OpFunction {
            break;
        }
        if !matches!(inst.opcode, op::OpExecutionMode | op::OpExecutionModeId) {
            continue;
        }
        let Some(&f) = inst.operands.first() else { continue };
        if !entry_ids.contains(&f) {
            let name = cx.name(f);
            let op_name = cx.desc(i).map_or("", |d| d.name);
            let m = format!("{op_name} Entry Point {name} is not the Entry Point of an OpEntryPoint");
            cx.error_at("inst.modes.mode-target", i, 0, m).label = "not an entry point".into();
        }
    }
}

/// OpEntryPoint `i`'s Entry Point `f`: a function, without parameters unless a
/// Kernel, returning void. Returns whether it is sound.
fn entry_point(cx: &mut Context<'_>, i: usize, m: u32, f: u32) -> bool {
    const CODE: &str = "inst.modes.entry-point-function";
    let Some(d) = cx.def_inst(f).filter(|d| d.opcode == op::OpFunction) else {
        let what = cx.def_opcode(f).and_then(crate::grammar::instruction).map_or("", |d| d.name);
        let name = cx.name(f);
        let m = format!("OpEntryPoint Entry Point {name} (defined by {what}) must be an OpFunction");
        cx.error_at(CODE, i, 1, m).label = "must be a function".into();
        return false;
    };
    let (ret, fty) = (d.operands.first().copied(), d.operands.get(3).copied());
    if m != model::Kernel {
        let params = fty.and_then(|t| cx.def_inst(t)).map(|t| t.operands.len());
        if params != Some(2) {
            let name = cx.name(f);
            let m = format!("OpEntryPoint Entry Point {name} must take no parameters (only a Kernel entry point may)");
            cx.error_at(CODE, i, 1, m).label = "a function with parameters".into();
            return false;
        }
    }
    if ret.and_then(|r| cx.def_opcode(r)) != Some(op::OpTypeVoid) {
        let name = cx.name(f);
        let m = format!("OpEntryPoint Entry Point {name} must return void");
        cx.error_at(CODE, i, 1, m).label = "a function that returns a value".into();
        return false;
    }
    true
}

