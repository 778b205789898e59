//! Unit tests of the writer's small parts (the constructs are tested with
//! naga in tests/tests/wgsl_emit.rs).

use super::literal::f16_to_f32;
use super::names::{Scope, is_reserved, sanitize};
use super::refuse::RefusalCode;

#[test]
fn names_are_sanitized() {
    assert_eq!(sanitize("main").as_deref(), Some("main"));
    assert_eq!(sanitize("var").as_deref(), Some("var_1"));
    assert_eq!(sanitize("__x").as_deref(), Some("_x"));
    assert_eq!(sanitize("1abc").as_deref(), Some("n1abc"));
    assert_eq!(sanitize("a b.c").as_deref(), Some("a_b_c"));
    // glslang's mangled function names: the parameter list is cut.
    assert_eq!(sanitize("f(vf4;i1;").as_deref(), Some("f"));
    assert_eq!(sanitize(""), None);
    assert_eq!(sanitize("_"), None);
    assert!(is_reserved("loop") && is_reserved("bitcast") && !is_reserved("data"));
}

#[test]
fn scopes_make_names_unique() {
    let mut s = Scope::default();
    assert_eq!(s.fresh(Some("x"), "v1"), "x");
    assert_eq!(s.fresh(Some("x"), "v2"), "x_1");
    assert_eq!(s.fresh(None, "v3"), "v3");
    assert_eq!(s.fresh(Some("%%"), "v4"), "v4");
    assert_eq!(s.fresh(Some("x_1"), "v5"), "x_1_1");
}

#[test]
fn halves_decode() {
    assert_eq!(f16_to_f32(0x3c00), 1.0);
    assert_eq!(f16_to_f32(0xc000), -2.0);
    assert_eq!(f16_to_f32(0x7bff), 65504.0);
    assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    assert!(f16_to_f32(0x7c00).is_infinite());
    assert!(f16_to_f32(0x7e00).is_nan());
}

#[test]
fn every_refusal_code_has_a_reason() {
    let all = RefusalCode::ALL;
    for (k, code) in all.iter().enumerate() {
        assert!(code.as_str().starts_with("wgsl.") && !code.why().is_empty(), "{code:?}");
        assert!(all[..k].iter().all(|c| c.as_str() != code.as_str()), "{code} twice");
    }
}

// Sampling: hand-written fragment (and vertex) shaders in, the WGSL out.

use super::plan::{BindingResource, Combined};
use super::refuse::{Limit, Refusal};
use super::{Options, Wgsl, lower};
use crate::ir::Ir;
use crate::text::{AsmOptions, assemble};
use alloc::string::String;
use alloc::vec::Vec;

/// A fragment shader writing `%r` (a vec4) to its output: `DECLS` are
/// the image, sampler and variable declarations, `BODY` the instructions
/// (`%uv`: a vec2 input, `%uvq`: a vec3, `%uvw4`: a vec4).
const FRAG: &str = "OpCapability Shader
OpCapability ImageQuery
OpCapability MinLod
OpMemoryModel Logical GLSL450
OpEntryPoint MODEL %main \"main\" %out %in2 %in3 %in4
MODE
OpName %tex \"tex\"
OpName %smp \"smp\"
OpName %cis \"cis\"
OpName %uv \"uv\"
OpName %uvq \"uvq\"
OpName %uvw4 \"uvw4\"
OpName %r \"r\"
NAMESOpDecorate %out Location 0
OpDecorate %in2 Location 0
OpDecorate %in3 Location 1
OpDecorate %in4 Location 2
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 1
OpDecorate %smp DescriptorSet 0
OpDecorate %smp Binding 3
OpDecorate %cis DescriptorSet 0
OpDecorate %cis Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%v2int = OpTypeVector %int 2
%v2float = OpTypeVector %float 2
%v3float = OpTypeVector %float 3
%v4float = OpTypeVector %float 4
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%f05 = OpConstant %float 0.5
%i1 = OpConstant %int 1
%i2 = OpConstant %int 2
%i9 = OpConstant %int 9
%off = OpConstantComposite %v2int %i1 %i2
%offbad = OpConstantComposite %v2int %i1 %i9
%p_out = OpTypePointer Output %v4float
%p_in2 = OpTypePointer Input %v2float
%p_in3 = OpTypePointer Input %v3float
%p_in4 = OpTypePointer Input %v4float
%out = OpVariable %p_out Output
%in2 = OpVariable %p_in2 Input
%in3 = OpVariable %p_in3 Input
%in4 = OpVariable %p_in4 Input
%img = OpTypeImage %float 2D DEPTH 0 0 1 Unknown
%si = OpTypeSampledImage %img
%sampler = OpTypeSampler
%p_img = OpTypePointer UniformConstant %img
%p_si = OpTypePointer UniformConstant %si
%p_smp = OpTypePointer UniformConstant %sampler
%tex = OpVariable %p_img UniformConstant
%smp = OpVariable %p_smp UniformConstant
%cis = OpVariable %p_si UniformConstant
%main = OpFunction %void None %fn
%l = OpLabel
%uv = OpLoad %v2float %in2
%uvq = OpLoad %v3float %in3
%uvw4 = OpLoad %v4float %in4
%t = OpLoad %img %tex
%s = OpLoad %sampler %smp
%ts = OpSampledImage %si %t %s
%c = OpLoad %si %cis
BODY
OpStore %out %r
OpReturn
OpFunctionEnd
";

