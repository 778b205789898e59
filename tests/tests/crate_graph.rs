//! The crate graph: `spvlab-core` <- `spvlab-gpu` <- {`spvlab-web`,
//! `spvlab-cli`}. The web crate is only the wasm-bindgen facade, so the
//! native CLI links no wasm-bindgen, web-sys or js-sys.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

fn cargo(args: &[&str]) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO")).args(args).current_dir(root).output().expect("cargo runs");
    assert!(out.status.success(), "cargo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The crates the CLI links natively (normal dependencies, this host).
#[test]
fn the_cli_links_no_wasm_bindgen() {
    let tree = cargo(&["tree", "--offline", "-p", "spvlab-cli", "-e", "normal", "--prefix", "none", "--no-dedupe"]);
    let names: BTreeSet<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains("spvlab-gpu") && names.contains("wgpu"), "the CLI's GPU backends are gone: {names:?}");
    for bad in ["wasm-bindgen", "web-sys", "js-sys", "wasm-bindgen-futures", "spvlab-web"] {
        assert!(!names.contains(bad), "the CLI links {bad}:\n{tree}");
    }
}

/// The edges between the workspace's own crates, from `cargo metadata`.
#[test]
fn the_workspace_crates_form_the_graph() {
    let meta: serde_json::Value = serde_json::from_str(&cargo(&["metadata", "--offline", "--format-version", "1", "--no-deps"])).expect("json");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in meta["packages"].as_array().expect("packages") {
        let name = p["name"].as_str().expect("name").to_string();
        let deps = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|n| n.starts_with("spvlab-"))
            .map(String::from)
            .collect();
        edges.insert(name, deps);
    }
    let want = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
    assert_eq!(edges["spvlab-core"], want(&[]));
    assert_eq!(edges["spvlab-gpu"], want(&["spvlab-core"]));
    assert_eq!(edges["spvlab-web"], want(&["spvlab-core", "spvlab-gpu"]));
    assert_eq!(edges["spvlab-cli"], want(&["spvlab-core", "spvlab-gpu"]));
    // Nothing depends on the facade.
    for (name, deps) in &edges {
        assert!(!deps.contains("spvlab-web"), "{name} depends on spvlab-web");
    }
}
