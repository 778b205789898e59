//! `spvlab fuzz` on a Vulkan GPU (lavapipe in CI): programs fleshed from
//! random CFGs run through our WGSL lowering and by passthrough write exactly
//! the paths that their CFGs force (the oracle comes from the CFG), and a
//! backend that writes another path leaves a finding whose files reproduce
//! it: its Amber test passes on the interpreter, its program is valid for
//! spirv-val (when installed) and its data names both paths; two shards of a
//! campaign, and the campaign run in batches of programs (`--batch 8`), find
//! exactly what the whole campaign finds one program at a time; `spvlab reduce`
//! on a campaign's folder reduces each finding and sorts them all into
//! classes.
//!
//! Skipped, with a message, only when no Vulkan adapter exists
//! (`SPVLAB_REQUIRE_GPU=1`: a missing adapter fails).

use spvlab_tests::{assert_exit, assert_valid_module, gpu_or_skip, run_spvlab, scratch};

#[test]
fn fleshed_programs_follow_their_paths_through_our_wgsl_and_by_passthrough() {
    if !gpu_or_skip("gpu_flesh") {
        return;
    }
    let dir = scratch("gpu_flesh");
    let out = dir.join("findings");
    let o = run_spvlab(
        &dir,
        &[
            "fuzz", "--count", "45", "--seed", "3", "--paper", "--batch", "4", "--backends", "wgpu,wgpu-passthrough", "--out",
            out.to_str().unwrap(),
            // A batch that times out is split and its programs run alone,
            // which this test counts against the batch: a busy machine
            // may take seconds to compile one.
            "--gpu-timeout",
            "30",
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    eprintln!("{text}{}", String::from_utf8_lossy(&o.stderr));
    assert_exit(&o, 0);
    for b in ["wgpu ", "wgpu-passthrough"] {
        let line = text.lines().find(|l| l.trim_start().starts_with(b)).unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("0 wrong output, 0 failed"), "{text}");
        assert!(!line.contains(" 0 passed"), "{text}");
    }
    assert!(!text.contains("batches went wrong"), "{text}");
}

#[test]
fn a_finding_reproduces_from_its_files() {
    if !gpu_or_skip("gpu_flesh_finding") {
        return;
    }
    // naga's SPIR-V front end miscompiles or rejects some of these programs
    // (its `break` outside a loop, paths that skip blocks): a campaign on
    // wgpu-naga leaves findings.
    let dir = scratch("gpu_flesh_finding");
    let out = dir.join("findings");
    let o = run_spvlab(&dir, &["fuzz", "--count", "30", "--seed", "1", "--backends", "wgpu-naga", "--out", out.to_str().unwrap()], b"");
    assert_exit(&o, 1);
    // Two shards find exactly what the whole campaign finds, the same way.
    let found = |d: &std::path::Path| -> Vec<(String, serde_json::Value)> {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| {
                let data: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(e.path().join("finding.json")).unwrap()).unwrap();
                (e.file_name().to_string_lossy().into_owned(), data["finding"].clone())
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let mut sharded = Vec::new();
    for shard in ["0/2", "1/2"] {
        let part = dir.join(format!("shard-{}", &shard[..1]));
        let o = run_spvlab(
            &dir,
            &["fuzz", "--count", "30", "--seed", "1", "--backends", "wgpu-naga", "--shard", shard, "--out", part.to_str().unwrap()],
            b"",
        );
        assert_exit(&o, 1);
        sharded.extend(found(&part));
    }
    sharded.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(sharded, found(&out));
    // In batches: the same findings, each attributed to its own program.
    let batched = dir.join("batched");
    let o = run_spvlab(&dir, &["fuzz", "--count", "30", "--seed", "1", "--backends", "wgpu-naga", "--batch", "8", "--out", batched.to_str().unwrap()], b"");
    assert_exit(&o, 1);
    assert_eq!(found(&batched), found(&out));
    // findings.jsonl: one line per folder, and the shards' files concatenated
    // hold the same lines.
    let lines = |files: &[std::path::PathBuf]| -> Vec<String> {
        let mut v: Vec<String> =
            files.iter().flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(String::from).collect::<Vec<_>>()).collect();
        v.sort();
        v
    };
    let whole = lines(&[out.join("findings.jsonl")]);
    assert_eq!(whole.len(), sharded.len());
    assert_eq!(lines(&[dir.join("shard-0/findings.jsonl"), dir.join("shard-1/findings.jsonl")]), whole);
    let mut wrong = 0;
    let mut reduced = false;
    let mut cases: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    for case in cases {
        let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(case.join("finding.json")).unwrap()).unwrap();
        assert_eq!(data["backend"], "wgpu-naga");
        let program = std::fs::read_to_string(case.join("program.spvasm")).unwrap();
        assert_valid_module("gpu_flesh_finding_valid", &program, "spv1.4");
        let o = run_spvlab(&dir, &["amber", case.join("test.amber").to_str().unwrap()], b"");
        assert_exit(&o, 0);
        assert!(std::fs::read_to_string(case.join("link.txt")).unwrap().starts_with("#v1/"));
        if !data["actual"].is_null() {
            assert_ne!(data["actual"], data["expected"]);
            wrong += 1;
            if !reduced {
                // The reducer keeps the wrong output and makes the case no bigger.
                let o = run_spvlab(&dir, &["reduce", "--max-tries", "40", case.to_str().unwrap()], b"");
                assert_exit(&o, 0);
                let r: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(case.join("reduced/finding.json")).unwrap()).unwrap();
                assert_eq!(r["finding"], "wrong");
                assert_ne!(r["actual"], r["expected"]);
                let blocks = |v: &serde_json::Value| v["skeleton"]["blocks"].as_array().unwrap().len();
                let path = |v: &serde_json::Value| v["paths"].as_array().unwrap().iter().map(|p| p["blocks"].as_array().unwrap().len()).sum::<usize>();
                assert!(blocks(&r) <= blocks(&data) && path(&r) < path(&data), "{}", String::from_utf8_lossy(&o.stdout));
                let o = run_spvlab(&dir, &["amber", case.join("reduced/test.amber").to_str().unwrap()], b"");
                assert_exit(&o, 0);
                reduced = true;
            }
        } else {
            assert!(data["error"].as_str().is_some_and(|e| !e.is_empty()), "{data}");
        }
    }
    eprintln!("gpu_flesh_finding: {wrong} wrong outputs among the findings");
    assert!(reduced, "no wrong output to reduce");
}

