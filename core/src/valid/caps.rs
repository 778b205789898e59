//! Capabilities, extensions and versions: every instruction and every operand
//! value (each enumerant, each bit of a mask, each enumerant parameter) must be
//! enabled by a declared capability, a declared extension, or the module's
//! SPIR-V version, as the grammar says; and the client API of the target
//! environment must allow each declared capability.
//!
//! Declared capabilities include the ones they implicitly declare (the grammar
//! lists, for each capability, the capabilities it depends on).

use crate::grammar::{built_in, capability, decoration, op};
use super::Context;
use super::declared::Declared;
use crate::diag::Diagnostic;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{self, Category, EnumerantDesc, OperandKind, Version};
use crate::{Span, TargetEnv};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "caps.instruction-capability",
        summary: "An instruction needs one of its enabling capabilities.",
        explanation: "The grammar lists, for some instructions, the capabilities that enable \
                      them (section 3.56 of the spec: 'Capability: ...'). A module may use such \
                      an instruction only if it declares one of them with OpCapability, directly \
                      or through a capability that implicitly declares it. Fix: add \
                      `OpCapability X` for one of the listed capabilities.",
    },
    Rule {
        code: "caps.operand-capability",
        summary: "An operand value needs one of its enabling capabilities.",
        explanation: "Enumerants (storage classes, decorations, built-ins, execution modes, each \
                      bit of a mask, ...) may list enabling capabilities in the spec's tables. \
                      Using the value requires declaring one of them (directly or implicitly). \
                      Fix: add `OpCapability X` for one of the listed capabilities.",
    },
    Rule {
        code: "caps.instruction-version",
        summary: "An instruction needs a newer SPIR-V version or one of its extensions.",
        explanation: "Instructions that entered core SPIR-V in a later version can be used in an \
                      older module only through the extension that introduced them, and \
                      instructions that exist only in extensions need that extension declared. \
                      Fix: raise the module's version or add `OpExtension \"SPV_...\"`.",
    },
    Rule {
        code: "caps.instruction-removed",
        summary: "An instruction was removed from SPIR-V after some version.",
        explanation: "Some instructions were removed from core SPIR-V (their grammar entry has a \
                      last version). A module with a newer version must not use them.",
    },
    Rule {
        code: "caps.operand-extension",
        summary: "An operand value needs one of its extensions.",
        explanation: "Enumerants introduced by an extension may be used in a module whose \
                      version predates their entry into core only when one of the extensions \
                      that define them is declared. Fix: add `OpExtension \"SPV_...\"` (or raise \
                      the module's SPIR-V version where the value entered core).",
    },
    Rule {
        code: "caps.operand-version",
        summary: "An operand value needs a newer SPIR-V version.",
        explanation: "Enumerants that entered core SPIR-V in a later version, and are defined by \
                      no extension, cannot be used in an older module. Fix: raise the module's \
                      SPIR-V version (and target environment).",
    },
    Rule {
        code: "caps.operand-removed",
        summary: "An operand value was removed from SPIR-V after some version.",
        explanation: "Some enumerants were removed from core SPIR-V (e.g. the BufferBlock \
                      decoration, last in 1.3; use Block on a StorageBuffer variable instead). \
                      A module with a newer version must not use them.",
    },
    Rule {
        code: "caps.env-capability",
        summary: "The target environment does not allow this capability.",
        explanation: "Each client API lists the capabilities a module may declare (Vulkan: \
                      appendix 'Vulkan Environment for SPIR-V'; OpenCL: the SPIR-V environment \
                      specification, per profile). Other capabilities are allowed only when an \
                      extension that enables them is declared. Fix: remove the capability or \
                      declare the extension that provides it.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

impl Declared {
    /// Attach the capability section (or say where one goes) to a diagnostic.
    fn cap_related(&self, cx: &Context<'_>) -> Option<(Span, String)> {
        self.cap_section.map(|(a, b)| {
            let (sa, sb) = (cx.span(a), cx.span(b));
            (Span::new(sa.start, sb.end), String::from("the module's capabilities are declared here"))
        })
    }

    fn ext_related(&self, cx: &Context<'_>) -> Option<(Span, String)> {
        match self.ext_section {
            Some((a, b)) => {
                let (sa, sb) = (cx.span(a), cx.span(b));
                Some((Span::new(sa.start, sb.end), String::from("the module's extensions are declared here")))
            }
            None => self.cap_section.map(|(_, b)| {
                (cx.span(b), String::from("the module declares no extension; OpExtension goes after the capabilities"))
            }),
        }
    }
}

fn cap_names(caps: &[u32]) -> String {
    let mut v: Vec<u32> = caps.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut s = String::new();
    for c in v {
        s.push_str(grammar::capability_name(c).unwrap_or("?"));
        s.push(' ');
    }
    s
}

fn ext_names(exts: &[&str]) -> String {
    let mut v: Vec<&str> = exts.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut s = String::new();
    for e in v {
        s.push_str(e);
        s.push(' ');
    }
    s
}

fn first_cap_name(caps: &[u32]) -> &'static str {
    caps.iter().copied().min().and_then(grammar::capability_name).unwrap_or("?")
}

