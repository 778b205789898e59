//! The corpus's compute Amber tests (every `amber/*/index.json` entry whose
//! `pipeline_kind` is `compute` and that has EXPECT lines: 667), run on the
//! reference interpreter, with the GLSL shaders taken precompiled from the
//! cases the index lists (each case's meta names its `shader_name`).

use serde_json::Value;
use spvlab_core::TargetEnv;
use spvlab_core::amber::{self, RunOptions};
use spvlab_core::text::{AsmOptions, assemble};
use std::collections::BTreeMap;
use std::path::Path;

/// One compute Amber test of the corpus.
pub struct AmberCase {
    /// The path under the corpus (`amber/<source>/<name>.amber`).
    pub amber: String,
    /// The shader cases (paths under the corpus).
    pub shaders: Vec<String>,
}

/// The compute Amber tests with EXPECT lines, sorted by path.
pub fn compute_cases(corpus: &Path) -> Vec<AmberCase> {
    cases_of(corpus, "compute")
}

/// The graphics Amber tests with EXPECT lines (`pipeline_kind` graphics),
/// sorted by path.
pub fn graphics_cases(corpus: &Path) -> Vec<AmberCase> {
    cases_of(corpus, "graphics")
}

/// The Amber tests of one `pipeline_kind` with EXPECT lines, sorted by path.
fn cases_of(corpus: &Path, kind: &str) -> Vec<AmberCase> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(corpus.join("amber"))
        .expect("read the corpus's amber folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for d in dirs {
        let Ok(text) = std::fs::read_to_string(d.join("index.json")) else {
            continue;
        };
        let index: Value = serde_json::from_str(&text).expect("index.json parses");
        for e in index.as_array().expect("index.json is a list") {
            let expects = e["expects"].as_array().is_some_and(|x| !x.is_empty());
            if e["pipeline_kind"] != kind || !expects {
                continue;
            }
            out.push(AmberCase {
                amber: e["amber"].as_str().expect("amber path").into(),
                shaders: e["shaders"]
                    .as_array()
                    .map(|s| {
                        s.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
            });
        }
    }
    out.sort_by(|a, b| a.amber.cmp(&b.amber));
    out
}

/// How a test went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Expectations that failed (their messages).
    Fail(Vec<String>),
    /// The script did not parse or a run stopped.
    Error(String),
}

/// The precompiled GLSL shaders of a case: shader name -> words.
pub fn precompiled(corpus: &Path, case: &AmberCase) -> BTreeMap<String, Vec<u32>> {
    let mut out = BTreeMap::new();
    for s in &case.shaders {
        let Ok(text) = std::fs::read_to_string(corpus.join(s)) else {
            continue;
        };
        let first = text.lines().next().unwrap_or("");
        let Some(meta) = first.strip_prefix("; corpus-meta:") else {
            continue;
        };
        let Ok(meta) = serde_json::from_str::<Value>(meta.trim()) else {
            continue;
        };
        if !meta["origin"].as_str().unwrap_or("").starts_with("GLSL") {
            continue;
        }
        let (Some(name), Some(env)) = (meta["shader_name"].as_str(), meta["asm_env"].as_str())
        else {
            continue;
        };
        let opts = AsmOptions {
            env: TargetEnv::parse(env).unwrap_or(TargetEnv::Spv1_0),
            ..AsmOptions::default()
        };
        if let Ok(words) = assemble(&text, &opts) {
            out.insert(name.to_string(), words);
        }
    }
    out
}

/// The GLSL shaders of a script: (name, stage, source), from each
/// `SHADER STAGE NAME GLSL ... END` block.
pub fn glsl_shaders(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() >= 4 && w[0] == "SHADER" && w[3] == "GLSL" {
            let mut src = String::new();
            for l in lines.by_ref() {
                if l.trim() == "END" {
                    break;
                }
                src.push_str(l);
                src.push('\n');
            }
            out.push((w[2].to_string(), w[1].to_string(), src));
        }
    }
    out
}