fn frag(depth: u32, body: &str) -> String {
    let names = if body.contains("%d = ") { "OpName %d \"d\"\n" } else { "" };
    FRAG.replace("NAMES", names).replace("MODEL", "Fragment").replace("MODE", "OpExecutionMode %main OriginUpperLeft").replace("DEPTH", &alloc::format!("{depth}")).replace("BODY", body)
}

fn lower_text(src: &str) -> Result<Wgsl, Vec<Refusal>> {
    let words = assemble(src, &AsmOptions::default()).unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    let ir = Ir::build(crate::binary::read_words(&words).unwrap());
    let cfg = crate::cfg::analyze(&ir.module);
    lower(&ir, &cfg, &Options::default())
}

#[track_caller]
fn lowers_with(src: &str, lines: &[&str]) -> Wgsl {
    let w = lower_text(src).unwrap_or_else(|r| panic!("refused: {r:?}"));
    for l in lines {
        assert!(w.text.lines().any(|x| x.trim() == l.trim()), "no line `{l}` in\n{}", w.text);
    }
    w
}

#[track_caller]
fn refused_for(src: &str, what: &str) {
    let r = lower_text(src).expect_err("lowered");
    assert_eq!((r[0].code, r[0].limit), (RefusalCode::Image, Limit::Wgsl), "{r:?}");
    assert!(r[0].message.contains(what), "{:?} does not say {what}", r[0].message);
}

#[test]
fn combined_image_samplers_split_into_a_texture_and_a_sampler() {
    let w = lowers_with(&frag(0, "%r = OpImageSampleImplicitLod %v4float %c %uv"), &[
        "@group(0) @binding(0) var cis: texture_2d<f32>;",
        "@group(0) @binding(4) var cis_sampler: sampler;",
        "let r: vec4<f32> = textureSample(cis, cis_sampler, uv);",
    ]);
    // The sampler goes past every binding of its group (3, the sampler's).
    let cis = w.combined[0].variable;
    assert_eq!(w.combined, [Combined { variable: cis, texture: (0, 0), sampler: (0, 4) }]);
    let of_cis: Vec<_> = w.bindings.iter().filter(|b| b.variable == cis).map(|b| (b.binding, b.resource)).collect();
    assert_eq!(of_cis, [(0, BindingResource::Texture), (4, BindingResource::Sampler)]);
    // OpImage of it is the texture.
    lowers_with(&frag(0, "%ci = OpImage %img %c\n%r = OpImageFetch %v4float %ci %off"), &["let r: vec4<f32> = textureLoad(cis, vec2<i32>(1i, 2i), 0);"]);
}