fn ver(v: Version) -> String {
    format!("{}.{}", v.0, v.1)
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The pass: instruction and operand requirements, and the environment's
/// capabilities.
pub(super) fn check(cx: &mut Context<'_>) {
    let declared = cx.declared();
    let module_version = cx.version;
    let env = cx.opts.env;
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        let Some(desc) = cx.desc(i) else { continue };
        let opname = desc.name.strip_prefix("Op").unwrap_or(desc.name);
        let opcode = inst.opcode;

        // The instruction itself.
        let amd_ballot = (op::OpGroupIAddNonUniformAMD..=op::OpGroupSMaxNonUniformAMD).contains(&opcode) && declared.has_ext("SPV_AMD_shader_ballot");
        if !desc.capabilities.is_empty() && !amd_ballot && !declared.has_any_cap(desc.capabilities) {
            let msg = format!("Opcode {opname} requires one of these capabilities: {}", cap_names(desc.capabilities));
            let help = format!("add `OpCapability {}`", first_cap_name(desc.capabilities));
            let rel = declared.cap_related(cx);
            undeclared(cx, "caps.instruction-capability", i, msg, help, rel).label = format!("{} needs a capability the module does not declare", desc.name);
        } else if desc.capabilities.is_empty() || opcode == op::OpTerminateInvocation {
            instruction_version(cx, &declared, i, desc.name, desc.extensions, desc.version, desc.last_version);
        }

        // Its operands.
        let n_ops = cx.operands(i).len();
        for k in 0..n_ops {
            if opcode == op::OpExtInst && k >= 4 {
                break;
            }
            let op = cx.operands(i)[k];
            let cat = op.kind.category();
            if !matches!(cat, Category::ValueEnum | Category::BitEnum) {
                continue;
            }
            let Some(&word) = cx.operand_words(i, k).first() else { continue };
            if cat == Category::BitEnum {
                let mut bit = 0x8000_0000u32;
                while bit != 0 {
                    if word & bit != 0 {
                        operand_value(cx, &declared, i, k, op.kind, bit, opname);
                    }
                    bit >>= 1;
                }
            } else {
                operand_value(cx, &declared, i, k, op.kind, word, opname);
            }
        }

        if opcode == op::OpCapability
            && let Some(&c) = cx.insts()[i].operands.first() {
                env_capability(cx, &declared, i, c, env);
            }
    }
    let _ = module_version;
}

/// An error for something the module does not declare (a capability or an
/// extension), with the fix and where the module declares what it has.
fn undeclared<'c>(
    cx: &'c mut Context<'_>,
    code: &'static str,
    i: usize,
    msg: String,
    help: String,
    rel: Option<(Span, String)>,
) -> &'c mut Diagnostic {
    let d = cx.error(code, i, msg);
    d.help = Some(help);
    if let Some((s, l)) = rel {
        d.relate(s, l);
    }
    d
}

