//! Reflection measured against the Amber files: for every valid compute case
//! of the corpus (`runnable: "compute"` in the manifest), assemble it at its
//! asm_env, reflect, and check
//!
//! 1. every binding the shader uses has a set, a binding, a storage class and
//!    a byte size (or, for a block ending in a runtime array, a fixed part and
//!    a stride);
//! 2. against the pipelines of its Amber file that attach the shader: every
//!    `BIND BUFFER[_ARRAY] ... AS kind DESCRIPTOR_SET s BINDING b` has a
//!    reflected binding at (s, b) of a matching kind (storage: a StorageBuffer
//!    block or a Uniform BufferBlock; uniform: a Uniform Block; images and
//!    texel buffers by their image type), each `AS push_constant` a push
//!    constant block, and the Amber buffer holds at least the reflected size
//!    (for a runtime array, at least its fixed part);
//! 3. every binding the shader uses is bound by the pipeline.
//!
//! An Amber BIND of a binding the shader declares but does not use, or does
//! not declare at all, is fine (Vulkan allows a descriptor set layout with more
//! bindings than the shader uses): it is counted, not a mismatch.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;
use spvlab_core::ir::Ir;
use spvlab_core::reflect::{ResourceKind, reflect, resource};
use spvlab_core::text::asm::{AsmOptions, assemble};
use spvlab_core::{TargetEnv, binary};
use spvlab_tests::corpus_or_skip;

/// One Amber buffer: its size in bytes, when it can be worked out.
fn buffer_sizes(text: &str) -> HashMap<String, Option<u64>> {
    let mut out = HashMap::new();
    let toks: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").split_whitespace().collect())
        .collect();
    let mut li = 0;
    while li < toks.len() {
        let t = &toks[li];
        li += 1;
        if t.first() != Some(&"BUFFER") || t.len() < 3 {
            continue;
        }
        let name = t[1].to_string();
        let ty = t.iter().position(|&x| x == "DATA_TYPE" || x == "FORMAT").and_then(|k| t.get(k + 1));
        let std140 = t.contains(&"STD140");
        let Some((comps, elem)) = ty.and_then(|ty| element(ty, std140)) else {
            out.insert(name, None);
            continue;
        };
        let size = if let Some(k) = t.iter().position(|&x| x == "SIZE") {
            t.get(k + 1).and_then(|n| n.parse::<u64>().ok()).map(|n| n * elem)
        } else if let Some(k) = t.iter().position(|&x| x == "DATA") {
            // Values up to END (on this line or the next ones).
            let mut values = 0usize;
            let mut rest: Vec<&str> = t[k + 1..].to_vec();
            loop {
                match rest.iter().position(|&x| x == "END") {
                    Some(e) => {
                        values += e;
                        break;
                    }
                    None => values += rest.len(),
                }
                let Some(next) = toks.get(li) else { break };
                rest = next.clone();
                li += 1;
            }
            Some(values.div_ceil(comps as usize) as u64 * elem)
        } else {
            None
        };
        out.insert(name, size);
    }
    out
}

