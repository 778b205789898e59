//! Helpers for the cross-crate tests: where the corpus and the reference
//! SPIRV-Tools are, and how to read a case's metadata.
//!
//! * The corpus is `$SPVLAB_CORPUS`, else `../shared/corpus` beside the checkout.
//! * The reference tools are in `$SPVLAB_SPIRV_TOOLS` (a `bin` folder), else in
//!   `.tools/venv/.../cmeel.prefix/bin` (installed by `./x test`).
//!
//! Tests that need either call [`corpus_or_skip`] / [`reference_or_skip`], which
//! print a clear "SKIPPED" line and return `None` when it is missing.

pub mod amber;
pub mod cfggen;
pub mod mutate;
pub mod shapewalk;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The corpus folder, if present.
pub fn corpus_dir() -> Option<PathBuf> {
    let p = match std::env::var_os("SPVLAB_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => root().join("../shared/corpus"),
    };
    p.join("manifest.json").is_file().then_some(p)
}

/// The corpus folder, or `None` after printing why the test is skipped.
pub fn corpus_or_skip(test: &str) -> Option<PathBuf> {
    let c = corpus_dir();
    if c.is_none() {
        eprintln!(
            "SKIPPED {test}: corpus not found (set SPVLAB_CORPUS or put it at ../shared/corpus)"
        );
    }
    c
}

/// The reference verdict (spirv-val v2025.5 at the case's own environment)
/// of each corpus case, by its path (`cases/<source>/<name>.spvasm`), from
/// the corpus's `manifest.json`.
pub fn reference_validity(corpus: &Path) -> std::collections::HashMap<String, bool> {
    let manifest: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap()).unwrap();
    manifest.iter().filter_map(|e| Some((e["file"].as_str()?.to_owned(), e["valid"].as_bool()?))).collect()
}

/// The folder holding the reference spirv-as, spirv-dis, spirv-val (v2025.5).
pub fn reference_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SPVLAB_SPIRV_TOOLS") {
        let p = PathBuf::from(p);
        return p.join("spirv-as").is_file().then_some(p);
    }
    let lib = root().join(".tools/venv/lib");
    for entry in std::fs::read_dir(lib).ok()?.flatten() {
        let p = entry.path().join("site-packages/cmeel.prefix/bin");
        if p.join("spirv-as").is_file() {
            return Some(p);
        }
    }
    None
}

/// The reference tools folder, or `None` after printing why the test is skipped.
pub fn reference_or_skip(test: &str) -> Option<PathBuf> {
    let b = reference_bin();
    if b.is_none() {
        eprintln!(
            "SKIPPED {test}: reference SPIRV-Tools not found (./x test installs them into .tools/venv; or set SPVLAB_SPIRV_TOOLS)"
        );
    }
    b
}

/// One corpus case: its path, text and parsed `; corpus-meta:` line.
pub struct Case {
    pub path: PathBuf,
    /// The path relative to the corpus folder, e.g. `cases/spirv-tools/x.spvasm`.
    pub name: String,
    pub text: String,
    pub meta: Value,
}

impl Case {
    pub fn meta_str(&self, key: &str) -> &str {
        self.meta.get(key).and_then(Value::as_str).unwrap_or("")
    }

    pub fn meta_strings(&self, key: &str) -> Vec<String> {
        self.meta
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    }

    pub fn asm_env(&self) -> &str {
        match self.meta_str("asm_env") {
            "" => "spv1.6",
            e => e,
        }
    }

    pub fn target_env(&self) -> &str {
        match self.meta_str("target_env") {
            "" => self.asm_env(),
            e => e,
        }
    }
}

/// Every case under `corpus/cases`, sorted by name.
pub fn cases(corpus: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let cases = corpus.join("cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for path in files {
            if path.extension().and_then(|e| e.to_str()) != Some("spvasm") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read case");
            let meta = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("; corpus-meta: "))
                .and_then(|j| serde_json::from_str(j).ok())
                .unwrap_or(Value::Null);
            let name = path.strip_prefix(corpus).unwrap_or(&path).to_string_lossy().into_owned();
            out.push(Case { path, name, text, meta });
        }
    }
    out
}

/// Run a reference tool; returns (success, stdout bytes, stderr text).
pub fn run_tool(bin: &Path, tool: &str, args: &[&str]) -> (bool, Vec<u8>, String) {
    let out = Command::new(bin.join(tool)).args(args).output().expect("run reference tool");
    (out.status.success(), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Little-endian bytes to words (the reference tools write host order).
pub fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The `spvlab` binary of this build's profile, built once per test process
/// (tests run as `<target>/<profile>/deps/<test>-<hash>`).
pub fn spvlab_bin() -> &'static Path {
    use std::sync::OnceLock;
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("current exe");
        let profile_dir = exe.parent().and_then(Path::parent).expect("target profile dir");
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev",
            Some(p) => p,
        };
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "spvlab-cli", "--bin", "spvlab", "--profile", profile])
            .env("CARGO_TARGET_DIR", profile_dir.parent().expect("target dir"))
            .current_dir(root())
            .status()
            .expect("run cargo build");
        assert!(status.success(), "cargo build -p spvlab-cli failed");
        let bin = profile_dir.join(format!("spvlab{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "{} missing after the build", bin.display());
        bin
    })
}

