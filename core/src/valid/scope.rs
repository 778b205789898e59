//! Scopes and memory semantics, the operands that atomics, barriers and group
//! operations share (SPIR-V spec 3.27 "Scope <id>", 3.25 "Memory Semantics
//! <id>", 2.16.1 and the Vulkan environment's rules; spirv-val's
//! validate_scopes and validate_memory_semantics). The walk of the
//! synchronization rules (`valid/mod.rs`) hands each atomic, barrier and
//! non-uniform group instruction to its family (`atomics.rs`, `barrier.rs`,
//! `group.rs`), which checks those operands with the functions here; the
//! scopes that only some execution models allow are recorded in [`Sync`] and
//! checked after the walk ([`FAMILY`]'s `finish`) against the entry points
//! whose call tree holds the instruction.
//!
//! A scope value that is not a Scope at all is reported with the other
//! operands (`types.invalid-scope`).

use super::Context;
use super::family::{Family, Instructions};
use super::operand::{describe_operand, opname};
use super::rules::Rule;
use super::walk::{ScopeLimit, Sync};
use crate::grammar::{OperandKind, class, execution_model as em, memory_semantics as ms, op, scope};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.scope.type",
        summary: "A Scope operand must be a 32-bit integer scalar.",
        explanation: "SPIR-V spec 3.27: a Scope <id> is the <id> of a 32-bit integer scalar whose \
                      value is one of the Scope enumerants. Fix: use a constant of a 32-bit int \
                      type, e.g. `%subgroup = OpConstant %uint 3`.",
    },
    Rule {
        code: "inst.scope.not-constant",
        summary: "With the Shader capability, a Scope operand must be an OpConstant.",
        explanation: "SPIR-V spec 2.16.1 (universal validation rules, for shaders): the Scope <id> \
                      of atomics, barriers and group operations must come from an OpConstant (or \
                      OpConstantNull); a spec constant, an OpUndef or a computed value cannot be a \
                      scope. Fix: use a constant such as `%device = OpConstant %uint 1`.",
    },
    Rule {
        code: "inst.scope.execution",
        summary: "The execution scope must be one the instruction and the environment allow.",
        explanation: "SPIR-V spec 3.52.21 and 3.52.24: a non-uniform group operation's Execution \
                      scope is Subgroup or Workgroup; the Vulkan environment (VUID-StandaloneSpirv-\
                      None-04636, -04642) limits execution scopes to Workgroup and Subgroup, and \
                      those of non-uniform group operations to Subgroup. Fix: use the Subgroup \
                      (3) or Workgroup (2) scope.",
    },
    Rule {
        code: "inst.scope.memory",
        summary: "The memory scope must be one the module's capabilities and environment allow.",
        explanation: "SPIR-V spec 3.27: QueueFamily needs the VulkanMemoryModel capability, and \
                      under it Device needs VulkanMemoryModelDeviceScope. The Vulkan environment \
                      (VUID-StandaloneSpirv-None-04638, -07951) limits memory scopes to Device, \
                      QueueFamily, Workgroup, ShaderCallKHR, Subgroup and Invocation, and in \
                      Vulkan 1.0 allows Subgroup only with SubgroupBallotKHR or SubgroupVoteKHR. \
                      Fix: use an allowed scope or declare the capability.",
    },
    Rule {
        code: "inst.scope.execution-model",
        summary: "Some scopes are allowed only in some execution models.",
        explanation: "The Vulkan environment allows the Workgroup execution and memory scopes only \
                      in GLCompute, TessellationControl, Task and Mesh shaders (VUID-StandaloneSpirv-\
                      None-04637, -07321; not TessellationControl with the GLSL450 memory model, \
                      -07320), ShaderCallKHR only in ray tracing stages (-04640), and an \
                      OpControlBarrier with an execution scope other than Subgroup not in Vertex, \
                      Fragment, Geometry, TessellationEvaluation and ray tracing stages (-04682). \
                      The rule applies to every entry point whose call tree holds the \
                      instruction. Fix: use the Subgroup scope, or move the code to a stage that \
                      allows the scope.",
    },
    Rule {
        code: "inst.semantics.type",
        summary: "A Memory Semantics operand must be a 32-bit integer scalar.",
        explanation: "SPIR-V spec 3.25: a Memory Semantics <id> is the <id> of a 32-bit integer \
                      scalar holding a mask of MemorySemantics bits. Fix: use a constant of a \
                      32-bit int type, e.g. `%acq_rel_wg = OpConstant %uint 264`.",
    },
    Rule {
        code: "inst.semantics.not-constant",
        summary: "With the Shader capability, a Memory Semantics operand must be an OpConstant.",
        explanation: "SPIR-V spec 2.16.1 (universal validation rules, for shaders): the Memory \
                      Semantics <id> of atomics and barriers must come from an OpConstant (or \
                      OpConstantNull). Fix: use a constant.",
    },
    Rule {
        code: "inst.semantics.capability",
        summary: "Some Memory Semantics bits need a capability.",
        explanation: "SPIR-V spec 3.25: UniformMemory needs the Shader capability; OutputMemory, \
                      MakeAvailable, MakeVisible and Volatile need VulkanMemoryModel. Fix: \
                      declare the capability or clear the bit.",
    },
    Rule {
        code: "inst.semantics.order",
        summary: "Memory Semantics must name a memory order the instruction allows.",
        explanation: "SPIR-V spec 3.25 and the memory model (2.18): at most one of Acquire, \
                      Release, AcquireRelease and SequentiallyConsistent; no Acquire on an atomic \
                      store, no Release on an atomic load; MakeAvailable needs Release or \
                      AcquireRelease, MakeVisible Acquire or AcquireRelease. The Vulkan API \
                      (or the VulkanKHR memory model) also forbids SequentiallyConsistent \
                      (VUID-StandaloneSpirv-MemorySemantics-10866), a relaxed OpMemoryBarrier \
                      (-10869), and a non-relaxed order with the Invocation memory scope \
                      (-04641). Fix: choose one allowed memory order.",
    },
    Rule {
        code: "inst.semantics.storage",
        summary: "In Vulkan, a memory order and storage class semantics go together.",
        explanation: "The Vulkan API (or the VulkanKHR memory model; VUID-StandaloneSpirv-\
                      MemorySemantics-10870, -10871): a non-relaxed memory order must have at \
                      least one of UniformMemory, WorkgroupMemory, ImageMemory or OutputMemory \
                      set, and any of those bits needs a non-relaxed memory order. Fix: e.g. \
                      AcquireRelease|WorkgroupMemory (264), or Relaxed with no storage bits (0).",
    },
    Rule {
        code: "inst.semantics.volatile",
        summary: "The Volatile semantics bit is for atomic instructions only.",
        explanation: "SPIR-V spec 3.25: Volatile applies to atomic instructions; barriers must \
                      not set it (VUID-StandaloneSpirv-MemorySemantics-10874). Fix: clear the bit.",
    },
    Rule {
        code: "inst.semantics.unequal",
        summary: "A compare-exchange's Unequal semantics must be no stronger than its Equal semantics.",
        explanation: "SPIR-V spec 3.52.18 (OpAtomicCompareExchange): Unequal must not be Release \
                      or AcquireRelease, nor a stronger memory order than Equal; in Vulkan \
                      (VUID-StandaloneSpirv-MemorySemantics-10877 to -10879) its storage class \
                      and MakeVisible bits must also be set in Equal, and both or neither must \
                      be Volatile. Fix: weaken Unequal, e.g. to Relaxed (0) or Equal's order \
                      without Release.",
    },
];