#[test]
fn a_campaigns_findings_are_reduced_and_sorted_into_classes() {
    if !gpu_or_skip("gpu_flesh_classes") {
        return;
    }
    let dir = scratch("gpu_flesh_classes");
    let out = dir.join("findings");
    let o = run_spvlab(&dir, &["fuzz", "--count", "12", "--seed", "3", "--backends", "wgpu-naga", "--out", out.to_str().unwrap()], b"");
    assert_exit(&o, 1);
    let read = |p: std::path::PathBuf| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap() };
    let folders: Vec<String> = std::fs::read_to_string(out.join("findings.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["folder"].as_str().unwrap().to_string())
        .collect();
    assert!(!folders.is_empty());
    let o = run_spvlab(&dir, &["reduce", "--max-tries", "12", "--jobs", "2", out.to_str().unwrap()], b"");
    assert_exit(&o, 0);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains(&format!("{} findings, {} to reduce", folders.len(), folders.len())), "{text}");
    // Each finding: reduced (the same kind, no bigger) or said to be gone.
    let mut reduced = 0;
    for f in &folders {
        let status = read(out.join(f).join("reduce.json"));
        match status["status"].as_str() {
            Some("reduced") => {
                let (before, after) = (read(out.join(f).join("finding.json")), read(out.join(f).join("reduced/finding.json")));
                assert_eq!(before["finding"], after["finding"], "{f}");
                let blocks = |v: &serde_json::Value| v["skeleton"]["blocks"].as_array().unwrap().len();
                assert!(blocks(&after) <= blocks(&before), "{f}");
                assert_eq!(status["after"][0].as_u64(), Some(blocks(&after) as u64), "{f}");
                reduced += 1;
            }
            Some("gone") => assert!(status["message"].as_str().unwrap().contains("no longer goes wrong the same way"), "{f}: {status}"),
            other => panic!("{f}: {other:?}"),
        }
    }
    assert!(reduced > 0, "{text}");
    // The classes hold every finding once; a failure's message has no numbers.
    let classes = read(out.join("classes.json"));
    let classes = classes.as_array().unwrap();
    let mut members: Vec<String> = classes
        .iter()
        .flat_map(|c| {
            assert_eq!(c["count"].as_u64(), Some(c["folders"].as_array().unwrap().len() as u64));
            if c["kind"].as_str().unwrap().starts_with("failed:") {
                assert!(!c["message"].as_str().unwrap().chars().any(|ch| ch.is_ascii_digit()), "{c}");
            }
            c["folders"].as_array().unwrap().iter().map(|f| f.as_str().unwrap().trim_end_matches("/reduced").to_string()).collect::<Vec<_>>()
        })
        .collect();
    members.sort();
    let mut all = folders.clone();
    all.sort();
    assert_eq!(members, all);
    assert!(std::fs::read_to_string(out.join("classes.md")).unwrap().contains(&format!("{} findings in {} classes", folders.len(), classes.len())));
    // A second run reduces nothing and sorts the same way.
    let o = run_spvlab(&dir, &["reduce", out.to_str().unwrap()], b"");
    assert_exit(&o, 0);
    let again = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(again.contains(&format!("{} findings, 0 to reduce", folders.len())), "{again}");
    assert_eq!(read(out.join("classes.json")).as_array().unwrap(), classes);
    let o = run_spvlab(&dir, &["reduce", "--out", "x", out.to_str().unwrap()], b"");
    assert_exit(&o, 2);
}