#[test]
fn samplings_take_their_image_operands() {
    for (body, want) in [
        ("%r = OpImageSampleImplicitLod %v4float %ts %uv", "textureSample(tex, smp, uv)"),
        ("%r = OpImageSampleImplicitLod %v4float %ts %uv Bias %f05", "textureSampleBias(tex, smp, uv, 0.5f)"),
        ("%r = OpImageSampleExplicitLod %v4float %ts %uv Lod %f1", "textureSampleLevel(tex, smp, uv, 1.0f)"),
        ("%r = OpImageSampleExplicitLod %v4float %ts %uv Grad %uv %uv", "textureSampleGrad(tex, smp, uv, uv, uv)"),
        ("%r = OpImageSampleImplicitLod %v4float %ts %uv ConstOffset %off", "textureSample(tex, smp, uv, vec2<i32>(1i, 2i))"),
        ("%r = OpImageSampleExplicitLod %v4float %ts %uv Lod|ConstOffset %f0 %off", "textureSampleLevel(tex, smp, uv, 0.0f, vec2<i32>(1i, 2i))"),
        // Proj: the coordinate divided by its last component (q).
        ("%r = OpImageSampleProjImplicitLod %v4float %ts %uvq", "textureSample(tex, smp, uvq.xy / uvq.z)"),
        // A coordinate of more components than the image needs: the first ones.
        ("%r = OpImageSampleImplicitLod %v4float %ts %uvw4", "textureSample(tex, smp, uvw4.xy)"),
        ("%r = OpImageGather %v4float %ts %uv %i1", "textureGather(1, tex, smp, uv)"),
    ] {
        lowers_with(&frag(0, body), &[&alloc::format!("let r: vec4<f32> = {want};")]);
    }
}

#[test]
fn depth_comparisons_sample_depth_textures_with_comparison_samplers() {
    let src = |body: &str| frag(1, &alloc::format!("{body}\n%r = OpCompositeConstruct %v4float %d %d %d %d"));
    let w = lowers_with(&src("%d = OpImageSampleDrefImplicitLod %float %ts %uv %f05"), &[
        "@group(0) @binding(1) var tex: texture_depth_2d;",
        "@group(0) @binding(3) var smp: sampler_comparison;",
        "let d: f32 = textureSampleCompare(tex, smp, uv, 0.5f);",
    ]);
    let kinds: Vec<_> = w.bindings.iter().take(2).map(|b| (b.binding, b.resource)).collect();
    assert_eq!(kinds, [(1, BindingResource::DepthTexture), (3, BindingResource::ComparisonSampler)]);
    lowers_with(&src("%d = OpImageSampleDrefExplicitLod %float %ts %uv %f05 Lod %f0"), &["let d: f32 = textureSampleCompareLevel(tex, smp, uv, 0.5f);"]);
    // Proj: the depth reference is divided by q too.
    lowers_with(&src("%d = OpImageSampleProjDrefImplicitLod %float %ts %uvq %f05"), &["let d: f32 = textureSampleCompare(tex, smp, uvq.xy / uvq.z, 0.5f / uvq.z);"]);
    lowers_with(&frag(1, "%r = OpImageDrefGather %v4float %ts %uv %f05"), &["let r: vec4<f32> = textureGatherCompare(tex, smp, uv, 0.5f);"]);
    // Through a combined image sampler.
    lowers_with(&src("%d = OpImageSampleDrefImplicitLod %float %c %uv %f05"), &[
        "@group(0) @binding(0) var cis: texture_depth_2d;",
        "@group(0) @binding(4) var cis_sampler: sampler_comparison;",
    ]);
    // A depth texture sampled without comparison: (D, 0, 0, 1).
    lowers_with(&frag(1, "%r = OpImageSampleImplicitLod %v4float %ts %uv"), &[
        "@group(0) @binding(3) var smp: sampler;",
        "let r: vec4<f32> = vec4<f32>(textureSample(tex, smp, uv), 0.0, 0.0, 1.0);",
    ]);
    // Depth 0 (not a depth image) and compared: declared a depth texture,
    // and bound as one, never a colour texture compared.
    let w = lowers_with(&src("%d = OpImageSampleDrefImplicitLod %float %ts %uv %f05"), &["@group(0) @binding(1) var tex: texture_depth_2d;"]);
    assert_eq!(w.bindings[0].resource, BindingResource::DepthTexture);
    let w = lowers_with(&frag(2, "%d = OpImageSampleDrefImplicitLod %float %ts %uv %f05\n%r = OpCompositeConstruct %v4float %d %d %d %d").replace("Binding 1\n", "Binding 1\n"), &["@group(0) @binding(1) var tex: texture_depth_2d;"]);
    assert_eq!(w.bindings[0].resource, BindingResource::DepthTexture);
}