impl ScopeLimit {
    fn allows(self, model: u32) -> bool {
        let compute_like = matches!(
            model,
            em::GLCompute | em::TessellationControl | em::TaskNV | em::MeshNV | em::TaskEXT | em::MeshEXT
        );
        match self {
            ScopeLimit::ControlBarrierNotSubgroup => !matches!(
                model,
                em::Fragment
                    | em::Vertex
                    | em::Geometry
                    | em::TessellationEvaluation
                    | em::RayGenerationKHR
                    | em::IntersectionKHR
                    | em::AnyHitKHR
                    | em::ClosestHitKHR
                    | em::MissKHR
            ),
            ScopeLimit::WorkgroupExecution | ScopeLimit::WorkgroupMemory => compute_like,
            ScopeLimit::ShaderCall => matches!(
                model,
                em::RayGenerationKHR | em::IntersectionKHR | em::AnyHitKHR | em::ClosestHitKHR | em::MissKHR | em::CallableKHR
            ),
            ScopeLimit::WorkgroupMemoryGlsl450 => model != em::TessellationControl,
            ScopeLimit::OldControlBarrier => matches!(
                model,
                em::TessellationControl | em::GLCompute | em::Kernel | em::TaskNV | em::MeshNV
            ),
        }
    }

    fn says(self) -> &'static str {
        match self {
            ScopeLimit::ControlBarrierNotSubgroup => "[VUID-StandaloneSpirv-None-04682] in Vulkan, an OpControlBarrier execution scope must be Subgroup in Fragment, Vertex, Geometry, TessellationEvaluation, RayGeneration, Intersection, AnyHit, ClosestHit and Miss shaders",
            ScopeLimit::WorkgroupExecution => "[VUID-StandaloneSpirv-None-04637] in Vulkan, the Workgroup execution scope is only for TaskNV, MeshNV, TaskEXT, MeshEXT, TessellationControl and GLCompute shaders",
            ScopeLimit::ShaderCall => "[VUID-StandaloneSpirv-None-04640] the ShaderCallKHR memory scope needs a ray tracing execution model",
            ScopeLimit::WorkgroupMemory => "[VUID-StandaloneSpirv-None-07321] in Vulkan, the Workgroup memory scope is only for MeshNV, TaskNV, MeshEXT, TaskEXT, TessellationControl and GLCompute shaders",
            ScopeLimit::WorkgroupMemoryGlsl450 => "[VUID-StandaloneSpirv-None-07320] in Vulkan, the Workgroup memory scope cannot be used in a TessellationControl shader with the GLSL450 memory model",
            ScopeLimit::OldControlBarrier => "in SPIR-V 1.2 or earlier, OpControlBarrier needs one of the execution models TessellationControl, GLCompute, Kernel, MeshNV or TaskNV",
        }
    }
}

