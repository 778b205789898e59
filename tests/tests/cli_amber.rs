//! `spvlab amber`, run as a process on corpus Amber files: pass, a failed
//! expectation (a corpus file with one EXPECT value changed: the message is
//! located at file:line:col), a GLSL shader given with --shader and without,
//! a graphics file (not run), JSON output, and the exit codes (0 all pass, 1
//! otherwise, 2 bad usage). The verdicts are the Amber files' own EXPECT
//! lines.

use serde_json::Value;
use spvlab_tests::{corpus_or_skip, run_spvlab, scratch};

const SIMPLE: &str = "amber/spirv-control-flow/examples_simple_fleshed.amber";
const GLSL: &str = "amber/vk-gl-cts-glsl/api_descriptor_set_descriptor_set_layout_binding_layout_binding_order.amber";
const GLSL_SHADER: &str = "cases/vk-gl-cts-glsl/api_descriptor_set_descriptor_set_layout_binding_layout_binding_order__compute_shader.spvasm";
/// A geometry stage: not run, never a pass.
const GRAPHICS: &str = "amber/vk-gl-cts/spirv_assembly_instruction_float32_comparison_frexpstruct_1_geom.amber";
/// A vertex and a fragment stage with a uniform buffer: the interpreter draws it.
const DRAW: &str = "amber/google-amber/matrices_uniform_draw.amber";

fn text(o: &std::process::Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn passes_fails_and_errors() {
    let Some(c) = corpus_or_skip("cli_amber") else { return };
    let dir = scratch("cli_amber");
    let simple = c.join(SIMPLE);
    let o = run_spvlab(&dir, &["amber", simple.to_str().unwrap()], b"");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("pass   ") && out.contains("1 files: 1 passed, 0 failed, 0 errors"), "{out}");

    // Change the first value of the last EXPECT line: that line fails, at its
    // line, the others still pass.
    let src = std::fs::read_to_string(&simple).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let (k, last) = lines.iter().enumerate().rev().find(|(_, l)| l.starts_with("EXPECT")).expect("an EXPECT line");
    let mut words: Vec<String> = last.split_whitespace().map(String::from).collect();
    let eq = words.iter().position(|w| w == "EQ").expect("EQ");
    let old: i64 = words[eq + 1].parse().expect("a number");
    words[eq + 1] = (old + 1000).to_string();
    let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    changed[k] = words.join(" ");
    let bad = dir.join("bad.amber");
    std::fs::write(&bad, changed.join("\n")).unwrap();
    let o = run_spvlab(&dir, &["amber", "bad.amber"], b"");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let want = format!("  bad.amber:{}:1: ", k + 1);
    assert!(out.starts_with("fail   bad.amber\n") && out.contains(&want), "{out}");
    assert!(out.contains(&format!("expected {}, got {old}", old + 1000)), "{out}");
    assert!(err.contains("1 of 1 files did not pass"), "{err}");

    // Two files, one passing, one graphics: exit 1, both reported.
    let o = run_spvlab(&dir, &["amber", simple.to_str().unwrap(), c.join(GRAPHICS).to_str().unwrap()], b"");
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.contains("graphics: not run") && out.contains("2 files: 1 passed, 0 failed, 0 errors, 1 graphics"), "{out}");

    // A vertex and fragment pipeline draws, and its probes pass.
    let o = run_spvlab(&dir, &["amber", c.join(DRAW).to_str().unwrap()], b"");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("pass   ") && out.contains("1 files: 1 passed, 0 failed, 0 errors"), "{out}");
}

#[test]
fn glsl_shaders_by_name() {
    let Some(c) = corpus_or_skip("cli_amber") else { return };
    let dir = scratch("cli_amber_glsl");
    let amber = c.join(GLSL);
    let o = run_spvlab(&dir, &["amber", amber.to_str().unwrap()], b"");
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    // The SHADER line is 16 in the file.
    assert!(out.contains(":16:1: a GLSL shader needs a precompiled module: give one with --shader compute_shader=FILE"), "{out}");
    let shader = format!("compute_shader={}", c.join(GLSL_SHADER).display());
    let o = run_spvlab(&dir, &["amber", "--json", "--shader", &shader, amber.to_str().unwrap()], b"");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["files"][0]["verdict"], "pass");
    assert_eq!(v["files"][0]["checked"], 3, "the file has three EXPECT lines");
    assert_eq!(v["summary"]["passed"], 1);
}

