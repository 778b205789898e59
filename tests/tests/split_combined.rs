//! Every valid corpus module with a combined image sampler variable splits
//! into an image and a sampler (`wgsl::split_combined_samplers`, the form
//! the GPU runner binds) that the reference spirv-val accepts at the case's
//! own environment, with no OpTypeSampledImage variable left and each
//! sampler at the binding our WGSL gives it; or it is not split, with a
//! reason that names the use that stops it.

use spvlab_core::grammar::{decoration, storage_class as sc};
use spvlab_core::ir::{Ir, Type};
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::wgsl::{self, split_combined_samplers};
use spvlab_core::{TargetEnv, binary, cfg};
use spvlab_tests::{cases, corpus_or_skip, reference_or_skip, reference_validity, run_tool, scratch};

fn combined_vars(ir: &Ir) -> Vec<u32> {
    ir.globals
        .iter()
        .filter(|v| v.storage == sc::UniformConstant && v.pointee.is_some_and(|p| matches!(ir.ty(p).map(|t| &t.ty), Some(Type::SampledImage { .. }))))
        .map(|v| v.id)
        .collect()
}

#[test]
fn combined_image_samplers_split_into_modules_spirv_val_accepts() {
    let Some(corpus) = corpus_or_skip("split_combined") else { return };
    let Some(bin) = reference_or_skip("split_combined") else { return };
    let valid = reference_validity(&corpus);
    let dir = scratch("split_combined");
    let (mut split, mut refused, mut checked_wgsl) = (0usize, Vec::new(), 0usize);
    for case in cases(&corpus) {
        if valid.get(&case.name) != Some(&true) {
            continue;
        }
        let asm = AsmOptions { env: TargetEnv::parse(case.asm_env()).unwrap_or_default(), preserve_numeric_ids: false };
        let Ok(words) = assemble(&case.text, &asm) else { continue };
        let ir = Ir::build(binary::read_words(&words).unwrap());
        let before = combined_vars(&ir);
        let s = match split_combined_samplers(&ir) {
            Ok(None) => {
                assert!(before.is_empty(), "{}: combined image samplers {before:?} and nothing split", case.name);
                continue;
            }
            Ok(Some(s)) => s,
            Err(why) => {
                assert!(why.contains("combined image sampler %"), "{}: a reason that names no variable: {why}", case.name);
                refused.push(format!("{}: {why}", case.name));
                continue;
            }
        };
        split += 1;
        let out = Ir::build(binary::read_words(&s.words).unwrap_or_else(|e| panic!("{}: the split module does not read: {e:?}", case.name)));
        assert!(combined_vars(&out).is_empty(), "{}: combined variables left after the split", case.name);
        assert_eq!(s.combined.len(), before.len(), "{}: every combined variable splits", case.name);
        for c in &s.combined {
            // The image keeps the id and binding; a sampler variable sits at
            // the sampler's slot.
            let img = out.global(c.variable).unwrap_or_else(|| panic!("{}: %{} is gone", case.name, c.variable));
            assert_eq!((img.set, img.binding), (Some(c.texture.0), Some(c.texture.1)), "{}: the image's binding", case.name);
            assert!(matches!(img.pointee.and_then(|p| out.ty(p)).map(|t| &t.ty), Some(Type::Image { .. })), "{}: %{} is not an image", case.name, c.variable);
            let smp = out.globals.iter().find(|v| (v.set, v.binding) == (Some(c.sampler.0), Some(c.sampler.1)));
            let smp = smp.unwrap_or_else(|| panic!("{}: no variable at the sampler's slot {:?}", case.name, c.sampler));
            assert!(matches!(smp.pointee.and_then(|p| out.ty(p)).map(|t| &t.ty), Some(Type::Sampler)), "{}: the slot {:?} is not a sampler", case.name, c.sampler);
            assert!(out.has_decoration(smp.id, decoration::DescriptorSet));
        }
        // Our WGSL declares the same pairs, where it lowers.
        let graph = cfg::analyze(&ir.module);
        if let Ok(w) = wgsl::lower(&ir, &graph, &wgsl::Options::default()) {
            for c in &w.combined {
                assert!(s.combined.contains(c), "{}: the WGSL's {c:?} is not the split's {:?}", case.name, s.combined);
            }
            checked_wgsl += 1;
        }
        let path = dir.join(format!("{split}.spv"));
        let bytes: Vec<u8> = s.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let (ok, _, err) = run_tool(&bin, "spirv-val", &["--target-env", case.target_env(), path.to_str().unwrap()]);
        assert!(ok, "{}: spirv-val rejects the split module: {err}", case.name);
    }
    eprintln!("split_combined: {split} modules split and valid ({checked_wgsl} of them lowered to the same pairs); {} not split:", refused.len());
    for r in &refused {
        eprintln!("  {r}");
    }
    assert!(split >= 20, "only {split} corpus modules with combined image samplers split");
}
