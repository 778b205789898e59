use super::*;
use crate::valid::Options;
use alloc::string::ToString;
use alloc::vec;

/// out.data[i] = in[i] * 2 over 4 invocations; the buffer `%buf` has the
/// OpName `out`, its struct `%S` has the member name `data`; a push
/// constant block of one f32 and one vec2<u32>.
const DOUBLE: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\" %gid %buf %pc\nOpExecutionMode %main LocalSize 4 1 1\nOpName %buf \"out\"\nOpMemberName %S 0 \"data\"\nOpDecorate %gid BuiltIn GlobalInvocationId\nOpDecorate %arr ArrayStride 4\nOpMemberDecorate %S 0 Offset 0\nOpDecorate %S Block\nOpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\nOpMemberDecorate %P 0 Offset 0\nOpMemberDecorate %P 1 Offset 8\nOpDecorate %P Block\nOpDecorate %k SpecId 3\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%f32 = OpTypeFloat 32\n%v2 = OpTypeVector %u32 2\n%P = OpTypeStruct %f32 %v2\n%pP = OpTypePointer PushConstant %P\n%pc = OpVariable %pP PushConstant\n%k = OpSpecConstant %u32 2\n%c0 = OpConstant %u32 0\n%c4 = OpConstant %u32 4\n%arr = OpTypeArray %u32 %c4\n%S = OpTypeStruct %arr\n%pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n%v3 = OpTypeVector %u32 3\n%pv3 = OpTypePointer Input %v3\n%gid = OpVariable %pv3 Input\n%pu = OpTypePointer StorageBuffer %u32\n%pf = OpTypePointer PushConstant %f32\n%main = OpFunction %void None %fn\n%e = OpLabel\n%pcf = OpAccessChain %pf %pc %c0\n%unused = OpLoad %f32 %pcf\n%g = OpLoad %v3 %gid\n%x = OpCompositeExtract %u32 %g 0\n%p = OpAccessChain %pu %buf %c0 %x\n%v = OpLoad %u32 %p\n%d = OpIMul %u32 %v %k\nOpStore %p %d\nOpReturn\nOpFunctionEnd\n";

fn analysis(text: &str) -> Analysis {
    let a = Analysis::of_text(text, &Options { env: crate::TargetEnv::parse("vulkan1.3").unwrap(), ..Options::default() });
    assert!(a.is_valid(), "{:?}", a.diagnostics());
    a
}

fn inputs(buffers: &[(Slot, &str)]) -> Inputs {
    Inputs { buffers: buffers.iter().map(|(s, v)| (*s, v.to_string())).collect(), ..Inputs::default() }
}

