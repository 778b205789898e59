//! What the two shared instruction walks (`valid/mod.rs`) carry from one
//! instruction to the next for the families they hand instructions to:
//! [`Lookups`] in the walk of the instruction rules, [`Sync`] in the walk of
//! atomics, barriers and group operations, with the execution-model limits
//! those record ([`ModelLimit`], [`ScopeLimit`]) for the checks at the end of
//! each walk.

use super::context::Context;
use crate::grammar::{capability, memory_model, op};
use alloc::vec::Vec;

/// An instruction's limit on the execution models of the entry points that
/// reach it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ModelLimit {
    /// Fragment, or GLCompute, MeshEXT, TaskEXT with a derivative group mode.
    ImplicitLod,
    /// As `ImplicitLod` (its own code).
    Derivative,
    /// Fragment only.
    Fragment,
    /// Fragment only, for another family's instruction: its rule code.
    FragmentOnly(&'static str),
}

/// What the instruction rules look up in the module once, on first use.
#[derive(Default)]
pub(super) struct Lookups {
    /// Whether SPV_KHR_physical_storage_buffer is declared.
    pub psb: Option<bool>,
    /// Whether VariablePointers or VariablePointersStorageBuffer is declared.
    pub variable_pointers: Option<bool>,
    /// The OpSampledImage instructions, whose uses are checked after the walk.
    pub sampled_images: Vec<usize>,
    /// The instructions whose entry points' execution models are checked
    /// after the walk (image.rs, derivative.rs).
    pub limited: Vec<(usize, ModelLimit)>,
}

/// The limitations a scope puts on the execution models that may reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ScopeLimit {
    /// An OpControlBarrier execution scope other than Subgroup (Vulkan).
    ControlBarrierNotSubgroup,
    /// The Workgroup execution scope (Vulkan).
    WorkgroupExecution,
    /// The ShaderCallKHR memory scope (Vulkan).
    ShaderCall,
    /// The Workgroup memory scope (Vulkan).
    WorkgroupMemory,
    /// The Workgroup memory scope with the GLSL450 memory model (Vulkan).
    WorkgroupMemoryGlsl450,
    /// OpControlBarrier before SPIR-V 1.3.
    OldControlBarrier,
}

/// What the family reads from the module once, and the limitations found.
pub(super) struct Sync {
    /// Shader declared (with the capabilities that imply it).
    pub shader: bool,
    /// CooperativeMatrixNV declared (spirv-val then also takes spec constants).
    pub coop_nv: bool,
    pub vmm: bool,
    pub vmm_device: bool,
    pub ballot_or_vote: bool,
    /// The Vulkan rules of memory semantics: a Vulkan environment or the VulkanKHR memory model.
    pub vulkan_semantics: bool,
    pub glsl450: bool,
    /// AtomicFloat16VectorNV declared.
    pub f16_vectors: bool,
    /// (instruction, operand, limitation).
    pub limits: Vec<(usize, usize, ScopeLimit)>,
}

impl Sync {
    pub fn new(cx: &Context<'_>) -> Sync {
        let declared = cx.declared();
        let has = |c: u32| declared.caps.contains(&c);
        let model = cx
            .insts()
            .iter()
            .find(|x| x.opcode == op::OpMemoryModel)
            .and_then(|x| x.operands.get(1).copied());
        Sync {
            shader: has(capability::Shader),
            coop_nv: has(capability::CooperativeMatrixNV),
            vmm: has(capability::VulkanMemoryModel),
            vmm_device: has(capability::VulkanMemoryModelDeviceScope),
            ballot_or_vote: has(capability::SubgroupBallotKHR) || has(capability::SubgroupVoteKHR),
            vulkan_semantics: cx.opts.env.is_vulkan() || model == Some(memory_model::Vulkan),
            glsl450: model == Some(memory_model::GLSL450),
            f16_vectors: has(capability::AtomicFloat16VectorNV),
            limits: Vec::new(),
        }
    }

    /// Whether Shader is declared.
    pub fn shader_cap(&self) -> bool {
        self.shader
    }

    /// Record that instruction `i` (at operand `k`) may be reached only from
    /// the execution models `limit` allows.
    pub fn limit(&mut self, i: usize, k: usize, limit: ScopeLimit) {
        self.limits.push((i, k, limit));
    }
}

