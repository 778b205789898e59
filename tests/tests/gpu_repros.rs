//! The minimal repros of tests/gpu-differences.md: each
//! `tests/gpu-repros/*.amber` is the smallest module (valid for spirv-val
//! and for spvlab) showing one class of disagreement between the
//! interpreter and a GPU backend on lavapipe. Its EXPECT lines hold what the
//! spec says (the oracle), and its header records what each runner does:
//!
//! ```text
//! # on interp: pass
//! # on wgpu-passthrough: fail, differs
//! # on wgpu-naga: pass, agrees
//! # on wgpu: error
//! ```
//!
//! (`pass`/`fail`: the EXPECT lines; `agrees`/`differs`: the GPU's buffers
//! against the interpreter's, byte for byte; `error`: refused or rejected;
//! `crash`: the driver kills the process, so that runner runs the repro in
//! a child, `spvlab amber --in-process`, which must die by a signal.)
//! This test runs every repro on each runner and fails when one no longer
//! behaves as recorded (a fixed bug says so here, so the differences file
//! cannot go stale silently). The GPU part is skipped, with a message, only
//! when no Vulkan adapter exists (`SPVLAB_REQUIRE_GPU=1`: it fails).

use spvlab_core::amber::{self, Executor, Interpreter, RunOptions};
use spvlab_tests::{assert_valid_module, root};
use spvlab_gpu::{Backend, Gpu, GpuExecutor};

struct Repro {
    name: String,
    text: String,
    /// (runner, recorded behaviour)
    recorded: Vec<(String, String)>,
}

fn repros() -> Vec<Repro> {
    let dir = root().join("tests/gpu-repros");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/gpu-repros")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "amber"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let recorded = text
                .lines()
                .filter_map(|l| l.strip_prefix("# on "))
                .filter_map(|l| l.split_once(": "))
                .map(|(b, v)| (b.trim().to_string(), v.trim().to_string()))
                .collect();
            Repro { name: p.file_name().unwrap().to_string_lossy().into_owned(), text, recorded }
        })
        .collect()
}

/// The behaviour of one runner, in the header's words.
fn behaviour(r: &Repro, exec: &mut dyn Executor) -> String {
    let script = amber::parse(&r.text).unwrap_or_else(|e| panic!("{}: {e}", r.name));
    let opts = RunOptions { max_steps: 1_000_000, ..RunOptions::default() };
    match amber::run_on(&script, &opts, exec) {
        Ok(o) if o.passed() => "pass".into(),
        Ok(o) => {
            for f in &o.failures {
                eprintln!("{}: {f}", r.name);
            }
            "fail".into()
        }
        Err(e) => {
            eprintln!("{}: {e}", r.name);
            "error".into()
        }
    }
}

/// The SPIR-V assembly of each shader of a script, with its target env (the
/// SHADER line's `TARGET_ENV`, else spv1.3).
fn shaders(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for l in text.lines() {
        match &mut cur {
            None if l.starts_with("SHADER ") && l.contains("SPIRV-ASM") => {
                let env = l.split_once("TARGET_ENV").map_or("spv1.3", |(_, e)| e.trim());
                cur = Some((env.to_string(), String::new()));
            }
            None => {}
            Some(s) if l.trim() == "END" => {
                out.push(std::mem::take(s));
                cur = None;
            }
            Some((_, s)) => {
                s.push_str(l);
                s.push('\n');
            }
        }
    }
    out
}

/// `crash` when `spvlab amber --backend B --in-process` dies by a signal on
/// the repro, else how it ended.
fn crash_in_child(r: &Repro, b: Backend) -> String {
    use std::os::unix::process::ExitStatusExt;
    let dir = spvlab_tests::scratch("gpu_repros_crash");
    let file = dir.join(&r.name);
    std::fs::write(&file, &r.text).unwrap();
    let o = spvlab_tests::run_spvlab(&dir, &["amber", "--backend", b.name(), "--in-process", file.to_str().unwrap()], b"");
    match o.status.signal() {
        Some(_) => "crash".into(),
        None => format!("no crash (exit {:?})", o.status.code()),
    }
}

