//! `spvlab run --backend` and `spvlab amber --backend` on a Vulkan GPU
//! (lavapipe in CI), run as a process: a kernel written here with a uniform
//! buffer (std140 stride 16), a storage buffer and push constants, its
//! expected values worked out by hand from the SPIR-V semantics (OpIMul,
//! OpIAdd); every backend that runs agrees; the step budget keeps a module
//! that does not terminate off the GPU; an Amber file of the corpus passes by
//! passthrough and naga (its own EXPECT lines the oracle).
//!
//! Each GPU job runs in a child process (`spvlab __gpu-job`): a child that
//! crashes (the hidden test hook `SPVLAB_GPU_CHILD_TEST=abort` aborts it as a
//! driver crash would) or hangs (`=hang`) is an error naming the backend and
//! the module, and `spvlab` goes on.
//!
//! Skipped, with a message, only when no Vulkan adapter exists
//! (`SPVLAB_REQUIRE_GPU=1`: a missing adapter fails).

use spvlab_tests::{corpus_or_skip, gpu_or_skip, run_spvlab, scratch, spvlab_bin};

/// out.data[i] = u.k[i] * pc.mul + i, i = GlobalInvocationId.x.
const KERNEL: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %out %u %pc
               OpExecutionMode %main LocalSize 4 1 1
               OpName %out "out"
               OpName %u "u"
               OpName %pc "pc"
               OpMemberName %Out 0 "data"
               OpMemberName %U 0 "k"
               OpMemberName %Pc 0 "mul"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %arr4 ArrayStride 4
               OpDecorate %uarr4 ArrayStride 16
               OpDecorate %Out Block
               OpDecorate %U Block
               OpDecorate %Pc Block
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %U 0 Offset 0
               OpMemberDecorate %Pc 0 Offset 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 2
               OpDecorate %u DescriptorSet 1
               OpDecorate %u Binding 5
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_4 = OpConstant %uint 4
     %v3uint = OpTypeVector %uint 3
   %p_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %p_v3uint Input
       %arr4 = OpTypeArray %uint %uint_4
      %uarr4 = OpTypeArray %uint %uint_4
        %Out = OpTypeStruct %arr4
          %U = OpTypeStruct %uarr4
         %Pc = OpTypeStruct %uint
      %p_Out = OpTypePointer StorageBuffer %Out
        %p_U = OpTypePointer Uniform %U
       %p_Pc = OpTypePointer PushConstant %Pc
     %p_uint = OpTypePointer StorageBuffer %uint
    %pu_uint = OpTypePointer Uniform %uint
    %pc_uint = OpTypePointer PushConstant %uint
        %out = OpVariable %p_Out StorageBuffer
          %u = OpVariable %p_U Uniform
         %pc = OpVariable %p_Pc PushConstant
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
        %src = OpAccessChain %pu_uint %u %uint_0 %i
          %k = OpLoad %uint %src
         %mp = OpAccessChain %pc_uint %pc %uint_0
          %m = OpLoad %uint %mp
         %km = OpIMul %uint %k %m
          %y = OpIAdd %uint %km %i
        %dst = OpAccessChain %p_uint %out %uint_0 %i
               OpStore %dst %y
               OpReturn
               OpFunctionEnd
"#;

/// A loop that never ends.
const ENDLESS: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %true = OpConstantTrue %bool
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
               OpLoopMerge %merge %loop None
               OpBranchConditional %true %loop %merge
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
"#;