fn instruction_version(
    cx: &mut Context<'_>,
    declared: &Declared,
    i: usize,
    name: &'static str,
    exts: &'static [&'static str],
    version: Option<Version>,
    last: Option<Version>,
) {
    let opname = name.strip_prefix("Op").unwrap_or(name);
    let mv = cx.version;
    match version {
        None => {
            if exts.is_empty() {
                let d = cx.error("caps.instruction-version", i, format!("{opname} is reserved for future use."));
                d.label = format!("{name} is not part of any SPIR-V version or extension");
                return;
            }
            if !declared.has_any_ext(exts) {
                let msg = format!("{opname} requires one of the following extensions: {}", ext_names(exts));
                let help = format!("add `OpExtension \"{}\"`", exts.iter().min().copied().unwrap_or("?"));
                let rel = declared.ext_related(cx);
                undeclared(cx, "caps.instruction-version", i, msg, help, rel).label = format!("{name} comes from an extension the module does not declare");
            }
        }
        Some(v) if mv < v => {
            if exts.is_empty() {
                let msg = format!("{opname} requires SPIR-V version {} at minimum.", ver(v));
                let d = cx.error("caps.instruction-version", i, msg);
                d.label = format!("{name} entered SPIR-V in version {}; this module is version {}", ver(v), ver(mv));
                d.help = Some(format!("target SPIR-V {} or later", ver(v)));
            } else if !declared.has_any_ext(exts) {
                let msg = format!(
                    "{opname} requires SPIR-V version {} at minimum or one of the following extensions: {}",
                    ver(v),
                    ext_names(exts)
                );
                let help = format!(
                    "add `OpExtension \"{}\"` or target SPIR-V {} or later",
                    exts.iter().min().copied().unwrap_or("?"),
                    ver(v)
                );
                let rel = declared.ext_related(cx);
                undeclared(cx, "caps.instruction-version", i, msg, help, rel).label = format!("{name} entered SPIR-V in version {}; this module is version {}", ver(v), ver(mv));
            }
        }
        _ => {}
    }
    if let Some(l) = last
        && mv > l {
            let msg = format!("{opname} requires SPIR-V version {} or earlier", ver(l));
            let d = cx.error("caps.instruction-removed", i, msg);
            d.label = format!("{name} was removed after SPIR-V {}; this module is version {}", ver(l), ver(mv));
        }
}

/// The capabilities that enable an operand value, with spirv-val's exceptions.
fn enabling_caps(cx: &Context<'_>, kind: OperandKind, e: &'static EnumerantDesc) -> Option<&'static [u32]> {
    match kind {
        // Mere mention of these built-ins in a decoration needs no capability.
        OperandKind::BuiltIn
            if matches!(e.value, built_in::PointSize | built_in::ClipDistance | built_in::CullDistance) =>
        {
            None
        }
        OperandKind::Decoration if e.value == decoration::FPRoundingMode && cx.opts.env.is_vulkan() => Some(FP_ROUNDING_VULKAN),
        _ => Some(e.capabilities),
    }
}

/// What Vulkan needs for the FPRoundingMode decoration.
static FP_ROUNDING_VULKAN: &[u32] = &[
    capability::StorageUniformBufferBlock16,
    capability::StorageUniform16,
    capability::StoragePushConstant16,
    capability::StorageInputOutput16,
];

fn operand_value(
    cx: &mut Context<'_>,
    declared: &Declared,
    i: usize,
    k: usize,
    kind: OperandKind,
    word: u32,
    opname: &str,
) {
    let Some(e) = kind.enumerant(word) else { return };
    let Some(caps) = enabling_caps(cx, kind, e) else { return };
    let opcode = cx.insts()[i].opcode;
    let kind_name = kind.name();
    if opcode != op::OpCapability && !caps.is_empty() && !declared.has_any_cap(caps) {
        let msg = format!("Operand {} of {opname} requires one of these capabilities: {}", k + 1, cap_names(caps));
        let help = format!("add `OpCapability {}`", first_cap_name(caps));
        let rel = declared.cap_related(cx);
        undeclared(cx, "caps.operand-capability", i, msg, help, rel).label = format!("{kind_name} {} needs a capability the module does not declare", e.name);
        return;
    }
    let mv = cx.version;
    let nth = ordinal(k + 1);
    let requires = |what: String| format!("{nth} operand of {opname}: operand {}({word}) requires {what}", e.name);
    let needs_ext = match e.version {
        None => !e.extensions.is_empty(),
        Some(v) => mv < v,
    };
    if needs_ext {
        if e.extensions.is_empty() {
            if let Some(v) = e.version {
                let msg = requires(format!("SPIR-V version {} or later", ver(v)));
                let d = cx.error("caps.operand-version", i, msg);
                d.label = format!("{kind_name} {} entered SPIR-V in version {}; this module is version {}", e.name, ver(v), ver(mv));
                d.help = Some(format!("target SPIR-V {} or later", ver(v)));
            }
        } else if !declared.has_any_ext(e.extensions) {
            let msg = requires(format!("one of these extensions: {}", ext_names(e.extensions)));
            let mut help = format!("add `OpExtension \"{}\"`", e.extensions.iter().min().copied().unwrap_or("?"));
            if let Some(v) = e.version {
                help.push_str(&format!(" or target SPIR-V {} or later", ver(v)));
            }
            let rel = declared.ext_related(cx);
            undeclared(cx, "caps.operand-extension", i, msg, help, rel).label = format!("{kind_name} {} comes from an extension the module does not declare", e.name);
        }
    }
    if let Some(l) = e.last_version
        && mv > l {
            let msg = requires(format!("SPIR-V version {} or earlier", ver(l)));
            let d = cx.error("caps.operand-removed", i, msg);
            d.label = format!("{kind_name} {} was removed after SPIR-V {}; this module is version {}", e.name, ver(l), ver(mv));
        }
}

