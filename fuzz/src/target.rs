//! The real target: spvlab's reader, assembler and disassembler.

use crate::harness::Target;
use crate::input::{DisFlags, Input, fnv64, words_of};
use spvlab_core::text::{AsmOptions, DisOptions, assemble, disassemble};
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Diagnostic, TargetEnv};
use std::sync::atomic::{AtomicU64, Ordering};

/// Runs every input through spvlab:
///
/// * text: `assemble`; when it succeeds, validate the binary (at the text's target
///   environment), `disassemble` it and `assemble` that disassembly again;
/// * binary: the reader and the validator, then `disassemble`; when it succeeds,
///   `assemble` the text.
///
/// With `check_roundtrip`, a successful text is also disassembled with raw ids and
/// re-assembled with `--preserve-numeric-ids`, and the two binaries must be equal
/// (a mismatch panics, so it is reported like a crash).
#[derive(Clone, Copy, Debug, Default)]
pub struct Spvlab {
    pub check_roundtrip: bool,
}

fn sig_codes(tag: u64, diags: &[Diagnostic]) -> u64 {
    let mut h = tag;
    for d in diags.iter().take(3) {
        h = h.rotate_left(13) ^ fnv64(d.code.as_bytes());
    }
    h
}

/// The reader under fuzz: the full reader (framing and every operand) runs on the
/// bytes; the disassembler then reads the words again on its own path.
fn read(bytes: &[u8]) -> Vec<u32> {
    let _ = spvlab_core::binary::read_bytes(bytes);
    words_of(bytes)
}

/// The validator under fuzz: it must not panic on any words, and its word spans
/// must be well formed; its codes feed the outcome signature.
fn validate(words: &[u32], env: TargetEnv) -> u64 {
    let opts = Options { env, ..Options::default() };
    let diags = validate_words(words, &opts);
    for d in &diags {
        if d.unit == spvlab_core::diag::SpanUnit::BinaryWords {
            assert!(d.span.start <= d.span.end, "validator span {:?} is reversed ({})", d.span, d.code);
        }
    }
    if !diags.iter().any(|d| d.severity == spvlab_core::Severity::Error) {
        run_compute(words);
    }
    sig_codes(8, &diags)
}

/// The interpreter under fuzz: every GLCompute entry point of a valid module
/// runs once (one workgroup, at most 256 invocations) under a small step
/// budget, with zeroed buffers of the reflected sizes (runtime arrays: 16
/// elements). Errors are fine; a panic or a hang is not.
/// How many valid modules reached the interpreter (at least one GLCompute
/// entry point run), and how many of those runs finished without an error.
pub static INTERP_MODULES: AtomicU64 = AtomicU64::new(0);
pub static INTERP_FINISHED: AtomicU64 = AtomicU64::new(0);

fn run_compute(words: &[u32]) {
    use spvlab_core::interp::{self, Buffers};
    let mut ran = false;
    let Ok(module) = spvlab_core::binary::read_words(words) else { return };
    let ir = spvlab_core::ir::Ir::build(module);
    let refl = spvlab_core::reflect::reflect(&ir);
    for e in refl.entry_points.iter().filter(|e| e.execution_model == spvlab_core::reflect::ExecutionModel::GLCompute) {
        let invocations = e
            .workgroup_size
            .map_or(1, |w| [w.x, w.y, w.z].iter().fold(1u64, |n, d| n.saturating_mul(d.unwrap_or(1) as u64)));
        if invocations > 256 {
            continue;
        }
        let mut buffers = Buffers::new();
        for r in &e.resources {
            let (Some(set), Some(binding)) = (r.set, r.binding) else { continue };
            let size = match r.runtime_array {
                Some(ra) => ra.fixed_size + 16 * ra.stride.unwrap_or(4) as u64,
                None => r.size.unwrap_or(0),
            };
            buffers.insert((set, binding), vec![0u8; size.min(1 << 20) as usize]);
        }
        let opts = interp::Options { entry: Some(e.name.clone()), max_steps: 2_000, ..interp::Options::default() };
        ran = true;
        if interp::run(&ir, &opts, &mut buffers).is_ok() {
            INTERP_FINISHED.fetch_add(1, Ordering::Relaxed);
        }
    }
    if ran {
        INTERP_MODULES.fetch_add(1, Ordering::Relaxed);
    }
}

impl Spvlab {
    fn text(&self, src: &str, env: TargetEnv, preserve: bool, derived: &mut Vec<Input>) -> u64 {
        let opts = AsmOptions {
            env,
            preserve_numeric_ids: preserve,
        };
        let words = match assemble(src, &opts) {
            Ok(w) => w,
            Err(d) => return sig_codes(1, &d),
        };
        let vsig = validate(&words, env);
        let dis = match disassemble(&words, &DisOptions::default()) {
            Ok(t) => t,
            Err(d) => return sig_codes(2, core::slice::from_ref(&d)),
        };
        let again = assemble(
            &dis,
            &AsmOptions {
                env,
                preserve_numeric_ids: false,
            },
        );
        // Texts with `!<n>` raw words can assemble to any binary, well formed or not:
        // only the others must round-trip.
        if self.check_roundtrip && !src.contains('!') {
            // Keep the header comments: a header-only module would disassemble to an empty
            // text otherwise, which spirv-as (and so spvlab) refuses.
            let raw = DisOptions {
                raw_id: true,
                header: true,
                indent: false,
            };
            // A binary that does not read cleanly (ids defined twice, ill-typed constants)
            // is shown with `; error:` comments and raw words: no round trip expected.
            if let Ok(t) = disassemble(&words, &raw)
                && !t.contains("; error")
            {
                let re = assemble(
                    &t,
                    &AsmOptions {
                        env,
                        preserve_numeric_ids: true,
                    },
                );
                // The generator word may differ; everything else must not.
                let same = re.as_ref().is_ok_and(|re| {
                    re.len() == words.len()
                        && re
                            .iter()
                            .zip(&words)
                            .enumerate()
                            .all(|(i, (a, b))| i == 2 || a == b)
                });
                assert!(
                    same,
                    "round trip mismatch: assemble(disassemble --raw-id) differs from the original binary"
                );
            }
        }
        derived.push(Input::Binary {
            bytes: crate::input::bytes_of(&words),
            dis: DisFlags::default(),
        });
        vsig ^ match again {
            Ok(_) => 3,
            Err(d) => sig_codes(4, &d),
        }
    }

    fn binary(&self, bytes: &[u8], dis: DisOptions, derived: &mut Vec<Input>) -> u64 {
        let words = read(bytes);
        let vsig = validate(&words, TargetEnv::default());
        let text = match disassemble(&words, &dis) {
            Ok(t) => t,
            Err(d) => return vsig ^ sig_codes(5, core::slice::from_ref(&d)),
        };
        let sig = vsig
            ^ match assemble(&text, &AsmOptions::default()) {
                Ok(_) => 6,
                Err(d) => sig_codes(7, &d),
            };
        derived.push(Input::text(text));
        sig
    }
}

impl Target for Spvlab {
    fn run(&self, input: &Input, derived: &mut Vec<Input>) -> u64 {
        match input {
            Input::Text {
                src,
                env,
                preserve_ids,
            } => self.text(src, *env, *preserve_ids, derived),
            Input::Binary { bytes, dis } => self.binary(bytes, dis.options(), derived),
        }
    }
}