/// A 32-bit int operand's value as spirv-val reads it: `Err(())` when it is
/// not a 32-bit int scalar, `Ok(None)` when it is not a constant (spec
/// constants included), `Ok(Some(v))` for an OpConstant or OpConstantNull.
fn int32(cx: &Context<'_>, i: usize, k: usize) -> Result<Option<u32>, ()> {
    let id = *cx.operand_words(i, k).first().ok_or(())?;
    let di = cx.def(id).ok_or(())?;
    let t = cx.ir().result_type(di).ok_or(())?;
    if !matches!(cx.ir().ty(t).map(|t| &t.ty), Some(Type::Int { width: 32, .. })) {
        return Err(());
    }
    let inst = &cx.insts()[di];
    Ok(match inst.opcode {
        op::OpConstantNull => Some(0),
        op::OpConstant => inst.operands.get(2).copied(),
        _ => None,
    })
}

/// Whether `opcode` makes a constant or a spec constant (spirv-val's spvOpcodeIsConstant).
pub(super) fn is_constant_op(opcode: Option<u16>) -> bool {
    matches!(
        opcode,
        Some(
            op::OpConstant
                | op::OpConstantNull
                | op::OpConstantTrue
                | op::OpConstantFalse
                | op::OpConstantComposite
                | op::OpConstantSampler
                | op::OpSpecConstant
                | op::OpSpecConstantTrue
                | op::OpSpecConstantFalse
                | op::OpSpecConstantComposite
                | op::OpSpecConstantOp
        )
    )
}

/// The name of scope value `v` ("Workgroup").
fn scope_name(v: u32) -> &'static str {
    OperandKind::Scope.enumerant(v).map_or("an unknown scope", |e| e.name)
}

/// Check the operand of a scope (`what` is "Execution" or "Memory"); its value
/// when it is a constant.
fn any_scope(cx: &mut Context<'_>, s: &Sync, i: usize, k: usize, what: &str) -> Option<u32> {
    let what = if what.is_empty() { String::from("Scope") } else { format!("{what} scope") };
    match int32(cx, i, k) {
        Err(()) => {
            let opn = opname(cx, i);
            let got = describe_operand(cx, i, k);
            let m = format!("{opn} {what} {got}, must be a 32-bit int scalar");
            cx.error_at("inst.scope.type", i, k, m).label = "must be a 32-bit int".into();
            None
        }
        Ok(None) => {
            let id = *cx.operand_words(i, k).first()?;
            let def = cx.def_opcode(id);
            let bad = s.shader && (!s.coop_nv || !is_constant_op(def));
            if bad {
                let by = def.and_then(crate::grammar::instruction).map_or("", |d| d.name);
                let name = cx.name(id);
                let opn = opname(cx, i);
                let need = if s.coop_nv { "a constant or spec constant" } else { "an OpConstant" };
                let m = format!("{opn} {what} {name} is defined by {by}: with the Shader capability a scope must be {need}");
                cx.error_at("inst.scope.not-constant", i, k, m).label = format!("must be {need}");
            }
            None
        }
        Ok(Some(v)) => OperandKind::Scope.enumerant(v).map(|_| v),
    }
}