// ---------------------------------------------------------------------------
// Capabilities allowed by client APIs.

static VULKAN_1_0: &[&str] = &[
    "Matrix", "Shader", "InputAttachment", "Sampled1D", "Image1D", "SampledBuffer", "ImageBuffer",
    "ImageQuery", "DerivativeControl", "Geometry", "Tessellation", "Float64", "Int64", "Int16",
    "TessellationPointSize", "GeometryPointSize", "ImageGatherExtended", "StorageImageMultisample",
    "UniformBufferArrayDynamicIndexing", "SampledImageArrayDynamicIndexing",
    "StorageBufferArrayDynamicIndexing", "StorageImageArrayDynamicIndexing", "ClipDistance",
    "CullDistance", "ImageCubeArray", "SampleRateShading", "SparseResidency", "MinLod",
    "SampledCubeArray", "ImageMSArray", "StorageImageExtendedFormats", "InterpolationFunction",
    "StorageImageReadWithoutFormat", "StorageImageWriteWithoutFormat", "MultiViewport",
    "Int64Atomics", "TransformFeedback", "GeometryStreams", "Float16", "Int8",
];

static VULKAN_1_1: &[&str] = &[
    "DeviceGroup", "MultiView", "StorageBuffer16BitAccess", "UniformAndStorageBuffer16BitAccess",
    "StoragePushConstant16", "StorageInputOutput16", "DrawParameters",
    "VariablePointersStorageBuffer", "VariablePointers", "GroupNonUniform", "GroupNonUniformVote",
    "GroupNonUniformArithmetic", "GroupNonUniformBallot", "GroupNonUniformShuffle",
    "GroupNonUniformShuffleRelative", "GroupNonUniformClustered", "GroupNonUniformQuad",
    "GroupNonUniformPartitionedNV",
];

static VULKAN_1_2: &[&str] = &[
    "DenormPreserve", "DenormFlushToZero", "SignedZeroInfNanPreserve", "RoundingModeRTE",
    "RoundingModeRTZ", "VulkanMemoryModel", "VulkanMemoryModelDeviceScope",
    "StorageBuffer8BitAccess", "UniformAndStorageBuffer8BitAccess", "StoragePushConstant8",
    "ShaderViewportIndex", "ShaderLayer", "PhysicalStorageBufferAddresses", "RuntimeDescriptorArray",
    "UniformTexelBufferArrayDynamicIndexing", "StorageTexelBufferArrayDynamicIndexing",
    "UniformBufferArrayNonUniformIndexing", "SampledImageArrayNonUniformIndexing",
    "StorageBufferArrayNonUniformIndexing", "StorageImageArrayNonUniformIndexing",
    "InputAttachmentArrayNonUniformIndexing", "UniformTexelBufferArrayNonUniformIndexing",
    "StorageTexelBufferArrayNonUniformIndexing", "ShaderNonUniform",
    "InputAttachmentArrayDynamicIndexing",
];

static VULKAN_1_3: &[&str] = &[
    "DotProduct", "DotProductInputAll", "DotProductInput4x8Bit", "DotProductInput4x8BitPacked",
    "DemoteToHelperInvocation",
];

static VULKAN_1_4: &[&str] = &[];

static OPENCL_1_2: &[&str] = &[
    "Addresses", "Float16Buffer", "Int16", "Int8", "Kernel", "Linkage", "Vector16", "ImageBasic",
    "LiteralSampler", "Sampled1D", "Image1D", "SampledBuffer", "ImageBuffer",
];
static OPENCL_1_2_FULL: &[&str] = &["Int64"];
static OPENCL_2_0: &[&str] =
    &["DeviceEnqueue", "GenericPointer", "Groups", "Pipes", "ImageReadWrite", "ImageMipmap"];
static OPENCL_2_1: &[&str] = &["SubgroupDispatch", "PipeStorage"];