/// A GLSL shader compiled for Vulkan 1.0 by glslangValidator (Debian's
/// glslang-tools, which `./x test` installs): `None` when it is not
/// installed or the shader does not compile.
pub fn compile_glsl(stage: &str, source: &str) -> Option<Vec<u32>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let stage = match stage {
        "vertex" => "vert",
        "fragment" => "frag",
        "compute" => "comp",
        "geometry" => "geom",
        "tessellation_control" => "tesc",
        "tessellation_evaluation" => "tese",
        _ => return None,
    };
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("spvlab-glsl-{}-{n}.spv", std::process::id()));
    let mut child = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.0", "--stdin", "-S", stage, "-o"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(source.as_bytes()).ok()?;
    let ok = child.wait().ok()?.success();
    let bytes = std::fs::read(&out).ok();
    let _ = std::fs::remove_file(&out);
    let bytes = bytes.filter(|_| ok)?;
    Some(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// The modules of a case's GLSL shaders: the corpus's precompiled ones,
/// and the others compiled from the script's text ([`compile_glsl`]).
pub fn shader_modules(corpus: &Path, case: &AmberCase, text: &str) -> BTreeMap<String, Vec<u32>> {
    let mut out = precompiled(corpus, case);
    for (name, stage, src) in glsl_shaders(text) {
        if !out.contains_key(&name)
            && let Some(words) = compile_glsl(&stage, &src)
        {
            out.insert(name, words);
        }
    }
    out
}

/// Run one case.
pub fn run_case(corpus: &Path, case: &AmberCase) -> Verdict {
    run_case_on(corpus, case, &mut amber::Interpreter)
}

/// Run one case's dispatches on `exec` (the interpreter, a GPU).
pub fn run_case_on(corpus: &Path, case: &AmberCase, exec: &mut dyn amber::Executor) -> Verdict {
    let text = match std::fs::read_to_string(corpus.join(&case.amber)) {
        Ok(t) => t,
        Err(e) => return Verdict::Error(format!("cannot read: {e}")),
    };
    let opts = RunOptions {
        max_steps: 1_000_000,
        shaders: shader_modules(corpus, case, &text),
        ..RunOptions::default()
    };
    match parse_case_text(corpus, case, &text).and_then(|s| amber::run_on(&s, &opts, exec)) {
        Ok(o) if o.passed() => Verdict::Pass,
        Ok(o) => Verdict::Fail(o.failures.iter().map(|e| e.to_string()).collect()),
        Err(e) => Verdict::Error(e.to_string()),
    }
}

/// Parse a case's script `text`. Files the script names are read beside it,
/// as Amber does; the corpus does not carry them, so they are then looked
/// up in tests/amber-data/, which holds the upstream files (see its
/// README.md).
pub fn parse_case_text(corpus: &Path, case: &AmberCase, text: &str) -> Result<amber::Script, amber::AmberError> {
    let path = corpus.join(&case.amber);
    let dir = path.parent().map(|d| d.to_path_buf()).unwrap_or_default();
    let data = amber_data_dir(&path);
    let mut load = |name: &str| {
        std::fs::read(dir.join(name)).or_else(|e| data.as_ref().map_or(Err(e), |d| std::fs::read(d.join(name)))).map_err(|e| e.to_string())
    };
    amber::parse_with(text, &mut load)
}

/// The folder of tests/amber-data/ for the script at `path`: the one named
/// after the corpus folder the script is in (`amber/vk-gl-cts/x.amber` ->
/// `tests/amber-data/vk-gl-cts`).
pub fn amber_data_dir(path: &Path) -> Option<std::path::PathBuf> {
    let source = path.parent()?.file_name()?;
    Some(crate::root().join("tests/amber-data").join(source))
}

/// The cause of a failure, for grouping: a run error's message without its
/// position, instruction index and invocation; "wrong result" for failed
/// expectations.
pub fn cause(v: &Verdict) -> String {
    match v {
        Verdict::Pass => String::from("pass"),
        Verdict::Fail(_) => String::from("wrong result (a failed EXPECT)"),
        Verdict::Error(e) => {
            // "L:C: message (instruction N) [invocation (x,y,z)]"
            let m = e.split_once(": ").map_or(e.as_str(), |(_, m)| m);
            let m = m.split(" (instruction").next().unwrap_or(m);
            let m = m.split(" [invocation").next().unwrap_or(m);
            if let Some(rest) = m.strip_prefix("graphics: not run") {
                let _ = rest;
                return String::from("graphics: not run");
            }
            if m.starts_with("out-of-bounds access") {
                return String::from("out-of-bounds access (run error)");
            }
            if m.starts_with("OFFSET") {
                return String::from("a BIND OFFSET past the buffer's end");
            }
            m.chars()
                .filter(|c| !c.is_ascii_digit())
                .collect::<String>()
        }
    }
}

/// Why a cause stops a test, for the report (keyed by the start of the
/// cause; `None`: no explanation recorded).
pub fn explain(cause: &str, example: &str) -> Option<&'static str> {
    let table: &[(&str, &str)] = &[
        (
            "cannot read `",
            "the buffer's data is loaded from a file beside the upstream script (BUFFER ... FILE), and the corpus does not carry those files",
        ),
        (
            "a GLSL shader needs a precompiled module",
            "the corpus has no compiled module for this GLSL shader (a second shader of a SPIR-V-assembly test)",
        ),
        (
            "integer division by zero",
            "undefined behaviour that the interpreter reports as an error by design (SPIR-V: OpSDiv, OpUDiv and their remainders by 0 are undefined): the test only checks that a driver does not crash, or that the quotient is not used",
        ),
        (
            "index  is out of bounds of a composite",
            "undefined behaviour in the test: the shader indexes a vector or array past its end (a uvec4 at 4, a vec4 at 4, an array of 256 at -32; the test relies on a driver dropping or clamping the access); the interpreter reports it by design",
        ),
        (
            "`depthstencil",
            "the test samples its D24_UNORM_S8_UINT depth attachment as a combined image sampler: the interpreter's images have no depth/stencil formats (D16 and D32 attachments are sampled: their tests pass)",
        ),
        (
            "data race on %stack",
            "the test's verifying compute shader pushes onto a workgroup-shared stack with atomics but writes and reads its slots with plain accesses from many invocations, a data race by the Vulkan memory model; the interpreter reports races by design",
        ),
        (
            "an undefined value written to the colour attachment",
            "the fragment shader reads an array element it never wrote (GraphicsFuzz's `mat_array_distance`: `distance` over a matrix array's column left undefined), and the value reaches the attachment, which the interpreter reports by design where a GPU writes whatever the memory held",
        ),
    ];
    if cause.starts_with("wrong result") {
        return Some(if example.contains("builtin_precision") {
            "a precision test whose expected value is what one GPU computed (fp16 or fp64 matrix functions with its rounding of each step): the interpreter computes in f64 and rounds once, outside the file's tolerance"
        } else if example.contains("terminate_invocation") {
            "the test counts atomics from lanes around OpTerminateInvocation; the interpreter's count is twice the expected one (an atomic counted for the helper lanes of a quad, or for both primitives of the rect) — to be fixed"
        } else if example.contains("early_fragment") {
            "EarlyFragmentTests: the depth test must run before the fragment shader and stop the fragments that fail it from running (and writing)"
        } else if example.contains("atomic_storage_image_r64") {
            "the shader's own check cannot hold: it ORs in bits 63 and 62 and XORs the top byte with 0x0a and 0x06 (top byte 0xcc) but compares with `| 0x0a00000000000000`, where the 32-bit variants (which pass) compare with `| 0xcc000000`; the interpreter computes 0xcc and the shader writes red"
        } else {
            "a failed expectation"
        });
    }
    table
        .iter()
        .find(|(k, _)| cause.starts_with(k))
        .map(|(_, v)| *v)
}