/// An Amber data type or format: (values per element, bytes per element).
fn element(ty: &str, std140: bool) -> Option<(u64, u64)> {
    let scalar = |s: &str| -> Option<u64> {
        Some(match s {
            "int8" | "uint8" => 1,
            "int16" | "uint16" | "float16" => 2,
            "int32" | "uint32" | "float" => 4,
            "int64" | "uint64" | "double" => 8,
            _ => return None,
        })
    };
    let round140 = |n: u64| if std140 { n.div_ceil(16) * 16 } else { n };
    if let Some(n) = scalar(ty) {
        return Some((1, round140(n)));
    }
    if let Some(rest) = ty.strip_prefix("vec") {
        let (n, inner) = rest.split_once('<')?;
        let n: u64 = n.parse().ok()?;
        let s = scalar(inner.strip_suffix('>')?)?;
        let padded = if n == 3 { 4 } else { n };
        return Some((n, round140(padded * s)));
    }
    if let Some(rest) = ty.strip_prefix("mat") {
        let (cr, inner) = rest.split_once('<')?;
        let (c, r) = cr.split_once('x')?;
        let (c, r): (u64, u64) = (c.parse().ok()?, r.parse().ok()?);
        let s = scalar(inner.strip_suffix('>')?)?;
        let col = round140(if r == 3 { 4 } else { r } * s);
        return Some((c * r, c * col));
    }
    // Formats: R32G32B32A32_SFLOAT, R8G8B8A8_UNORM, R32_UINT...
    let head = ty.split('_').next()?;
    let mut bits = 0u64;
    let mut comps = 0u64;
    let mut num = String::new();
    for ch in head.chars().chain(std::iter::once('X')) {
        if ch.is_ascii_digit() {
            num.push(ch);
        } else {
            if !num.is_empty() {
                bits += num.parse::<u64>().ok()?;
                comps += 1;
                num.clear();
            }
            if !"RGBAX".contains(ch) {
                return None;
            }
        }
    }
    (comps > 0).then_some((comps, bits / 8))
}

/// One BIND line of a pipeline.
#[derive(Debug)]
struct Bind {
    buffers: Vec<String>,
    kind: String,
    set: Option<u32>,
    binding: Option<u32>,
    /// Dynamic OFFSET / DESCRIPTOR_OFFSET, and DESCRIPTOR_RANGE.
    offset: u64,
    range: Option<u64>,
}

/// The BIND lines of each pipeline that attaches `shader` (DERIVE_PIPELINE
/// inherits its parent's).
fn binds_for(text: &str, shader: &str) -> Vec<Vec<Bind>> {
    let mut pipelines: HashMap<String, (bool, Vec<Bind>)> = HashMap::new();
    let mut order = Vec::new();
    let mut cur: Option<String> = None;
    // Blocks inside a pipeline that end with their own END.
    let mut nested = 0;
    for line in text.lines() {
        let t: Vec<&str> = line.split('#').next().unwrap_or("").split_whitespace().collect();
        let Some(&first) = t.first() else { continue };
        match first {
            "PIPELINE" if t.len() >= 3 => {
                cur = Some(t[2].to_string());
                pipelines.insert(t[2].to_string(), (false, Vec::new()));
                order.push(t[2].to_string());
            }
            "DERIVE_PIPELINE" if t.len() >= 4 => {
                let parent = pipelines.get(t[3]).map(|(a, b)| (*a, b.iter().map(clone_bind).collect()));
                pipelines.insert(t[1].to_string(), parent.unwrap_or((false, Vec::new())));
                cur = Some(t[1].to_string());
                order.push(t[1].to_string());
            }
            "SHADER_OPTIMIZATION" | "COMPILE_OPTIONS" | "SUBGROUP" if cur.is_some() => nested += 1,
            "END" if nested > 0 => nested -= 1,
            "END" => cur = None,
            "ATTACH" if t.get(1) == Some(&shader) => {
                if let Some(p) = cur.as_ref().and_then(|c| pipelines.get_mut(c)) {
                    p.0 = true;
                }
            }
            "BIND" => {
                let Some(p) = cur.as_ref().and_then(|c| pipelines.get_mut(c)) else { continue };
                let num = |key: &str| {
                    t.iter().position(|&x| x == key).and_then(|k| t.get(k + 1)).and_then(|v| v.parse::<u64>().ok())
                };
                let (buffers, kind) = match t.get(1) {
                    Some(&"SAMPLER") => (vec![t.get(2).unwrap_or(&"").to_string()], "sampler".to_string()),
                    _ => {
                        let as_at = t.iter().position(|&x| x == "AS").unwrap_or(t.len());
                        let names = t[2.min(as_at)..as_at].iter().map(|s| s.to_string()).collect();
                        (names, t.get(as_at + 1).unwrap_or(&"").to_string())
                    }
                };
                p.1.push(Bind {
                    buffers,
                    kind,
                    set: num("DESCRIPTOR_SET").map(|v| v as u32),
                    binding: num("BINDING").map(|v| v as u32),
                    offset: num("OFFSET").unwrap_or(0).max(num("DESCRIPTOR_OFFSET").unwrap_or(0)),
                    range: num("DESCRIPTOR_RANGE"),
                });
            }
            _ => {}
        }
    }
    order
        .iter()
        .filter_map(|n| pipelines.remove(n))
        .filter(|(attached, _)| *attached)
        .map(|(_, b)| b)
        .collect()
}