#[test]
fn usage_errors() {
    let dir = scratch("cli_amber_usage");
    for args in [&["amber"][..], &["amber", "--shader", "nameonly", "x.amber"], &["amber", "--bogus", "x.amber"], &["amber", "--max-steps", "0", "x.amber"]] {
        let o = run_spvlab(&dir, args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o).1);
    }
    let o = run_spvlab(&dir, &["amber", "missing.amber"], b"");
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.starts_with("error  missing.amber: cannot read"), "{out}");
}

/// `BUFFER ... FILE TEXT|BINARY name` reads the file beside the script, as
/// Amber does. The corpus's buffer_load_{text,binary} scripts check `buf0`
/// against `ref0` (1.0 .. 12.0) after the shader ran, so the file must hold
/// those twelve floats; the scripts are copied to a scratch folder with the
/// file the corpus does not carry. Without the file: a located error.
#[test]
fn buffer_data_from_files_beside_the_script() {
    let Some(c) = corpus_or_skip("cli_amber") else { return };
    let dir = scratch("cli_amber_files");
    let floats: Vec<f32> = (1..=12).map(|k| k as f32).collect();
    for (kind, file, bytes) in [
        ("text", "vec4data.txt", floats.iter().map(|f| format!("{f:.1}\n")).collect::<String>().into_bytes()),
        ("binary", "vec4data.bin", floats.iter().flat_map(|f| f.to_le_bytes()).collect()),
    ] {
        let script = dir.join(format!("buffer_load_{kind}.amber"));
        std::fs::copy(c.join(format!("amber/google-amber-glsl/buffer_load_{kind}.amber")), &script).unwrap();
        let shader = c.join(format!("cases/google-amber-glsl/buffer_load_{kind}__compute_shader.spvasm"));
        let arg = format!("compute_shader={}", shader.display());
        let args = ["amber", script.to_str().unwrap(), "--shader", &arg];
        let o = run_spvlab(&dir, &args, b"");
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{kind}: no file yet: {out}{err}");
        assert!(out.contains(&format!("cannot read `{file}`")) && out.contains(":34:"), "{kind}: {out}");
        std::fs::write(dir.join(file), &bytes).unwrap();
        let o = run_spvlab(&dir, &args, b"");
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{kind}: {out}{err}");
        assert!(out.starts_with("pass   "), "{kind}: {out}");
    }
}

/// With several files, a progress bar on stderr (forced here with
/// SPVLAB_PROGRESS=1, since stderr is a pipe): `[...] k/n name` for each file
/// before it runs, wiped before each result; stdout is the same as without it.
#[test]
fn a_progress_bar_over_many_files() {
    let Some(c) = corpus_or_skip("cli_amber") else { return };
    let dir = scratch("cli_amber_progress");
    let files: Vec<String> = std::fs::read_dir(c.join("amber/spirv-control-flow-fleshed"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".amber"))
        .take(3)
        .collect();
    let mut args = vec!["amber"];
    args.extend(files.iter().map(|s| s.as_str()));
    let plain = run_spvlab(&dir, &args, b"");
    let forced = std::process::Command::new(spvlab_tests::spvlab_bin())
        .args(&args)
        .current_dir(&dir)
        .env("SPVLAB_PROGRESS", "1")
        .output()
        .unwrap();
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(forced.stdout, plain.stdout, "the bar goes to stderr only");
    assert!(plain.stderr.is_empty(), "no bar when stderr is not a terminal");
    let err = String::from_utf8_lossy(&forced.stderr);
    for k in 0..3 {
        assert!(err.contains(&format!("] {k}/3 ")), "{err:?}");
    }
    assert!(err.ends_with("\r\x1b[K"), "the bar is wiped at the end: {err:?}");
}