fn scope_error(cx: &mut Context<'_>, code: &'static str, i: usize, k: usize, what: &str, v: u32, why: &str) {
    let opn = opname(cx, i);
    let name = cx.name(*cx.operand_words(i, k).first().unwrap_or(&0));
    let sname = scope_name(v);
    let m = format!("{opn} {what} scope {name} is {sname}: {why}");
    cx.error_at(code, i, k, m).label = format!("{sname} is not allowed here");
}

/// Whether `opcode` is a non-uniform group operation with an Execution scope.
pub(super) const fn is_non_uniform(opcode: u16) -> bool {
    matches!(class::of(opcode), class::OpClass::NonUniformGroup)
}

/// Check operand `k` of instruction `i` as an Execution scope.
pub(super) fn execution(cx: &mut Context<'_>, s: &mut Sync, i: usize, k: usize) {
    let Some(v) = any_scope(cx, s, i, k, "Execution") else { return };
    let opcode = cx.insts()[i].opcode;
    let group = is_non_uniform(opcode);
    const E: &str = "inst.scope.execution";
    let env = cx.opts.env;
    if env.is_vulkan() {
        if env != crate::TargetEnv::Vulkan1_0 && group && v != scope::Subgroup {
            let why = "[VUID-StandaloneSpirv-None-04642] in Vulkan, the execution scope of a non-uniform group operation must be Subgroup";
            return scope_error(cx, E, i, k, "Execution", v, why);
        }
        if opcode == op::OpControlBarrier && v != scope::Subgroup {
            s.limit(i, k, ScopeLimit::ControlBarrierNotSubgroup);
        }
        if v == scope::Workgroup {
            s.limit(i, k, ScopeLimit::WorkgroupExecution);
        }
        if v != scope::Workgroup && v != scope::Subgroup {
            let why = "[VUID-StandaloneSpirv-None-04636] in Vulkan, execution scopes are limited to Workgroup and Subgroup";
            return scope_error(cx, E, i, k, "Execution", v, why);
        }
    }
    if group && v != scope::Subgroup && v != scope::Workgroup {
        let why = "the execution scope of a non-uniform group operation must be Subgroup or Workgroup";
        scope_error(cx, E, i, k, "Execution", v, why);
    }
}

/// Check operand `k` of instruction `i` as a Memory scope.
pub(super) fn memory(cx: &mut Context<'_>, s: &mut Sync, i: usize, k: usize) {
    let Some(v) = any_scope(cx, s, i, k, "Memory") else { return };
    const M: &str = "inst.scope.memory";
    if v == scope::QueueFamily {
        if !s.vmm {
            scope_error(cx, M, i, k, "Memory", v, "the QueueFamily memory scope needs the VulkanMemoryModel capability");
        }
        return;
    }
    if v == scope::Device && s.vmm && !s.vmm_device {
        let why = "with the VulkanMemoryModel capability, the Device memory scope needs the VulkanMemoryModelDeviceScope capability";
        return scope_error(cx, M, i, k, "Memory", v, why);
    }
    let env = cx.opts.env;
    if !env.is_vulkan() {
        return;
    }
    if !matches!(v, scope::Device | scope::Workgroup | scope::Subgroup | scope::Invocation | scope::ShaderCallKHR) {
        let why = "[VUID-StandaloneSpirv-None-04638] in Vulkan, memory scopes are limited to Device, QueueFamily, Workgroup, ShaderCallKHR, Subgroup and Invocation";
        return scope_error(cx, M, i, k, "Memory", v, why);
    }
    if env == crate::TargetEnv::Vulkan1_0 && v == scope::Subgroup && !s.ballot_or_vote {
        let why = "[VUID-StandaloneSpirv-SubgroupVoteKHR-07951] in Vulkan 1.0, the Subgroup memory scope needs SubgroupBallotKHR or SubgroupVoteKHR";
        return scope_error(cx, M, i, k, "Memory", v, why);
    }
    if v == scope::ShaderCallKHR {
        s.limit(i, k, ScopeLimit::ShaderCall);
    }
    if v == scope::Workgroup {
        s.limit(i, k, ScopeLimit::WorkgroupMemory);
        if s.glsl450 {
            s.limit(i, k, ScopeLimit::WorkgroupMemoryGlsl450);
        }
    }
}