/// out.data[i] = 3i + 1 and out.tail[i] = i + 10 for i < 3: the buffer's
/// SPIR-V data is 28 bytes (a vec3 at Offset 16), and the WGSL struct holding
/// it 32 (WGSL rounds a struct's size up to its alignment, 16), so the
/// buffer bound must be larger than the data.
const WGSL_LARGER: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %out
               OpExecutionMode %main LocalSize 3 1 1
               OpName %out "out"
               OpMemberName %Out 0 "data"
               OpMemberName %Out 1 "tail"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %arr4 ArrayStride 4
               OpDecorate %Out Block
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %Out 1 Offset 16
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
    %uint_10 = OpConstant %uint 10
     %v3uint = OpTypeVector %uint 3
   %p_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %p_v3uint Input
       %arr4 = OpTypeArray %uint %uint_4
        %Out = OpTypeStruct %arr4 %v3uint
      %p_Out = OpTypePointer StorageBuffer %Out
     %p_uint = OpTypePointer StorageBuffer %uint
        %out = OpVariable %p_Out StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
         %i3 = OpIMul %uint %i %uint_3
          %y = OpIAdd %uint %i3 %uint_1
        %dst = OpAccessChain %p_uint %out %uint_0 %i
               OpStore %dst %y
       %lane = OpAccessChain %p_uint %out %uint_1 %i
         %t = OpIAdd %uint %i %uint_10
               OpStore %lane %t
               OpReturn
               OpFunctionEnd
"#;

fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

const U: &str = "--buffer=1.5=u32: 2 0 0 0 5 0 0 0 7 0 0 0 11 0 0 0";
const PC: &str = "--buffer=push=u32: 3";

#[test]
fn run_on_each_backend() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let dir = scratch("gpu_cli");
    std::fs::write(dir.join("k.spvasm"), KERNEL).unwrap();
    let want = ["out.data[0] = 6", "out.data[1] = 16", "out.data[2] = 23", "out.data[3] = 36"];
    for b in ["interp", "wgpu-naga", "wgpu-passthrough"] {
        let o = run_spvlab(&dir, &["run", "--backend", b, U, PC, "k.spvasm"], b"");
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{b}: {t}");
        for w in want {
            assert!(t.contains(&format!("  {w}\n")), "{b}: {w} missing in {t}");
        }
    }
    // all: the backends that run agree (ours, wgpu, is refused until the
    // lowering lands, or runs and must agree too).
    let o = run_spvlab(&dir, &["run", "--backend", "all", U, PC, "k.spvasm"], b"");
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("the backends agree (interp, ") && t.contains("wgpu-naga") && t.contains("wgpu-passthrough)"), "{t}");
    assert!(!t.contains("!="), "{t}");
    for w in want {
        assert!(t.contains(&format!("  {w}\n")), "{w} missing in {t}");
    }
}

#[test]
fn a_buffer_smaller_than_its_wgsl_struct_runs_on_our_wgsl() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let dir = scratch("gpu_cli_wgsl_larger");
    std::fs::write(dir.join("t.spvasm"), WGSL_LARGER).unwrap();
    let interp = run_spvlab(&dir, &["run", "--backend", "interp", "t.spvasm"], b"");
    assert_eq!(interp.status.code(), Some(0), "{}", text(&interp));
    assert!(text(&interp).contains("out (storage buffer, 28 bytes)"), "{}", text(&interp));
    let wgsl = run_spvlab(&dir, &["run", "--backend", "wgpu", "t.spvasm"], b"");
    assert_eq!(wgsl.status.code(), Some(0), "{}", text(&wgsl));
    assert_eq!(text(&wgsl), text(&interp));
}

#[test]
fn a_module_that_does_not_terminate_is_not_sent() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let dir = scratch("gpu_cli_endless");
    std::fs::write(dir.join("e.spvasm"), ENDLESS).unwrap();
    let o = run_spvlab(&dir, &["run", "--backend", "wgpu-passthrough", "--max-steps", "1000", "e.spvasm"], b"");
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("wgpu-passthrough: not sent to the GPU: it does not terminate in the interpreter"), "{t}");
}

#[test]
fn amber_by_passthrough_and_naga() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let Some(c) = corpus_or_skip("gpu_cli") else { return };
    let dir = scratch("gpu_cli_amber");
    let f = c.join("amber/spirv-control-flow/examples_simple_fleshed.amber");
    for b in ["wgpu-passthrough", "wgpu-naga"] {
        let o = run_spvlab(&dir, &["amber", "--backend", b, f.to_str().unwrap()], b"");
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{b}: {t}");
        assert!(t.contains(&format!("1 passed, 0 failed, 0 errors, 0 graphics (not run) on {b}; 1 dispatches compared with the interpreter, 0 files differ")), "{t}");
    }
}

