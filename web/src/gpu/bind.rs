//! Bindings beyond the module's own buffers: the buffer our WGSL lowering
//! introduces for a push-constant block (WebGPU has no push constants), and
//! images, samplers and texel buffers.

use super::{Backend, Job, ResourceKind};
use spvlab_core::wgsl::IntroducedKind;

/// Where a push-constant block lives in the WGSL of `job` (our lowering,
/// [`Backend::Wgsl`] only): its (group, binding) and whether it is a
/// uniform buffer (else a read-only storage buffer). `None`: the WGSL has
/// none, or this is another backend (they get wgpu's immediates).
pub(super) fn push_constant_buffer(job: &Job, entry: &str) -> Option<(u32, u32, bool)> {
    if job.backend != Backend::Wgsl {
        return None;
    }
    let graph = spvlab_core::cfg::analyze(&job.ir.module);
    let opts = spvlab_core::wgsl::Options { entry: Some(entry.to_string()) };
    let w = spvlab_core::wgsl::lower(job.ir, &graph, &opts).ok()?;
    w.introduced.iter().find_map(|i| match i.kind {
        IntroducedKind::PushConstantUniform => Some((i.group, i.binding, true)),
        IntroducedKind::PushConstantStorage => Some((i.group, i.binding, false)),
    })
}

/// The binding kind of an introduced push-constant buffer, as the module's
/// own buffers' kinds.
pub(super) fn push_kind(uniform: bool) -> ResourceKind {
    if uniform { ResourceKind::UniformBuffer } else { ResourceKind::StorageBuffer }
}

/// The (group, binding) of every buffer the WGSL of `job` declares
/// `var<storage, read>` (a NonWritable storage buffer, or a push-constant
/// block as one): the bind group layout must say read-only to match.
pub(super) fn read_only_buffers(job: &Job) -> Vec<(u32, u32)> {
    let Some(text) = job.wgsl.filter(|_| job.backend == Backend::Wgsl) else { return Vec::new() };
    let num = |s: &str, key: &str| -> Option<u32> {
        let at = s.find(key)? + key.len();
        let rest = &s[at..];
        rest[..rest.find(')')?].parse().ok()
    };
    text.lines()
        .filter(|l| l.starts_with("@group(") && l.contains("var<storage, read>"))
        .filter_map(|l| Some((num(l, "@group(")?, num(l, "@binding(")?)))
        .collect()
}