const ORDER: u32 = ms::Acquire | ms::Release | ms::AcquireRelease | ms::SequentiallyConsistent;
const STORAGE: u32 = ms::UniformMemory | ms::WorkgroupMemory | ms::ImageMemory | ms::OutputMemory;

/// The names of the bits of semantics `v` ("AcquireRelease|WorkgroupMemory", "Relaxed").
fn bits(v: u32) -> String {
    let mut out = String::new();
    let mut rest = v;
    for b in 0..32 {
        let bit = 1u32 << b;
        if v & bit == 0 {
            continue;
        }
        if let Some(e) = OperandKind::MemorySemantics.enumerant(bit) {
            if !out.is_empty() {
                out.push('|');
            }
            out.push_str(e.name);
            rest &= !bit;
        }
    }
    if rest != 0 || out.is_empty() {
        if !out.is_empty() {
            out.push('|');
        }
        if v == 0 {
            out.push_str("Relaxed");
        } else {
            out.push_str(&format!("{rest:#x}"));
        }
    }
    out
}

/// Check operand `k` of instruction `i` as Memory Semantics, with the memory
/// scope at operand `scope_k`.
pub(super) fn semantics(cx: &mut Context<'_>, s: &Sync, i: usize, k: usize, scope_k: usize) {
    let opn = opname(cx, i);
    let v = match int32(cx, i, k) {
        Err(()) => {
            let got = describe_operand(cx, i, k);
            let m = format!("{opn} Memory Semantics {got}, must be a 32-bit int scalar");
            cx.error_at("inst.semantics.type", i, k, m).label = "must be a 32-bit int".into();
            return;
        }
        Ok(None) => {
            let Some(&id) = cx.operand_words(i, k).first() else { return };
            let def = cx.def_opcode(id);
            if s.shader && (!s.coop_nv || !is_constant_op(def)) {
                let by = def.and_then(crate::grammar::instruction).map_or("", |d| d.name);
                let name = cx.name(id);
                let need = if s.coop_nv { "a constant or spec constant" } else { "an OpConstant" };
                let m = format!("{opn} Memory Semantics {name} is defined by {by}: with the Shader capability memory semantics must be {need}");
                cx.error_at("inst.semantics.not-constant", i, k, m).label = format!("must be {need}");
            }
            return;
        }
        Ok(Some(v)) => v,
    };
    let opcode = cx.insts()[i].opcode;
    let vk = s.vulkan_semantics;
    let order = v & ORDER;
    let has_order = order != 0;
    let has_storage_bits = v & STORAGE != 0;
    let mut errs: Vec<(&'static str, String)> = Vec::new();
    let mut fail = |code: &'static str, why: String| errs.push((code, why));
    const CAP: &str = "inst.semantics.capability";
    const ORD: &str = "inst.semantics.order";
    if v & ms::UniformMemory != 0 && !s.shader {
        fail(CAP, "UniformMemory needs the Shader capability".into());
    }
    if v & ms::OutputMemory != 0 && !s.vmm {
        fail(CAP, "OutputMemory needs the VulkanMemoryModel capability".into());
    }
    if order.count_ones() > 1 {
        fail(ORD, "[VUID-StandaloneSpirv-MemorySemantics-10865] at most one of Acquire, Release, AcquireRelease and SequentiallyConsistent may be set".into());
    } else if vk && v & ms::SequentiallyConsistent != 0 {
        fail(ORD, "[VUID-StandaloneSpirv-MemorySemantics-10866] SequentiallyConsistent must not be used in the Vulkan API".into());
    } else if matches!(opcode, op::OpAtomicStore | op::OpAtomicFlagClear) && v & (ms::Acquire | ms::AcquireRelease) != 0 {
        fail(ORD, format!("[VUID-StandaloneSpirv-MemorySemantics-10867] {opn} must not use the Acquire or AcquireRelease memory order"));
    } else if opcode == op::OpAtomicLoad && v & (ms::Release | ms::AcquireRelease) != 0 {
        fail(ORD, format!("[VUID-StandaloneSpirv-MemorySemantics-10868] {opn} must not use the Release or AcquireRelease memory order"));
    } else if vk && opcode == op::OpMemoryBarrier && !has_order {
        fail(ORD, "[VUID-StandaloneSpirv-MemorySemantics-10869] in Vulkan, OpMemoryBarrier must not use the Relaxed memory order".into());
    } else if vk && has_order && !has_storage_bits {
        fail("inst.semantics.storage", "[VUID-StandaloneSpirv-MemorySemantics-10870] in Vulkan, a non-relaxed memory order needs at least one of UniformMemory, WorkgroupMemory, ImageMemory or OutputMemory".into());
    } else if vk && !has_order && has_storage_bits {
        fail("inst.semantics.storage", "[VUID-StandaloneSpirv-MemorySemantics-10871] in Vulkan, UniformMemory, WorkgroupMemory, ImageMemory and OutputMemory need a non-relaxed memory order (Acquire, Release or AcquireRelease)".into());
    }
    if v & ms::MakeAvailable != 0 {
        if !s.vmm {
            fail(CAP, "MakeAvailable needs the VulkanMemoryModel capability".into());
        } else if v & (ms::Release | ms::AcquireRelease) == 0 {
            fail(ORD, "[VUID-StandaloneSpirv-MemorySemantics-10872] MakeAvailable needs the Release or AcquireRelease memory order".into());
        }
    }
    if v & ms::MakeVisible != 0 {
        if !s.vmm {
            fail(CAP, "MakeVisible needs the VulkanMemoryModel capability".into());
        } else if v & (ms::Acquire | ms::AcquireRelease) == 0 {
            fail(ORD, "[VUID-StandaloneSpirv-MemorySemantics-10873] MakeVisible needs the Acquire or AcquireRelease memory order".into());
        }
    }
    if v & ms::Volatile != 0 {
        if !s.vmm {
            fail(CAP, "Volatile needs the VulkanMemoryModel capability".into());
        } else if !class::of(opcode).is_atomic() {
            fail("inst.semantics.volatile", "[VUID-StandaloneSpirv-MemorySemantics-10874] Volatile must not be used with barrier instructions".into());
        }
    }
    if matches!(opcode, op::OpAtomicCompareExchange | op::OpAtomicCompareExchangeWeak) && k == 5 {
        const U: &str = "inst.semantics.unequal";
        let equal = int32(cx, i, 4).ok().flatten().unwrap_or(0);
        let strong_acquire = ms::SequentiallyConsistent | ms::AcquireRelease | ms::Release | ms::Acquire;
        if v & (ms::Release | ms::AcquireRelease) != 0 {
            fail(U, "[VUID-StandaloneSpirv-MemorySemantics-10875] Unequal must not use the Release or AcquireRelease memory order".into());
        } else if (v & ms::SequentiallyConsistent != 0 && equal & ms::SequentiallyConsistent == 0)
            || (v & ms::Acquire != 0 && equal & strong_acquire == 0)
        {
            fail(U, "[VUID-StandaloneSpirv-MemorySemantics-10876] Unequal must not use a stronger memory order than Equal".into());
        } else if vk && v & !equal & STORAGE != 0 {
            fail(U, "[VUID-StandaloneSpirv-MemorySemantics-10877] in Vulkan, Unequal's storage class bits must also be set in Equal".into());
        } else if vk && v & !equal & ms::MakeVisible != 0 {
            fail(U, "[VUID-StandaloneSpirv-MemorySemantics-10878] in Vulkan, Unequal may set MakeVisible only if Equal does".into());
        } else if vk && (v ^ equal) & ms::Volatile != 0 {
            fail(U, "[VUID-StandaloneSpirv-MemorySemantics-10879] in Vulkan, Unequal must be Volatile if and only if Equal is".into());
        }
    }
    if vk && has_order && int32(cx, i, scope_k) == Ok(Some(scope::Invocation)) {
        fail(ORD, "[VUID-StandaloneSpirv-MemorySemantics-04641] in Vulkan, memory semantics with the Invocation memory scope must be Relaxed".into());
    }
    if errs.is_empty() {
        return;
    }
    let name = cx.name(*cx.operand_words(i, k).first().unwrap_or(&0));
    let b = bits(v);
    for (code, why) in errs {
        let m = format!("{opn} Memory Semantics {name} is {b}: {why}");
        cx.error_at(code, i, k, m).label = format!("{b} is not allowed here");
    }
}

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Sync { takes, check, finish: Some(finish) },
};