#[test]
fn every_repro_is_valid_and_recorded() {
    let all = repros();
    assert!(all.len() >= 8, "{} repros", all.len());
    for r in &all {
        for (k, (env, s)) in shaders(&r.text).iter().enumerate() {
            assert_valid_module(&format!("gpu_repros_{}_{k}", r.name.trim_end_matches(".amber")), s, env);
        }
        for key in ["interp", "wgpu-passthrough", "wgpu-naga", "wgpu"] {
            assert!(r.recorded.iter().any(|(b, _)| b == key), "{}: no `# on {key}:` line", r.name);
        }
        for key in ["# class:", "# verdict:", "# spec:"] {
            assert!(r.text.lines().any(|l| l.starts_with(key)), "{}: no `{key}` line", r.name);
        }
        // Each repro is listed in the differences file.
        let doc = std::fs::read_to_string(root().join("tests/gpu-differences.md")).unwrap();
        assert!(doc.contains(&format!("gpu-repros/{}", r.name)), "{} is not in tests/gpu-differences.md", r.name);
    }
}

/// The structural traits (core's `flesh::shape`) of every function of the
/// repro's shaders, by name.
fn shape_of(r: &Repro) -> std::collections::BTreeSet<String> {
    use spvlab_core::analysis::Analysis;
    use spvlab_core::flesh::{Skeleton, shape};
    let mut out = std::collections::BTreeSet::new();
    for (env, text) in shaders(&r.text) {
        let env = spvlab_core::TargetEnv::parse(&env).unwrap_or_default();
        let opts = spvlab_core::valid::Options { env, ..Default::default() };
        let a = Analysis::of_text(&text, &opts);
        for f in 0..a.cfg().functions.len() {
            if let Ok(sk) = Skeleton::of_function(&a, f) {
                out.extend(shape::traits(&sk, &[]).iter().map(|t| t.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_control_flow_repro_has_the_shape_it_names() {
    // A fleshing finding's class is its backend, kind, message and shape
    // (`spvlab reduce` on a campaign); the repro kept for a class names the
    // traits of its CFG that make the class, and still has them.
    let mut named = 0;
    for r in repros() {
        let Some(line) = r.text.lines().find_map(|l| l.strip_prefix("# shape: ")) else { continue };
        let has = shape_of(&r);
        for t in line.split(',').map(str::trim) {
            assert!(has.contains(t), "{}: `# shape:` names {t}, but its CFG has {has:?}", r.name);
        }
        named += 1;
    }
    assert!(named >= 6, "{named} repros name their shape");
}

#[test]
fn every_repro_behaves_as_recorded() {
    let gpu = match Gpu::new_blocking() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("SPVLAB_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("gpu_repros: SPVLAB_REQUIRE_GPU=1 and no Vulkan adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED the GPU part of gpu_repros: no Vulkan adapter ({e}); ./x test installs lavapipe");
            None
        }
    };
    let mut stale = Vec::new();
    for r in repros() {
        let mut runs = vec![("interp".to_string(), behaviour(&r, &mut Interpreter))];
        if gpu.is_some() {
            for b in Backend::ALL {
                if r.recorded.iter().any(|(x, v)| x == b.name() && v == "crash") {
                    runs.push((b.name().to_string(), crash_in_child(&r, b)));
                    continue;
                }
                let mut exec = GpuExecutor::new(b);
                let got = behaviour(&r, &mut exec);
                let got = if got == "error" {
                    got
                } else {
                    format!("{got}, {}", if exec.differences.is_empty() { "agrees" } else { "differs" })
                };
                for d in &exec.differences {
                    eprintln!("{}: {}: {d:?}", r.name, b.name());
                }
                runs.push((b.name().to_string(), got));
            }
        }
        for (b, got) in runs {
            let want = r.recorded.iter().find(|(x, _)| *x == b).map_or("(nothing)", |x| x.1.as_str());
            if got != want {
                stale.push(format!("{} on {b}: recorded `{want}`, now `{got}`", r.name));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "repros that no longer behave as recorded (a fixed bug? update the repro's header and tests/gpu-differences.md):\n{}",
        stale.join("\n")
    );
}
