//! Every finding of a campaign reduced ([`super::reduce_one`]), several at
//! once, resumable (a finding with a reduce.json is done), then sorted into
//! classes by backend, kind, message and the reduced CFG's shape
//! (`flesh::shape`).

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Value, json};
use spvlab_core::flesh::{Skeleton, shape};

use super::{NotReduced, Settings, reduce_one};
use crate::cmd::fuzz::signature;
use crate::error::CliError;

/// One class: what its findings share.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    backend: String,
    kind: String,
    /// The failure's message up to numbers (empty for a wrong output), or
    /// for a finding that no longer reproduces, what its backend does now.
    message: String,
    /// The reduced CFG's traits, or `not reproduced`.
    shape: String,
}

/// A class's findings: (folder, blocks, path blocks) of each.
type Members = Vec<(String, usize, usize)>;

pub(super) fn run(dir: &FsPath, settings: &Settings, jobs: usize, again: bool) -> Result<(), CliError> {
    let name = dir.display().to_string();
    let fail = |message: String| {
        eprintln!("spvlab reduce: {name}: {message}");
        CliError::Failed { path: name.clone(), count: 1 }
    };
    let list = dir.join("findings.jsonl");
    let text = std::fs::read_to_string(&list).map_err(|e| fail(format!("cannot read {}: {e}", list.display())))?;
    let mut folders: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|e| fail(format!("findings.jsonl:{}: {e}", n + 1)))?;
        let folder = v.get("folder").and_then(Value::as_str).ok_or_else(|| fail(format!("findings.jsonl:{}: no `folder`", n + 1)))?;
        if folder.contains(['/', '\\']) || folder.starts_with('.') {
            return Err(fail(format!("findings.jsonl:{}: `{folder}` is not a folder of the campaign", n + 1)));
        }
        if !folders.iter().any(|f| f == folder) {
            folders.push(folder.to_string());
        }
    }
    let pending: Vec<&String> = folders.iter().filter(|f| again || !dir.join(f).join("reduce.json").is_file()).collect();
    println!(
        "spvlab reduce: {name}: {} findings, {} to reduce ({} at once)",
        folders.len(),
        pending.len(),
        jobs.min(pending.len()).max(1)
    );
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let write_errors = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(pending.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(folder) = pending.get(i) else { break };
                    let here = dir.join(folder);
                    let to = here.join("reduced");
                    if again {
                        let _ = std::fs::remove_dir_all(&to);
                    }
                    let began = Instant::now();
                    let result = reduce_one(&here, &to, settings);
                    let secs = began.elapsed().as_secs_f64();
                    let (record, said) = record(&result, secs);
                    let file = here.join("reduce.json");
                    if let Err(e) = std::fs::write(&file, format!("{record:#}\n")) {
                        write_errors.lock().unwrap_or_else(|p| p.into_inner()).push(format!("{}: {e}", file.display()));
                    }
                    let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                    println!("[{k}/{}] {folder}: {said} ({secs:.1} s)", pending.len());
                }
            });
        }
    });
    if !pending.is_empty() {
        println!("reduced {} findings in {:.1} s", pending.len(), start.elapsed().as_secs_f64());
    }
    let errors = write_errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = errors.first() {
        return Err(fail(format!("cannot write {e}")));
    }
    let (classes, broken) = classify(dir, &folders);
    let md = table(&classes);
    print!("{md}");
    let data: Vec<Value> = classes
        .iter()
        .map(|(k, members)| {
            json!({
                "backend": k.backend, "kind": k.kind, "message": k.message, "shape": k.shape,
                "count": members.len(),
                "smallest": members.first().map(|m| &m.0),
                "blocks": members.first().map(|m| m.1),
                "folders": members.iter().map(|m| &m.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let write = |file: PathBuf, text: String| std::fs::write(&file, text).map_err(|err| CliError::Write { path: file, err });
    write(dir.join("classes.json"), format!("{:#}\n", Value::from(data)))?;
    write(dir.join("classes.md"), md)?;
    if !broken.is_empty() {
        for b in &broken {
            eprintln!("spvlab reduce: {b}");
        }
        return Err(CliError::Failed { path: name.clone(), count: broken.len() });
    }
    Ok(())
}

/// reduce.json's data for one finding, and the line that says it.
fn record(result: &Result<super::Summary, NotReduced>, secs: f64) -> (Value, String) {
    match result {
        Ok(s) => (
            json!({
                "status": "reduced",
                "before": [s.before.0, s.before.1], "after": [s.after.0, s.after.1],
                "tried": s.tried, "kept": s.kept, "secs": secs,
            }),
            s.describe(),
        ),
        Err(NotReduced::Gone { now, message }) => {
            (json!({ "status": "gone", "now": now, "message": message, "secs": secs }), message.clone())
        }
        Err(NotReduced::Broken(m)) => (json!({ "status": "broken", "message": m, "secs": secs }), m.clone()),
    }
}

/// The findings of `folders` by class, largest class first, each class's
/// smallest repro first; and the findings that could not be read.
fn classify(dir: &FsPath, folders: &[String]) -> (Vec<(Key, Members)>, Vec<String>) {
    let read = |p: PathBuf| -> Option<Value> { serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok() };
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let mut classes: BTreeMap<Key, Members> = BTreeMap::new();
    let mut broken = Vec::new();
    for folder in folders {
        let here = dir.join(folder);
        let status = read(here.join("reduce.json"));
        let status_text = status.as_ref().map(|s| text(s, "status")).unwrap_or_default();
        let reduced = if status_text == "reduced" { read(here.join("reduced/finding.json")) } else { None };
        let (key, member) = match (status_text.as_str(), reduced) {
            ("reduced", Some(f)) => {
                let Ok(sk) = serde_json::from_value::<Skeleton>(f.get("skeleton").cloned().unwrap_or_default()) else {
                    broken.push(format!("{folder}: reduced/finding.json has no skeleton"));
                    continue;
                };
                let actual: Vec<u32> = f.get("actual").and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
                let paths = f.get("paths").and_then(Value::as_array).map_or(0, |p| {
                    p.iter().map(|p| p.get("blocks").and_then(Value::as_array).map_or(0, Vec::len)).sum()
                });
                let key = Key {
                    backend: text(&f, "backend"),
                    kind: text(&f, "finding"),
                    message: f.get("error").and_then(Value::as_str).map(signature).unwrap_or_default(),
                    shape: shape::describe(&shape::traits(&sk, &actual)),
                };
                (key, (format!("{folder}/reduced"), sk.blocks.len(), paths))
            }
            ("gone", _) => {
                let Some(f) = read(here.join("finding.json")) else {
                    broken.push(format!("{folder}: cannot read finding.json"));
                    continue;
                };
                let now = status.as_ref().map(|s| text(s, "now")).unwrap_or_default();
                let blocks = f.get("skeleton").and_then(|s| s.get("blocks")).and_then(Value::as_array).map_or(0, Vec::len);
                let key = Key { backend: text(&f, "backend"), kind: text(&f, "finding"), message: now, shape: "not reproduced".into() };
                (key, (folder.clone(), blocks, 0))
            }
            ("broken", _) => {
                broken.push(format!("{folder}: {}", status.as_ref().map(|s| text(s, "message")).unwrap_or_default()));
                continue;
            }
            _ => {
                broken.push(format!("{folder}: not reduced (no reduce.json, or no reduced/finding.json)"));
                continue;
            }
        };
        classes.entry(key).or_default().push(member);
    }
    let mut out: Vec<(Key, Members)> = classes.into_iter().collect();
    for (_, m) in &mut out {
        m.sort_by(|a, b| (a.1, a.2, &a.0).cmp(&(b.1, b.2, &b.0)));
    }
    out.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    (out, broken)
}

/// The classes as a Markdown table.
fn table(classes: &[(Key, Members)]) -> String {
    let total: usize = classes.iter().map(|c| c.1.len()).sum();
    let mut s = format!("{total} findings in {} classes\n\n", classes.len());
    s.push_str("| findings | backend | kind | message | shape | smallest repro (blocks) |\n|---|---|---|---|---|---|\n");
    for (k, members) in classes {
        let smallest = members.first().map_or(String::new(), |m| format!("{} ({})", m.0, m.1));
        let message = if k.message.is_empty() { "-".to_string() } else { k.message.replace('|', "\\|") };
        s.push_str(&format!("| {} | {} | {} | {message} | {} | {smallest} |\n", members.len(), k.backend, k.kind, k.shape));
    }
    s
}