/// The capability lists of an environment, and its name as spirv-val says it;
/// `None` for environments without restrictions here.
fn env_caps(env: TargetEnv) -> Option<(Vec<&'static [&'static str]>, &'static str)> {
    use TargetEnv::*;
    let v = |n: usize| [VULKAN_1_0, VULKAN_1_1, VULKAN_1_2, VULKAN_1_3, VULKAN_1_4][..n].to_vec();
    let cl = |n: usize| [OPENCL_1_2, OPENCL_1_2_FULL, OPENCL_2_0, OPENCL_2_1][..n].to_vec();
    Some(match env {
        Vulkan1_0 => (v(1), "Vulkan 1.0 specification (or requires extension)"),
        Vulkan1_1 | Vulkan1_1Spv1_4 => (v(2), "Vulkan 1.1 specification (or requires extension)"),
        Vulkan1_2 => (v(3), "Vulkan 1.2 specification (or requires extension)"),
        Vulkan1_3 => (v(4), "Vulkan 1.3 specification (or requires extension)"),
        Vulkan1_4 => (v(5), "Vulkan 1.4 specification (or requires extension)"),
        OpenCl1_2 => (cl(2), "OpenCL 1.2 Full Profile specification (or requires extension or capability)"),
        OpenCl1_2Embedded => (cl(2), "OpenCL 1.2 Embedded Profile specification (or requires extension or capability)"),
        OpenCl2_0 => (cl(3), "OpenCL 2.0 Full Profile specification (or requires extension or capability)"),
        OpenCl2_0Embedded => (cl(3), "OpenCL 2.0 Embedded Profile specification (or requires extension or capability)"),
        OpenCl2_1 => (cl(4), "OpenCL 2.1 Full Profile specification (or requires extension or capability)"),
        OpenCl2_1Embedded => (cl(4), "OpenCL 2.1 Embedded Profile specification (or requires extension or capability)"),
        OpenCl2_2 => (cl(4), "OpenCL 2.2 Full Profile specification (or requires extension or capability)"),
        OpenCl2_2Embedded => (cl(4), "OpenCL 2.2 Embedded Profile specification (or requires extension or capability)"),
        _ => return None,
    })
}

fn env_capability(cx: &mut Context<'_>, declared: &Declared, i: usize, cap: u32, env: TargetEnv) {
    let Some((lists, what)) = env_caps(env) else { return };
    let Some(e) = OperandKind::Capability.enumerant(cap) else { return };
    let names = core::iter::once(e.name).chain(e.aliases.iter().copied());
    let mut allowed = false;
    for n in names {
        if lists.iter().any(|l| l.contains(&n)) {
            allowed = true;
        }
    }
    // Enabled by a declared extension.
    if !allowed && declared.has_any_ext(e.extensions) {
        allowed = true;
    }
    // OpenCL: a capability allowed because a declared one implies it is fine too.
    if !allowed && env.is_opencl() {
        allowed = declared.caps.iter().any(|&c| {
            c != cap
                && OperandKind::Capability.enumerant(c).is_some_and(|d| {
                    d.capabilities.contains(&cap)
                        && lists.iter().any(|l| l.contains(&d.name))
                })
        });
    }
    if !allowed {
        let msg = format!("Capability {} is not allowed by {what}", e.name);
        let env_name = env.name();
        let d = cx.error("caps.env-capability", i, msg);
        d.label = format!("{} is not available to {env_name} modules", e.name);
        d.help = Some(if e.extensions.is_empty() {
            String::from("remove this capability and the features that need it")
        } else {
            format!("declare one of the extensions that enable it: {}", ext_names(e.extensions).trim_end())
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::valid::rules::rule;

    /// Every code this family emits (a string literal `"<family>.<name>"` in its
    /// sources) has a RULES entry.
    #[test]
    fn emitted_codes_are_in_the_rule_table() {
        let sources = [
            include_str!("caps.rs"),
            include_str!("version.rs"),
            include_str!("types.rs"),
            include_str!("ext/vla.rs"),
            include_str!("ext/constant_data.rs"),
            include_str!("ext/untyped.rs"),
        ];
        let mut n = 0;
        for src in sources {
            for part in src.split('"').skip(1).step_by(2) {
                let is_code = ["caps.", "version.", "types.", "ext."].iter().any(|p| part.starts_with(p))
                    && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.');
                let is_code = is_code && !part.ends_with(".rs");
                if is_code {
                    assert!(rule(part).is_some(), "{part} has no RULES entry");
                    n += 1;
                }
            }
        }
        assert!(n > 20, "found only {n} codes");
    }
}