/// Whether `opcode` has a scope this family checks itself: OpReadClockKHR's
/// Scope, and the memory scopes of memory access and image operands.
fn takes(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpReadClockKHR
            | op::OpLoad
            | op::OpStore
            | op::OpCopyMemory
            | op::OpCopyMemorySized
            | op::OpImageRead
            | op::OpImageSparseRead
            | op::OpImageWrite
    )
}

/// Check the scopes of instruction `i` (see [`takes`]).
fn check(cx: &mut Context<'_>, s: &mut Sync, i: usize, opcode: u16) {
    if opcode == op::OpReadClockKHR {
        any_scope(cx, s, i, 2, "");
    } else {
        access_scopes(cx, s, i);
    }
}

/// The scopes of memory access and image operands (MakePointerAvailable,
/// MakePointerVisible, MakeTexelAvailable, MakeTexelVisible): memory scopes.
fn access_scopes(cx: &mut Context<'_>, s: &mut Sync, i: usize) {
    let n = cx.operands(i).len();
    for k in 0..n {
        if cx.operands(i)[k].kind == OperandKind::IdScope {
            memory(cx, s, i, k);
        }
    }
}

/// After the walk: the execution models the scopes allow.
fn finish(cx: &mut Context<'_>, s: &Sync) {
    if !s.limits.is_empty() {
        models(cx, &s.limits);
    }
}

