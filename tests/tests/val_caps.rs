//! Capability, extension and version rules, on small modules: our verdict and
//! rule code, and, when the reference tools are installed, spirv-val's verdict
//! and first error line (the messages follow spirv-val's structure).

use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Diagnostic, Severity, TargetEnv};
use spvlab_tests::{reference_bin, run_tool, scratch};

fn ours(src: &str, asm_env: &str, env: &str) -> Vec<Diagnostic> {
    let words = assemble(src, &AsmOptions { env: TargetEnv::parse(asm_env).unwrap(), preserve_numeric_ids: false })
        .unwrap_or_else(|e| panic!("assembly failed: {:?}\n{src}", e.first().map(|d| &d.message)));
    let opts = Options { env: TargetEnv::parse(env).unwrap(), ..Options::default() };
    validate_words(&words, &opts).into_iter().filter(|d| d.severity == Severity::Error).collect()
}

/// spirv-val's verdict and error text, when installed.
fn reference(test: &str, src: &str, asm_env: &str, env: &str) -> Option<(bool, String)> {
    let bin = reference_bin()?;
    let dir = scratch(test);
    let asm = dir.join("t.spvasm");
    let spv = dir.join("t.spv");
    std::fs::write(&asm, src).unwrap();
    let (ok, _, err) = run_tool(&bin, "spirv-as", &["--target-env", asm_env, asm.to_str()?, "-o", spv.to_str()?]);
    assert!(ok, "spirv-as: {err}");
    let (ok, out, err) = run_tool(&bin, "spirv-val", &["--target-env", env, spv.to_str()?]);
    Some((ok, format!("{}{err}", String::from_utf8_lossy(&out))))
}