#[test]
fn what_wgsl_sampling_lacks_is_refused_as_wgsl_limits() {
    let dref = |body: &str| frag(1, &alloc::format!("{body}\n%r = OpCompositeConstruct %v4float %d %d %d %d"));
    refused_for(&dref("%d = OpImageSampleDrefExplicitLod %float %ts %uv %f05 Lod %f1"), "level other than a constant 0");
    refused_for(&dref("%d = OpImageSampleDrefExplicitLod %float %ts %uv %f05 Grad %uv %uv"), "bias or gradients");
    refused_for(&frag(0, "%r = OpImageSampleImplicitLod %v4float %ts %uv ConstOffset %offbad"), "[-8, 7]");
    refused_for(&frag(0, "%r = OpImageSampleImplicitLod %v4float %ts %uv MinLod %f1"), "minimum level of detail");
    refused_for(&frag(1, "%r = OpImageSampleExplicitLod %v4float %ts %uv Lod %f05"), "not a constant integer on a depth texture");
    refused_for(&frag(0, "%q = OpImageQueryLod %v2float %ts %uv\n%r = OpCompositeConstruct %v4float %q %q"), "OpImageQueryLod");
    // One sampler with and without comparison: WGSL's two sampler types.
    refused_for(
        &dref("%d = OpImageSampleDrefImplicitLod %float %ts %uv %f05\n%tex2 = OpLoad %img %tex\n%ts2 = OpSampledImage %si %tex2 %s\n%e = OpImageSampleImplicitLod %v4float %ts2 %uv"),
        "both with and without a depth comparison",
    );
    // Implicit level of detail in a vertex shader.
    let vert = FRAG.replace("NAMES", "").replace("MODEL", "Vertex").replace("MODE\n", "").replace("OpDecorate %out Location 0", "OpDecorate %out BuiltIn Position").replace("DEPTH", "0");
    refused_for(&vert.replace("BODY", "%r = OpImageSampleImplicitLod %v4float %ts %uv"), "outside a fragment shader");
    // An explicit level lowers there.
    lower_text(&vert.replace("BODY", "%r = OpImageSampleExplicitLod %v4float %ts %uv Lod %f0")).unwrap();
}

/// A fragment shader with EarlyFragmentTests that writes red and, unless
/// `depth` is empty, stores `depth` to FragDepth.
fn early(depth: &str) -> String {
    use alloc::format;
    let (iface, decorate, store) = if depth.is_empty() {
        ("", "", String::new())
    } else {
        (" %fd", "OpDecorate %fd BuiltIn FragDepth\nOpExecutionMode %main DepthReplacing\n", format!("OpStore %fd {depth}\n"))
    };
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %color{iface}
OpExecutionMode %main OriginUpperLeft
OpExecutionMode %main EarlyFragmentTests
{decorate}OpDecorate %color Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4 = OpTypeVector %float 4
%pv4 = OpTypePointer Output %v4
%pf = OpTypePointer Output %float
%color = OpVariable %pv4 Output
%fd = OpVariable %pf Output
%one = OpConstant %float 1
%zero = OpConstant %float 0
%c03 = OpConstant %float 0.3
%red = OpConstantComposite %v4 %one %zero %zero %one
%main = OpFunction %void None %fn
%l = OpLabel
OpStore %color %red
{store}OpReturn
OpFunctionEnd
"
    )
}

/// WGSL's depth test comes after the shader: EarlyFragmentTests is refused
/// where the order shows (a FragDepth write, which an early test ignores),
/// and lowered where it cannot (outputs only).
#[test]
fn early_fragment_tests_are_refused_where_the_order_shows() {
    let rs = lower_text(&early("%c03")).expect_err("refused");
    assert_eq!(rs[0].code, super::refuse::RefusalCode::EarlyTests, "{rs:?}");
    assert!(rs[0].message.contains("FragDepth"), "{rs:?}");
    assert!(lower_text(&early("")).is_ok());
}
