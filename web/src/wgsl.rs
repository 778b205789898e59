//! The WGSL lowering, exported for the page (feature `wgsl`): a SPIR-V
//! binary in, the WGSL text out (or the first refusal's message).

use spvlab_core::ir::Ir;
use spvlab_core::{binary, cfg, wgsl};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_name = lowerWgsl)]
pub fn lower_wgsl(bytes: &[u8]) -> Result<String, String> {
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let module = binary::read_words(&words).map_err(|e| format!("{e:?}"))?;
    let ir = Ir::build(module);
    let graph = cfg::analyze(&ir.module);
    match wgsl::lower(&ir, &graph, &wgsl::Options::default()) {
        Ok(w) => Ok(w.text),
        Err(r) => Err(r.first().map(|r| format!("{}: {}", r.code, r.message)).unwrap_or_default()),
    }
}