/// A storage image (3D, RGBA32I) written by one dispatch and read by the
/// next, through the GPU process: the images of the Amber script travel to the
/// child with the job (its EXPECT lines are the oracle), and in-process gives
/// the same.
#[test]
fn amber_images_reach_the_gpu_process() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let Some(c) = corpus_or_skip("gpu_cli") else { return };
    let dir = scratch("gpu_cli_amber_images");
    let f = c.join("amber/google-amber-glsl/glsl_read_and_write_image3d_rgba32i.amber");
    let shader = |n: &str| format!("{n}={}", c.join(format!("cases/google-amber-glsl/glsl_read_and_write_image3d_rgba32i__{n}.spvasm")).display());
    let (write, read) = (shader("write"), shader("read"));
    for extra in [&[][..], &["--in-process"][..]] {
        let mut args = vec!["amber", "--backend", "wgpu-passthrough", "--shader", &write, "--shader", &read];
        args.extend_from_slice(extra);
        args.push(f.to_str().unwrap());
        let o = run_spvlab(&dir, &args, b"");
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {t}");
        assert!(t.contains("1 passed, 0 failed, 0 errors, 0 graphics (not run) on wgpu-passthrough; 2 dispatches compared with the interpreter, 0 files differ"), "{extra:?}: {t}");
    }
}

/// `spvlab args...` in `dir` with the child's test hook set to `hook`.
fn with_hook(dir: &std::path::Path, hook: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(spvlab_bin())
        .args(args)
        .current_dir(dir)
        .env("SPVLAB_GPU_CHILD_TEST", hook)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run spvlab")
}