/// Run `spvlab args...` in `dir`, feeding it `stdin`.
pub fn run_spvlab(dir: &Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(spvlab_bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spvlab");
    let mut input = child.stdin.take().expect("stdin");
    // A command that fails before reading may close stdin: ignore that error.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("wait for spvlab")
}

/// spirv-val's verdict on the assembly text `src`, assembled by spirv-as and
/// validated, both at target env `env` (in a scratch folder named `test`);
/// `None` without the reference tools. The text must assemble.
pub fn reference_verdict(test: &str, src: &str, env: &str) -> Option<bool> {
    let bin = reference_bin()?;
    let dir = scratch(test);
    let (text, spv) = (dir.join("m.spvasm"), dir.join("m.spv"));
    std::fs::write(&text, src).unwrap();
    let args = ["--target-env", env, "-o", spv.to_str().unwrap(), text.to_str().unwrap()];
    let (ok, _, err) = run_tool(&bin, "spirv-as", &args);
    assert!(ok, "spirv-as rejects the test module {test}: {err}");
    let (valid, _, err) = run_tool(&bin, "spirv-val", &["--target-env", env, spv.to_str().unwrap()]);
    assert!(!err.contains("USAGE"), "spirv-val did not run: {err}");
    Some(valid)
}

/// spvlab's errors on the assembly text `src` at target env `env`, named by
/// the text and each located at its operand's token, as the CLI and the page
/// show them; every code must have an entry in the rule table.
pub fn located_errors(src: &str, env: &str) -> Vec<spvlab_core::Diagnostic> {
    use spvlab_core::text::asm::{AsmOptions, assemble_with_map};
    use spvlab_core::valid::{Options, TextNames, rules, validate_named};
    let env = spvlab_core::TargetEnv::parse(env).unwrap_or_else(|| panic!("no target env {env}"));
    let out = assemble_with_map(src, &AsmOptions { env, preserve_numeric_ids: false })
        .unwrap_or_else(|e| panic!("the test module does not assemble: {e:?}"));
    let names = TextNames::from_asm(src, &out);
    let ir = spvlab_core::ir::Ir::build(spvlab_core::binary::read_words_framing(&out.words).expect("reads back"));
    let mut diags = validate_named(&ir, &Options { env, ..Options::default() }, Some(&names)).0;
    spvlab_core::analysis::locate_all_operands(&out.map, &out.operands, &mut diags);
    for d in &diags {
        assert!(rules::rule(d.code).is_some(), "{} has no RULES entry", d.code);
    }
    diags.into_iter().filter(|d| d.severity == spvlab_core::Severity::Error).collect()
}

/// A valid module: spirv-val (when installed) and spvlab both accept it.
#[track_caller]
pub fn assert_valid_module(test: &str, src: &str, env: &str) {
    if let Some(v) = reference_verdict(test, src, env) {
        assert!(v, "{test}: spirv-val rejects the valid module");
    }
    let d = located_errors(src, env);
    assert!(d.is_empty(), "{test}: {d:#?}");
}

/// An invalid module: spirv-val (when installed) rejects it, and spvlab
/// reports at least one error; its errors.
#[track_caller]
pub fn assert_invalid_module(test: &str, src: &str, env: &str) -> Vec<spvlab_core::Diagnostic> {
    if let Some(v) = reference_verdict(test, src, env) {
        assert!(!v, "{test}: spirv-val accepts the module");
    }
    let d = located_errors(src, env);
    assert!(!d.is_empty(), "{test}: no error reported");
    d
}

/// An invalid module with one mistake: spvlab reports exactly one error,
/// `code`, spanning the first `token` on or after the first line holding
/// `line`, and its message says each of `says`.
#[track_caller]
pub fn assert_one_error(test: &str, src: &str, env: &str, code: &str, line: &str, token: &str, says: &[&str]) {
    let d = assert_invalid_module(test, src, env);
    assert_eq!(d.len(), 1, "{test}: {d:#?}");
    let d = &d[0];
    assert_eq!(d.code, code, "{test}: {d:#?}");
    assert_eq!(&src[d.span.start as usize..d.span.end as usize], token, "{test}: points at the wrong text: {d:#?}");
    let at_line = src.find(line).unwrap_or_else(|| panic!("{line} not in the module"));
    let col = src[at_line..].find(token).unwrap_or_else(|| panic!("{token} not after {line}")) + at_line;
    let lc = spvlab_core::diag::line_col;
    assert_eq!(lc(src, d.span.start), lc(src, col as u32), "{test}");
    for s in says {
        assert!(d.message.contains(s), "{test}: `{s}` not in: {}", d.message);
    }
}

/// A scratch folder for one test, under the target dir.
pub fn scratch(test: &str) -> PathBuf {
    let d = root().join("target/test-scratch").join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Assert that a finished `spvlab` exited with `code`, showing its output when not.
#[track_caller]
pub fn assert_exit(o: &std::process::Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "expected exit {code}\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Whether a Vulkan adapter exists for the GPU tests (named on stderr);
/// without one the test is skipped with a message, unless
/// `SPVLAB_REQUIRE_GPU=1`, which makes a missing adapter a failure.
pub fn gpu_or_skip(test: &str) -> bool {
    match spvlab_gpu::Gpu::new_blocking() {
        Ok(g) => {
            eprintln!("{test}: on {}", g.info());
            true
        }
        Err(e) if std::env::var("SPVLAB_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("{test}: SPVLAB_REQUIRE_GPU=1 and no Vulkan adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: no Vulkan adapter ({e}); ./x test installs lavapipe");
            false
        }
    }
}