/// Expect `code` among our errors (or none when `code` is None); when spirv-val
/// is installed, expect the same verdict, and `theirs` in its message.
fn case(test: &str, src: &str, asm_env: &str, env: &str, code: Option<&str>, theirs: &str) {
    let diags = ours(src, asm_env, env);
    match code {
        None => assert!(diags.is_empty(), "{test}: expected valid, got {:?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>()),
        Some(c) => {
            let d = diags.iter().find(|d| d.code == c).unwrap_or_else(|| {
                panic!("{test}: expected {c}, got {:?}", diags.iter().map(|d| (d.code, &d.message)).collect::<Vec<_>>())
            });
            assert!(spvlab_core::valid::rules::rule(c).is_some(), "{c} has no rule entry");
            assert!(d.message.contains(theirs.trim_end()), "{test}: our message {:?} lacks {theirs:?}", d.message);
        }
    }
    if let Some((ok, text)) = reference(test, src, asm_env, env) {
        assert_eq!(ok, code.is_none(), "{test}: spirv-val disagrees: {text}");
        assert!(text.contains(theirs), "{test}: spirv-val said {text:?}, not {theirs:?}");
    }
}

fn module(caps: &str, decls: &str) -> String {
    format!("OpCapability Shader\nOpCapability Linkage\n{caps}OpMemoryModel Logical GLSL450\n{decls}")
}

#[test]
fn operand_needs_extension() {
    let decls = "%int = OpTypeInt 32 0\n%p = OpTypePointer StorageBuffer %int\n";
    case(
        "sb_ext",
        &module("", decls),
        "spv1.0",
        "spv1.0",
        Some("caps.operand-extension"),
        "2nd operand of TypePointer: operand StorageBuffer(12) requires one of these extensions: SPV_KHR_storage_buffer_storage_class SPV_KHR_variable_pointers",
    );
    case("sb_ext_ok", &module("OpExtension \"SPV_KHR_storage_buffer_storage_class\"\n", decls), "spv1.0", "spv1.0", None, "");
    case("sb_core", &module("", decls), "spv1.3", "spv1.3", None, "");
}

#[test]
fn operand_needs_capability() {
    let src = module("", "OpDecorate %int Alignment 4\n%int = OpTypeInt 32 0\n");
    case("align_cap", &src, "spv1.0", "spv1.0", Some("caps.operand-capability"), "Operand 2 of Decorate requires one of these capabilities: Kernel");
    // A mask bit: MemoryAccess Aligned needs no capability, but the
    // Volatile|MakePointerAvailable bit needs a version or extension.
    let src = module(
        "OpCapability FragmentBarycentricKHR\nOpExtension \"SPV_NV_fragment_shader_barycentric\"\n",
        "OpDecorate %x BuiltIn BaryCoordKHR\n%f = OpTypeFloat 32\n%v = OpTypeVector %f 3\n%p = OpTypePointer Input %v\n%x = OpVariable %p Input\n",
    );
    case("bary_ok", &src, "spv1.0", "spv1.0", None, "");
}

#[test]
fn implicitly_declared_capabilities() {
    // Shader implicitly declares Matrix.
    let src = module("", "%f = OpTypeFloat 32\n%v = OpTypeVector %f 4\n%m = OpTypeMatrix %v 4\n");
    case("implicit_matrix", &src, "spv1.0", "spv1.0", None, "");
    // Kernel does not: OpTypeMatrix needs Matrix.
    let src = "OpCapability Kernel\nOpCapability Linkage\nOpCapability Addresses\nOpMemoryModel Physical32 OpenCL\n%f = OpTypeFloat 32\n%v = OpTypeVector %f 4\n%m = OpTypeMatrix %v 4\n";
    case("kernel_matrix", src, "spv1.0", "spv1.0", Some("caps.instruction-capability"), "Opcode TypeMatrix requires one of these capabilities: Matrix");
}

#[test]
fn instruction_needs_capability_or_version() {
    let body = |inst: &str| {
        module(
            "",
            &format!(
                "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 0\n%c3 = OpConstant %int 3\n%v2 = OpTypeVector %int 2\n%f = OpFunction %void None %fn\n%e = OpLabel\n{inst}\nOpFunctionEnd\n"
            ),
        )
    };
    case("clock_cap", &body("%x = OpReadClockKHR %v2 %c3\nOpReturn"), "spv1.0", "spv1.0", Some("caps.instruction-capability"), "Opcode ReadClockKHR requires one of these capabilities: ShaderClockKHR");
    case(
        "terminate_invocation",
        &body("OpTerminateInvocation"),
        "spv1.0",
        "spv1.0",
        Some("caps.instruction-version"),
        "TerminateInvocation requires SPIR-V version 1.6 at minimum or one of the following extensions: SPV_KHR_terminate_invocation",
    );
    case("terminate_invocation_ok", &body("OpTerminateInvocation"), "spv1.6", "spv1.6", None, "");
}

#[test]
fn capability_operand_needs_extension_or_version() {
    case(
        "cap_ext",
        &module("OpCapability DenormPreserve\n", ""),
        "spv1.0",
        "spv1.0",
        Some("caps.operand-extension"),
        "1st operand of Capability: operand DenormPreserve(4464) requires one of these extensions: SPV_KHR_float_controls",
    );
    case(
        "cap_version",
        &module("OpCapability GroupNonUniform\n", ""),
        "spv1.0",
        "spv1.0",
        Some("caps.operand-version"),
        "1st operand of Capability: operand GroupNonUniform(61) requires SPIR-V version 1.3 or later",
    );
    case("cap_version_ok", &module("OpCapability GroupNonUniform\n", ""), "spv1.3", "spv1.3", None, "");
}

#[test]
fn operand_version_limits() {
    let s = "OpDecorate %s BufferBlock\n%int = OpTypeInt 32 0\n%s = OpTypeStruct %int\n";
    case("bufferblock_13", &module("", s), "spv1.3", "spv1.3", None, "");
    case("bufferblock_14", &module("", s), "spv1.4", "spv1.4", Some("caps.operand-removed"), "2nd operand of Decorate: operand BufferBlock(3) requires SPIR-V version 1.3 or earlier");
    let u = "OpDecorate %x UniformId %x\n%int = OpTypeInt 32 0\n%x = OpConstant %int 3\n";
    case("uniformid_10", &module("", u), "spv1.0", "spv1.0", Some("caps.operand-version"), "2nd operand of Decorate: operand UniformId(27) requires SPIR-V version 1.4 or later");
}

#[test]
fn extension_versions() {
    let src = "OpCapability Shader\nOpCapability Linkage\nOpCapability VulkanMemoryModel\nOpExtension \"SPV_KHR_vulkan_memory_model\"\nOpMemoryModel Logical Vulkan\n";
    case("vmm_10", src, "spv1.0", "spv1.0", Some("version.extension-version"), "SPV_KHR_vulkan_memory_model extension requires SPIR-V version 1.3 or later.");
    case("vmm_13", src, "spv1.3", "spv1.3", None, "");
}

#[test]
fn module_version_against_env() {
    let src = module("", "");
    case("env_version", &src, "spv1.4", "spv1.3", Some("version.env-version"), "Invalid SPIR-V binary version 1.4 for target environment SPIR-V 1.3.");
    case(
        "env_version_vk",
        &src,
        "spv1.4",
        "vulkan1.0",
        Some("version.env-version"),
        "Invalid SPIR-V binary version 1.4 for target environment SPIR-V 1.0 (under Vulkan 1.0 semantics).",
    );
}

#[test]
fn environment_capabilities() {
    let m = |cap: &str| {
        format!(
            "OpCapability Shader\n{cap}OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%e = OpLabel\nOpReturn\nOpFunctionEnd\n"
        )
    };
    case("vk_kernel", &m("OpCapability Kernel\n"), "vulkan1.0", "vulkan1.0", Some("caps.env-capability"), "Capability Kernel is not allowed by Vulkan 1.0 specification (or requires extension)");
    case("vk_int8", &m("OpCapability Int8\n"), "vulkan1.0", "vulkan1.0", None, "");
    case("vk_linkage", &m("OpCapability Linkage\n"), "vulkan1.1", "vulkan1.1", Some("caps.env-capability"), "Capability Linkage is not allowed by Vulkan 1.1 specification (or requires extension)");
    case("vk_nonuniform_12", &m("OpCapability ShaderNonUniform\n"), "vulkan1.2", "vulkan1.2", None, "");
}

#[test]
fn entry_point_interface_from_1_4() {
    let src = |iface: &str| {
        format!(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"{iface}\nOpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%int = OpTypeInt 32 0\n%p = OpTypePointer Private %int\n%g = OpVariable %p Private\n%fn = OpTypeFunction %void\n%sub = OpFunction %void None %fn\n%s = OpLabel\n%x = OpLoad %int %g\nOpReturn\nOpFunctionEnd\n%main = OpFunction %void None %fn\n%e = OpLabel\n%c = OpFunctionCall %void %sub\nOpReturn\nOpFunctionEnd\n"
        )
    };
    case("iface_13", &src(""), "spv1.3", "spv1.3", None, "");
    case("iface_14", &src(""), "spv1.4", "spv1.4", Some("version.interface-incomplete"), "is used by entry point 'main'");
    case("iface_14_ok", &src(" %g"), "spv1.4", "spv1.4", None, "");
}

#[test]
fn diagnostics_point_at_the_instruction_and_the_capabilities() {
    let src = module("", "%int = OpTypeInt 32 0\n%p = OpTypePointer StorageBuffer %int\n");
    let d = ours(&src, "spv1.0", "spv1.0");
    let d = d.iter().find(|d| d.code == "caps.operand-extension").expect("an extension error");
    assert!(d.help.as_deref().unwrap_or("").contains("OpExtension \"SPV_KHR_storage_buffer_storage_class\""));
    assert!(!d.related.is_empty(), "the capability section is related");
    assert!(d.label.contains("StorageBuffer"));
}