#[test]
fn a_crashing_gpu_process_is_an_error_naming_backend_and_module() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let dir = scratch("gpu_cli_crash");
    std::fs::write(dir.join("k.spvasm"), KERNEL).unwrap();
    // run: the GPU backend's error, and the interpreter's buffers beside it.
    let o = with_hook(&dir, "abort", &["run", "--backend", "all", U, PC, "k.spvasm"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    for b in ["wgpu-naga", "wgpu-passthrough"] {
        assert!(t.contains(&format!("{b}: error: {b} on `k.spvasm`: device lost: the GPU process crashed (killed by signal 6 (SIGABRT))")), "{t}");
    }
    assert!(t.contains("  out.data[3] = 36\n"), "the interpreter's run is lost: {t}");
    // In-process, the hook is never reached and the run passes.
    let o = with_hook(&dir, "abort", &["run", "--backend", "wgpu-passthrough", "--in-process", U, PC, "k.spvasm"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // amber: each file's error names the backend and the shader; the run
    // goes on to the next file (a fresh child each time).
    let Some(c) = corpus_or_skip("gpu_cli") else { return };
    let f = c.join("amber/spirv-control-flow/examples_simple_fleshed.amber");
    let f = f.to_str().unwrap();
    let o = with_hook(&dir, "abort", &["amber", "--backend", "wgpu-passthrough", f, f]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert_eq!(t.matches("wgpu-passthrough on `compute_shader`: device lost: the GPU process crashed").count(), 2, "{t}");
    assert!(t.contains("2 files: 0 passed, 0 failed, 2 errors"), "{t}");
}

/// The pids of `pid`'s children (Linux).
fn children(pid: u32) -> Vec<u32> {
    let f = format!("/proc/{pid}/task/{pid}/children");
    std::fs::read_to_string(f).unwrap_or_default().split_whitespace().filter_map(|w| w.parse().ok()).collect()
}

/// Whether process `pid` has ended (gone, or a zombie no one reaped).
fn ended(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

#[test]
fn a_gpu_process_ends_when_its_parent_is_killed() {
    if !gpu_or_skip("gpu_cli") || !std::path::Path::new("/proc/self/task").exists() {
        return;
    }
    let dir = scratch("gpu_cli_orphan");
    std::fs::write(dir.join("k.spvasm"), KERNEL).unwrap();
    // The child hangs in its job and the deadline is far away; the parent
    // is then killed by SIGKILL, so nothing of it can stop the child.
    let mut parent = std::process::Command::new(spvlab_bin())
        .args(["run", "--backend", "wgpu-passthrough", "--gpu-timeout", "600", U, PC, "k.spvasm"])
        .current_dir(&dir)
        .env("SPVLAB_GPU_CHILD_TEST", "hang")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run spvlab");
    let mut child = None;
    for _ in 0..600 {
        child = children(parent.id()).first().copied();
        if child.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let child = child.expect("spvlab run started no GPU process");
    // Let it reach its job (the hook hangs there).
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(!ended(child), "the GPU process ended before its parent was killed");
    parent.kill().unwrap();
    parent.wait().unwrap();
    let mut gone = false;
    for _ in 0..300 {
        if ended(child) {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if !gone {
        let _ = std::process::Command::new("kill").args(["-9", &child.to_string()]).status();
    }
    assert!(gone, "the GPU process {child} outlived its killed parent by 30 s");
}

#[test]
fn a_hanging_gpu_job_is_killed_at_its_deadline() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let dir = scratch("gpu_cli_hang");
    std::fs::write(dir.join("k.spvasm"), KERNEL).unwrap();
    let o = with_hook(&dir, "hang", &["run", "--backend", "wgpu-passthrough", "--gpu-timeout", "0.1", U, PC, "k.spvasm"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("wgpu-passthrough on `k.spvasm`: timeout: the GPU process did not answer in 5.1s (a GPU hang?); it was killed"),
        "{t}"
    );
    let o = run_spvlab(&dir, &["run", "--backend", "wgpu-passthrough", "--gpu-timeout", "0", "k.spvasm"], b"");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// `spvlab run` on a GraphicsFuzz fragment shader with `--backend`: each
/// GPU backend draws the image the Amber test expects (its own EQ_RGBA
/// line: red over the framebuffer), the PNG of `-o` is the first backend's,
/// and every backend draws the interpreter's image.
#[test]
fn a_fragment_shader_draws_on_each_gpu_backend() {
    if !gpu_or_skip("gpu_cli") {
        return;
    }
    let Some(corpus) = corpus_or_skip("gpu_cli") else { return };
    let dir = scratch("gpu_cli_draw");
    let script = std::fs::read_to_string(corpus.join("amber/vk-gl-cts/graphicsfuzz_color_write_in_loop.amber")).unwrap();
    let start = script.lines().position(|l| l.starts_with("SHADER fragment") && l.contains("SPIRV-ASM")).expect("a SPIRV-ASM fragment shader");
    let shader: String = script.lines().skip(start + 1).take_while(|l| l.trim() != "END").map(|l| format!("{l}\n")).collect();
    let expect = script.lines().find(|l| l.starts_with("EXPECT") && l.contains("EQ_RGBA 255 0 0 255")).expect("a red EXPECT line");
    assert!(expect.contains("SIZE 256 256"), "{expect}");
    let frag = dir.join("frag.spvasm");
    std::fs::write(&frag, shader).unwrap();
    for b in ["wgpu", "wgpu-naga", "wgpu-passthrough"] {
        let png_path = dir.join(format!("{b}.png"));
        let o = run_spvlab(&dir, &["run", frag.to_str().unwrap(), "--target-env", "spv1.0", "--backend", b, "-o", png_path.to_str().unwrap()], b"");
        let out = text(&o);
        assert!(o.status.success(), "{b}: {out}");
        assert!(out.contains(&format!("{b}: drew 256x256")) && out.contains("the same image as the interpreter's"), "{b}: {out}");
        let dec = png::Decoder::new(std::io::Cursor::new(std::fs::read(&png_path).unwrap()));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (256, 256));
        let wrong = buf[..info.buffer_size()].chunks_exact(4).filter(|p| *p != [255, 0, 0, 255]).count();
        assert_eq!(wrong, 0, "{b}: {wrong} pixels of its PNG are not the expected red");
    }
}
