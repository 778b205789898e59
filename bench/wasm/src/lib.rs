//! `extern "C"` exports over a byte buffer, for timing spvlab-core in wasm:
//!
//! * `alloc(len) -> ptr` / `dealloc(ptr, len)`: buffers in linear memory;
//! * `assemble(ptr, len, env) -> status`: UTF-8 text in, binary (LE words) out;
//! * `disassemble(ptr, len) -> status`: binary bytes in, text out (spirv-dis defaults);
//! * `result_ptr()` / `result_len()`: the output (or the first error's message).
//!
//! Status: 0 success, 1 the input was rejected (result holds the message), 2 bad UTF-8.

use spvlab_core::TargetEnv;
use spvlab_core::env::TARGET_ENVS;
use spvlab_core::text::{AsmOptions, DisOptions};
use std::cell::RefCell;

thread_local! {
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn set_result(bytes: Vec<u8>) {
    RESULT.with(|r| *r.borrow_mut() = bytes);
}

fn layout(len: usize) -> std::alloc::Layout {
    std::alloc::Layout::from_size_align(len.max(1), 8).unwrap_or(std::alloc::Layout::new::<u64>())
}

/// A buffer of `len` bytes in linear memory; free it with `dealloc(ptr, len)`.
#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    unsafe { std::alloc::alloc(layout(len)) }
}

/// # Safety
/// `ptr` and `len` must come from one `alloc(len)` call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        unsafe { std::alloc::dealloc(ptr, layout(len)) }
    }
}

unsafe fn input<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// # Safety
/// `ptr..ptr+len` must be initialised memory from `alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn assemble(ptr: *const u8, len: usize, env: u32) -> u32 {
    let Ok(text) = std::str::from_utf8(unsafe { input(ptr, len) }) else {
        set_result(b"input is not UTF-8".to_vec());
        return 2;
    };
    let env = TARGET_ENVS
        .get(env as usize)
        .map_or(TargetEnv::default(), |e| e.1);
    match spvlab_core::text::assemble(
        text,
        &AsmOptions {
            env,
            preserve_numeric_ids: false,
        },
    ) {
        Ok(words) => {
            let mut out = Vec::with_capacity(words.len() * 4);
            for w in words {
                out.extend_from_slice(&w.to_le_bytes());
            }
            set_result(out);
            0
        }
        Err(d) => {
            set_result(
                d.first()
                    .map_or(String::new(), |d| format!("[{}] {}", d.code, d.message))
                    .into_bytes(),
            );
            1
        }
    }
}

/// # Safety
/// `ptr..ptr+len` must be initialised memory from `alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn disassemble(ptr: *const u8, len: usize) -> u32 {
    let bytes = unsafe { input(ptr, len) };
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match spvlab_core::text::disassemble(&words, &DisOptions::default()) {
        Ok(text) => {
            set_result(text.into_bytes());
            0
        }
        Err(d) => {
            set_result(format!("[{}] {}", d.code, d.message).into_bytes());
            1
        }
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn result_ptr() -> *const u8 {
    RESULT.with(|r| r.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn result_len() -> usize {
    RESULT.with(|r| r.borrow().len())
}

/// The interpreter's benchmark (bench/interp.sh): run the kernel of
/// `bench/interp-kernel.spvasm` over `groups` workgroups of 64 invocations,
/// `n` loop iterations each; returns the instructions executed, or 0 when the
/// run failed or a sum differs from the closed form.
#[unsafe(no_mangle)]
pub extern "C" fn interp_bench(n: u32, groups: u32) -> u64 {
    use spvlab_core::interp::{self, Buffers, Options};
    const KERNEL: &str = include_str!("../../interp-kernel.spvasm");
    let Ok(words) = spvlab_core::text::assemble(KERNEL, &AsmOptions::default()) else { return 0 };
    let Ok(module) = spvlab_core::binary::read_words(&words) else { return 0 };
    let ir = spvlab_core::ir::Ir::build(module);
    let invocations = groups as usize * 64;
    let opts = Options { workgroups: [groups, 1, 1], max_steps: u64::MAX, push_constants: Some(n.to_le_bytes().to_vec()), ..Options::default() };
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), vec![0u8; invocations * 4]);
    let Ok(stats) = interp::run(&ir, &opts, &mut buffers) else { return 0 };
    let out = &buffers[&(0, 0)];
    for x in 0..invocations as u32 {
        let mut s = x;
        for k in 0..n {
            s = s.wrapping_mul(3).wrapping_add(k);
        }
        let at = x as usize * 4;
        if out[at..at + 4] != s.to_le_bytes() {
            return 0;
        }
    }
    stats.steps
}

/// The graphics benchmark (bench/graphics.sh): an Amber script's text (one
/// that loads no file, as every GraphicsFuzz test) parsed and run on the
/// interpreter with the default options, as `amber-frames` does natively.
/// Returns 0 when its EXPECT lines pass, 1 when one fails, 2 on an error,
/// 3 when the text is not UTF-8.
///
/// # Safety
/// `ptr..ptr+len` must be initialised memory from `alloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn amber_run(ptr: *const u8, len: usize) -> u32 {
    use spvlab_core::amber;
    let Ok(text) = std::str::from_utf8(unsafe { input(ptr, len) }) else { return 3 };
    match amber::parse(text).and_then(|s| amber::run_with(&s, &amber::RunOptions::default())) {
        Ok(o) if o.passed() => 0,
        Ok(_) => 1,
        Err(_) => 2,
    }
}