fn clone_bind(b: &Bind) -> Bind {
    Bind { buffers: b.buffers.clone(), kind: b.kind.clone(), ..*b }
}

fn kind_matches(amber: &str, k: ResourceKind) -> bool {
    use ResourceKind as R;
    match amber {
        "storage" | "storage_dynamic" => k == R::StorageBuffer,
        "uniform" | "uniform_dynamic" => k == R::UniformBuffer,
        "storage_image" => k == R::StorageImage,
        "sampled_image" => k == R::SampledImage,
        "combined_image_sampler" => k == R::CombinedImageSampler,
        "uniform_texel_buffer" => k == R::UniformTexelBuffer,
        "storage_texel_buffer" => k == R::StorageTexelBuffer,
        "sampler" => k == R::Sampler,
        _ => false,
    }
}

#[test]
fn reflection_agrees_with_amber_files() {
    let Some(corpus) = corpus_or_skip("reflection_agrees_with_amber_files") else { return };
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("manifest.json")).expect("manifest")).expect("json");
    let cases: Vec<&Value> = manifest
        .as_array()
        .expect("manifest array")
        .iter()
        .filter(|c| c["runnable"] == "compute" && c["valid"] == true)
        .collect();
    let (mut modules, mut bindings, mut compared, mut buffers_sized) = (0, 0, 0, 0);
    let (mut unused_binds, mut undeclared_binds, mut no_amber) = (0, 0, 0);
    let mut mismatches: Vec<String> = Vec::new();
    for c in &cases {
        let file = c["file"].as_str().unwrap_or("");
        let env = TargetEnv::parse(c["asm_env"].as_str().unwrap_or("spv1.6")).expect("asm_env");
        let text = std::fs::read_to_string(corpus.join(file)).expect("case");
        let words = match assemble(&text, &AsmOptions { env, preserve_numeric_ids: false }) {
            Ok(w) => w,
            Err(e) => {
                mismatches.push(format!("{file}: does not assemble: {}", e[0].message));
                continue;
            }
        };
        let module = binary::read_words(&words).expect("read");
        let ir = Ir::build(module);
        let r = reflect(&ir);
        modules += 1;
        let Some(entry) = r.entry_points.iter().find(|e| e.execution_model == spvlab_core::reflect::ExecutionModel::GLCompute) else {
            mismatches.push(format!("{file}: no GLCompute entry point"));
            continue;
        };
        // 1. Every binding is complete.
        for res in &entry.resources {
            if res.kind == ResourceKind::Workgroup {
                continue;
            }
            bindings += 1;
            let placed = res.kind == ResourceKind::PushConstant || (res.set.is_some() && res.binding.is_some());
            let sized = !res.kind.is_buffer()
                || res.size.is_some()
                || res.runtime_array.is_some_and(|rt| rt.stride.is_some());
            if !placed || !sized || res.storage_class.is_empty() {
                mismatches.push(format!("{file}: incomplete binding {res:?}"));
            }
        }
        // 2. Against the Amber file.
        let Some(amber) = c["amber"].as_str() else {
            no_amber += 1;
            continue;
        };
        let Ok(atext) = std::fs::read_to_string(corpus.join(amber)) else {
            no_amber += 1;
            continue;
        };
        let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let shader = stem.rsplit("__").next().unwrap_or(stem);
        let sizes = buffer_sizes(&atext);
        let pipelines = binds_for(&atext, shader);
        if pipelines.is_empty() {
            mismatches.push(format!("{file}: no pipeline of {amber} attaches shader `{shader}`"));
        }
        for binds in &pipelines {
            for b in binds {
                compared += 1;
                let found = if b.kind == "push_constant" {
                    entry.resources.iter().find(|r| r.kind == ResourceKind::PushConstant)
                } else {
                    entry.resources.iter().find(|r| r.set == b.set && r.binding == b.binding)
                };
                let Some(res) = found else {
                    // Bound but not used: declared, or not even declared.
                    let declared = ir.globals.iter().any(|g| {
                        if b.kind == "push_constant" {
                            resource(&ir, g.id).is_some_and(|r| r.kind == ResourceKind::PushConstant)
                        } else {
                            g.set == b.set && g.binding == b.binding
                        }
                    });
                    if declared { unused_binds += 1 } else { undeclared_binds += 1 }
                    if std::env::var_os("SPVLAB_REFLECT_VERBOSE").is_some() {
                        println!("unused: {file}: {amber}: BIND {:?} AS {} set {:?} binding {:?} (declared: {declared})", b.buffers, b.kind, b.set, b.binding);
                    }
                    continue;
                };
                if b.kind != "push_constant" && !kind_matches(&b.kind, res.kind) {
                    mismatches.push(format!(
                        "{file}: {amber}: BIND {:?} AS {} at set {:?} binding {:?} but the shader has a {} ({}{})",
                        b.buffers,
                        b.kind,
                        b.set,
                        b.binding,
                        res.kind.name(),
                        res.storage_class,
                        res.block.as_deref().map(|x| format!(" {x}")).unwrap_or_default()
                    ));
                    continue;
                }
                if !res.kind.is_buffer() {
                    continue;
                }
                let need = match (res.size, res.runtime_array) {
                    (_, Some(rt)) => rt.fixed_size,
                    (Some(n), None) => n,
                    (None, None) => continue,
                };
                for name in &b.buffers {
                    let Some(&Some(have)) = sizes.get(name) else {
                        mismatches.push(format!("{file}: {amber}: size of buffer `{name}` not understood"));
                        continue;
                    };
                    let have = have.saturating_sub(b.offset).min(b.range.unwrap_or(u64::MAX));
                    buffers_sized += 1;
                    if have < need {
                        mismatches.push(format!(
                            "{file}: {amber}: buffer `{name}` has {have} bytes, the shader's {} at set {:?} binding {:?} needs {need}",
                            res.kind.name(),
                            res.set,
                            res.binding
                        ));
                    }
                }
            }
            // 3. Every binding the shader uses is bound.
            for res in &entry.resources {
                let bound = match res.kind {
                    ResourceKind::Workgroup => true,
                    ResourceKind::PushConstant => binds.iter().any(|b| b.kind == "push_constant"),
                    _ => binds.iter().any(|b| b.set == res.set && b.binding == res.binding),
                };
                if !bound {
                    mismatches.push(format!(
                        "{file}: {amber}: the shader uses {} at set {:?} binding {:?}, which the pipeline does not bind",
                        res.kind.name(),
                        res.set,
                        res.binding
                    ));
                }
            }
        }
    }
    println!(
        "reflect_amber: {} compute cases, {modules} modules reflected, {bindings} bindings checked complete, \
         {compared} Amber BINDs compared ({buffers_sized} buffer sizes checked; {unused_binds} bind a variable \
         the shader declares but does not use, {undeclared_binds} a binding it does not declare: both fine), \
         {no_amber} without an Amber file, {} mismatches",
        cases.len(),
        mismatches.len()
    );
    for m in &mismatches {
        println!("MISMATCH {m}");
    }
    assert!(mismatches.is_empty(), "{} mismatches (listed above)", mismatches.len());
    assert_eq!(cases.len(), 844, "the corpus has 844 valid compute cases");
}