#[test]
fn a_plan_has_the_bindings_their_bytes_and_the_options() {
    let a = analysis(DOUBLE);
    let p = Plan::new(&a, &Inputs { spec: vec![(3, "5".into())], workgroups: [2, 1, 1], ..inputs(&[(Slot::Binding(0, 0), "u32: 1 2 3 4")]) }).unwrap();
    assert_eq!(p.model(), ExecutionModel::GLCompute);
    assert_eq!(p.spec, [(3, 5)]);
    let slots: Vec<(Slot, BindingKind, &str, &str)> = p.bindings.iter().map(|b| (b.slot, b.kind, b.name.as_str(), b.label.as_str())).collect();
    assert_eq!(
        slots,
        [(Slot::Binding(0, 0), BindingKind::StorageBuffer, "%buf", "out"), (Slot::Push, BindingKind::PushConstant, "%pc", "%4")]
    );
    assert_eq!(p.buffers[&(0, 0)], [1u32, 2, 3, 4].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
    assert_eq!(p.options.push_constants.as_deref(), Some(&[0u8; 16][..]));
    assert_eq!((p.options.entry.as_deref(), p.options.workgroups, p.options.max_steps), (Some("main"), [2, 1, 1], 1_000_000));
    assert_eq!(p.outputs().count(), 1);
    // The specialized words hold the value.
    assert!(p.words.windows(4).any(|w| w[3] == 5 && w[0] >> 16 == 4), "no constant 5");
}

#[test]
fn leaves_follow_the_layout() {
    let a = analysis(DOUBLE);
    let p = Plan::new(&a, &Inputs::default()).unwrap();
    let l = p.bindings[0].leaves(16);
    let got: Vec<(&str, u64, u32, LeafKind)> = l.iter().map(|x| (x.path.as_str(), x.offset, x.size, x.kind)).collect();
    assert_eq!(got, [("data[0]", 0, 4, LeafKind::Uint), ("data[1]", 4, 4, LeafKind::Uint), ("data[2]", 8, 4, LeafKind::Uint), ("data[3]", 12, 4, LeafKind::Uint)]);
    // Bytes past the end have no leaves.
    assert_eq!(p.bindings[0].leaves(6).len(), 1);
    let push = p.bindings[1].leaves(16);
    let got: Vec<(&str, u64, LeafKind)> = push.iter().map(|x| (x.path.as_str(), x.offset, x.kind)).collect();
    assert_eq!(got, [("0", 0, LeafKind::Float), ("1[0]", 8, LeafKind::Uint), ("1[1]", 12, LeafKind::Uint)]);
    // The leaves are the paths the typed output prints.
    let shown = interp::values::show(&p.bindings[0].ty, &p.buffers[&(0, 0)]).lines("");
    let paths: Vec<&str> = shown.lines().map(|s| s.split(" = ").next().unwrap_or("").trim_start_matches('.')).collect();
    assert_eq!(paths, l.iter().map(|x| x.path.as_str()).collect::<Vec<_>>());
}

#[test]
fn errors_name_what_is_wrong() {
    let a = analysis(DOUBLE);
    let e = Plan::new(&a, &inputs(&[(Slot::Binding(0, 1), "zeros")])).unwrap_err();
    assert_eq!(e, PlanError::UnknownBuffer { slot: Slot::Binding(0, 1), entry: "main".into(), available: vec![Slot::Binding(0, 0)] });
    assert!(e.is_input());
    let e = Plan::new(&a, &inputs(&[(Slot::Binding(0, 0), "u32: 1 x")])).unwrap_err();
    assert!(matches!(&e, PlanError::BadInput { slot: Slot::Binding(0, 0), column: 8, input, .. } if input == "u32: 1 x"), "{e:?}");
    let e = Plan::new(&a, &Inputs { spec: vec![(3, "-1".into())], ..Inputs::default() }).unwrap_err();
    assert!(matches!(&e, PlanError::BadSpec { id: 3, value, .. } if value == "-1"), "{e:?}");
    let e = Plan::new(&a, &Inputs { entry: Some("other".into()), ..Inputs::default() }).unwrap_err();
    assert_eq!(e, PlanError::NoSuchEntry { name: "other".into(), available: vec!["main".into()], kernels: false });
    let bad = Analysis::of_text("OpFoo\n", &Options::default());
    assert_eq!(Plan::new(&bad, &Inputs::default()).unwrap_err(), PlanError::NoModule);
}

/// Kernel parameter k at (0, k): a pointer must be given, a scalar is its
/// buffer's first bytes.
#[test]
fn kernels_bind_their_parameters() {
    let text = "OpCapability Addresses\nOpCapability Kernel\nOpMemoryModel Physical32 OpenCL\nOpEntryPoint Kernel %k \"k\"\nOpName %out \"out\"\n%void = OpTypeVoid\n%u32 = OpTypeInt 32 0\n%pu = OpTypePointer CrossWorkgroup %u32\n%fn = OpTypeFunction %void %pu %u32\n%k = OpFunction %void None %fn\n%out = OpFunctionParameter %pu\n%n = OpFunctionParameter %u32\n%e = OpLabel\nOpStore %out %n\nOpReturn\nOpFunctionEnd\n";
    let a = Analysis::of_text(text, &Options::default());
    assert!(a.is_valid(), "{:?}", a.diagnostics());
    assert_eq!(Plan::new(&a, &Inputs::default()).unwrap_err(), PlanError::NoEntry { kernels: false });
    let k = |b: &[(Slot, &str)]| Plan::new(&a, &Inputs { kernels: true, ..inputs(b) });
    assert_eq!(k(&[]).unwrap_err(), PlanError::MissingPointer { index: 0, name: "out".into() });
    let e = k(&[(Slot::Binding(0, 2), "zeros")]).unwrap_err();
    assert_eq!(e, PlanError::UnknownParameter { slot: Slot::Binding(0, 2), entry: "k".into(), parameters: vec![(0, "out".into()), (1, "param1".into())] });
    let p = k(&[(Slot::Binding(0, 0), "zeros:2"), (Slot::Binding(0, 1), "u32: 7")]).unwrap();
    assert_eq!(p.model(), ExecutionModel::Kernel);
    let kinds: Vec<(BindingKind, &str)> = p.bindings.iter().map(|b| (b.kind, b.name.as_str())).collect();
    assert_eq!(kinds, [(BindingKind::KernelPointer, "%out"), (BindingKind::KernelValue, "%n")]);
    assert_eq!(p.buffers[&(0, 0)].len(), 8);
    assert_eq!(p.bindings[0].leaves(8).iter().map(|l| l.path.as_str()).collect::<Vec<_>>(), ["[0]", "[1]"]);
}

const RED_FRAGMENT: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint Fragment %main \"main\" %color\nOpExecutionMode %main OriginUpperLeft\nOpDecorate %color Location 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%f32 = OpTypeFloat 32\n%v4 = OpTypeVector %f32 4\n%out = OpTypePointer Output %v4\n%color = OpVariable %out Output\n%one = OpConstant %f32 1\n%zero = OpConstant %f32 0\n%red = OpConstantComposite %v4 %one %zero %zero %one\n%main = OpFunction %void None %fn\n%e = OpLabel\nOpStore %color %red\nOpReturn\nOpFunctionEnd\n";

/// A Fragment entry point is planned only when a draw is asked for, with
/// the passthrough vertex shader over DRAW_RECT's strip by default.
#[test]
fn a_fragment_entry_point_draws_only_when_asked() {
    use crate::plan::{DrawInputs, DrawShape, VertexSource};
    use crate::raster::{DrawIndices, Topology};
    let a = Analysis::of_text(RED_FRAGMENT, &Options::default());
    assert!(a.is_valid(), "{:?}", a.diagnostics());
    assert_eq!(Plan::new(&a, &Inputs::default()).unwrap_err(), PlanError::NoEntry { kernels: false });
    let p = Plan::new(&a, &Inputs { draw: Some(DrawInputs::default()), ..Inputs::default() }).unwrap();
    assert_eq!(p.model(), ExecutionModel::Fragment);
    let d = p.draw.as_ref().unwrap();
    assert_eq!(d.vertex_source, VertexSource::Passthrough);
    assert_eq!(d.vertex_entry, "main");
    assert_eq!(d.cmd.topology, Topology::TriangleStrip);
    assert_eq!(d.cmd.indices, DrawIndices::Sequential { first: 0, count: 4 });
    let fb = &d.framebuffer.colors[0].attachment;
    assert_eq!((fb.width, fb.height, fb.data.len()), (256, 256, 256 * 256 * 4));
    // Amber's DRAW_RECT over the whole framebuffer: NDC corners, bottom left first.
    let v = &d.pipeline.vertex_buffers[0];
    let floats: Vec<f32> = v.data.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(floats, [-1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0]);
    let grid = DrawInputs { shape: DrawShape::Grid { columns: 3, rows: 2 }, ..DrawInputs::default() };
    let p = Plan::new(&a, &Inputs { draw: Some(grid), ..Inputs::default() }).unwrap();
    assert_eq!(p.draw.unwrap().cmd.indices, DrawIndices::Sequential { first: 0, count: 36 });
}

/// The plan's draw on the interpreter: RED_FRAGMENT over an 8x4 rect
/// writes (1, 0, 0, 1) at every pixel, which B8G8R8A8_UNORM stores as the
/// bytes B, G, R, A = 0, 0, 255, 255 and 8-bit RGBA reads as 255, 0, 0,
/// 255; a fragment's path is recorded by pixel.
#[test]
fn a_draw_plan_draws_on_the_interpreter() {
    use crate::interp::Trace;
    use crate::plan::DrawInputs;
    let a = Analysis::of_text(RED_FRAGMENT, &Options::default());
    let p = Plan::new(&a, &Inputs { draw: Some(DrawInputs { size: (8, 4), ..DrawInputs::default() }), ..Inputs::default() }).unwrap();
    let opts = crate::interp::Options { trace: Trace::Invocations(vec![[3, 2, 0]]), ..p.options.clone() };
    let d = p.draw_interp(&opts).expect("a draw").expect("drawn");
    assert_eq!((d.stats.vertices, d.stats.fragments), (4, 32));
    let img = d.image().expect("an image");
    assert_eq!(&img.data[..4], &[0, 0, 255, 255]);
    assert_eq!(img.rgba8(), [255u8, 0, 0, 255].repeat(32));
    let tr = d.stats.fragment_trace.as_ref().expect("a trace");
    assert!(tr.path([3, 2, 0]).is_some() && tr.path([0, 0, 0]).is_none());
    // A compute plan is not a draw.
    let c = Plan::new(&analysis(DOUBLE), &Inputs::default()).unwrap();
    assert!(c.draw_interp(&c.options).is_none());
}

/// A draw past its limits is refused with the limit named.
#[test]
fn a_draw_past_its_limits_is_refused() {
    use crate::plan::{DrawInputs, DrawShape, draw};
    let a = Analysis::of_text(RED_FRAGMENT, &Options::default());
    let with = |d: DrawInputs| Plan::new(&a, &Inputs { draw: Some(d), ..Inputs::default() }).unwrap_err();
    let big = with(DrawInputs { size: (draw::MAX_SIDE + 1, 16), ..DrawInputs::default() });
    assert_eq!(big, PlanError::TooLarge { what: "framebuffer width".into(), value: draw::MAX_SIDE as u64 + 1, limit: draw::MAX_SIDE as u64 });
    assert!(matches!(with(DrawInputs { size: (0, 16), ..DrawInputs::default() }), PlanError::TooLarge { value: 0, .. }));
    let cells = with(DrawInputs { shape: DrawShape::Grid { columns: 1 << 10, rows: 1 << 10 }, ..DrawInputs::default() });
    assert!(matches!(cells, PlanError::TooLarge { ref what, value, .. } if what == "grid cells" && value == 1 << 20), "{cells:?}");
    let bad = with(DrawInputs { vertex: Some(vec![1, 2, 3]), ..DrawInputs::default() });
    assert!(matches!(bad, PlanError::BadVertexModule { .. }), "{bad:?}");
}