/// Report each limited instruction reached from an entry point whose execution
/// model its limitation does not allow (once per instruction and limitation).
fn models(cx: &mut Context<'_>, limits: &[(usize, usize, ScopeLimit)]) {
    let ir = cx.ir();
    let nf = ir.functions.len();
    // The index of function `id` (functions are in binary order).
    let index = |id: u32| {
        let d = ir.def(id)?;
        let k = ir.functions.partition_point(|f| (f.inst as usize) < d);
        ir.functions.get(k).filter(|f| f.id == id).map(|_| k)
    };
    // The callees of each function.
    let mut calls: Vec<Vec<usize>> = alloc::vec![Vec::new(); nf];
    for (f, func) in ir.functions.iter().enumerate() {
        for j in func.inst as usize..(func.end as usize).min(cx.insts().len()) {
            let inst = &cx.insts()[j];
            if inst.opcode == op::OpFunctionCall
                && let Some(&callee) = inst.operands.get(2)
                && let Some(g) = index(callee)
            {
                calls[f].push(g);
            }
        }
    }
    // The execution models (with their entry point) that reach each function.
    let mut reached: Vec<Vec<(u32, usize)>> = alloc::vec![Vec::new(); nf];
    for ep in &ir.entry_points {
        let Some(start) = index(ep.function) else { continue };
        let mut seen = alloc::vec![false; nf];
        let mut stack = alloc::vec![start];
        while let Some(f) = stack.pop() {
            if core::mem::replace(&mut seen[f], true) {
                continue;
            }
            reached[f].push((ep.model, ep.inst as usize));
            stack.extend(calls[f].iter().copied().filter(|&g| !seen[g]));
        }
    }
    for &(i, k, limit) in limits {
        let Some(f) = ir.functions.partition_point(|x| x.inst as usize <= i).checked_sub(1) else { continue };
        let Some(&(model, ep)) = reached[f].iter().find(|(m, _)| !limit.allows(*m)) else { continue };
        let opn = opname(cx, i);
        let mname = OperandKind::ExecutionModel.enumerant(model).map_or("?", |e| e.name);
        let m = format!("{opn} is reached from a {mname} entry point: {}", limit.says());
        let code = if limit == ScopeLimit::OldControlBarrier { "inst.barrier.execution-model" } else { "inst.scope.execution-model" };
        let related = cx.span(ep);
        let d = cx.error_at(code, i, k, m);
        d.label = format!("not allowed in a {mname} shader");
        d.relate(related, String::from("the entry point"));
    }
}