/// `--data DIR`: a corpus script whose `BUFFER ... FILE TEXT input.txt` is not
/// beside it (the corpus does not carry it) is an error naming the file;
/// with `--data` naming tests/amber-data/vk-gl-cts (the upstream file, see
/// its README) it passes by its own EXPECT lines. A folder without the file
/// before it changes nothing (the folders are searched in order).
#[test]
fn data_files_from_another_folder() {
    let Some(c) = corpus_or_skip("cli_amber") else { return };
    let dir = scratch("cli_amber_data");
    let script = c.join("amber/vk-gl-cts/spirv_assembly_instruction_float32_comparison_frexpstruct_1_comp.amber");
    let script = script.to_str().unwrap();
    let data = spvlab_tests::root().join("tests/amber-data/vk-gl-cts");
    let data = data.to_str().unwrap();
    let o = run_spvlab(&dir, &["amber", script], b"");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.starts_with("error  ") && out.contains("input.txt"), "{out}");
    let o = run_spvlab(&dir, &["amber", "--data", dir.to_str().unwrap(), "--data", data, script], b"");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("pass   "), "{out}");
    let o = run_spvlab(&dir, &["amber", "--data", "no-such-folder", script], b"");
    assert_eq!(o.status.code(), Some(1));
}

/// `--jobs 2` and `--jobs 3` (files run on threads) print what `--jobs 1`
/// (one after another) prints, in the files' order, with the same exit
/// status: over passing corpus files, a failing one, one with an error in the
/// script, one that cannot be read, and a graphics one; in text and JSON.
#[test]
fn jobs_give_the_same_output_in_the_same_order() {
    let Some(c) = corpus_or_skip("cli_amber") else { return };
    let dir = scratch("cli_amber_jobs");
    let folder = c.join("amber/spirv-control-flow-fleshed");
    let mut corpus: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "amber"))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    corpus.sort();
    corpus.truncate(8);
    assert!(corpus.len() >= 4, "{corpus:?}");
    // A failing copy of the first: its first EXPECT's value changed.
    let src = std::fs::read_to_string(&corpus[0]).unwrap();
    let lines: Vec<String> = src
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.iter().position(|x| *x == "EQ") {
                Some(k) if l.trim_start().starts_with("EXPECT") && w.get(k + 1).is_some_and(|v| v.parse::<i64>().is_ok()) => {
                    let mut w: Vec<String> = w.iter().map(|x| x.to_string()).collect();
                    w[k + 1] = (w[k + 1].parse::<i64>().unwrap() + 1000).to_string();
                    w.join(" ")
                }
                _ => l.to_string(),
            }
        })
        .collect();
    std::fs::write(dir.join("bad.amber"), lines.join("\n")).unwrap();
    std::fs::write(dir.join("broken.amber"), "SHADER compute\nRUN nothing\n").unwrap();
    let mut files: Vec<String> = Vec::new();
    for (k, f) in corpus.iter().enumerate() {
        files.push(f.clone());
        match k {
            1 => files.push("bad.amber".into()),
            3 => files.push("broken.amber".into()),
            4 => files.push("missing.amber".into()),
            5 => files.push(c.join(GRAPHICS).to_str().unwrap().to_string()),
            _ => {}
        }
    }
    for json in [false, true] {
        let run = |jobs: &str| {
            let mut args: Vec<&str> = vec!["amber", "--jobs", jobs];
            if json {
                args.push("--json");
            }
            args.extend(files.iter().map(|f| f.as_str()));
            let o = run_spvlab(&dir, &args, b"");
            (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
        };
        let one = run("1");
        assert_eq!(one.0, Some(1), "{}", one.1);
        if !json {
            // Each file's verdict, in the order given.
            let heads: Vec<&str> = one.1.lines().filter(|l| !l.starts_with(' ')).collect();
            assert_eq!(heads.len(), files.len() + 1, "{}", one.1);
            for (h, f) in heads.iter().zip(&files) {
                assert!(h.contains(f.as_str()), "{h} / {f}");
            }
            assert!(heads[2].starts_with("fail   bad.amber"), "{}", one.1);
            assert!(heads.iter().any(|h| h.starts_with("error  broken.amber:")), "{}", one.1);
            assert!(heads.iter().any(|h| h.starts_with("error  missing.amber:")), "{}", one.1);
            assert!(heads.iter().any(|h| h.starts_with("skip   ")), "{}", one.1);
        }
        for jobs in ["2", "3"] {
            assert_eq!(run(jobs), one, "--jobs {jobs}, json {json}");
        }
    }
    let o = run_spvlab(&dir, &["amber", "--jobs", "0", "bad.amber"], b"");
    assert_eq!(o.status.code(), Some(2));
}
