//! Seeds: built-in modules, the corpus texts, and the corpus assembled by the
//! reference spirv-as (cached in `target/fuzz-seeds/`).

use crate::input::{DisFlags, Input, fnv64};
use spvlab_core::TargetEnv;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use spvlab_tests::{corpus_dir, reference_bin, root};

const BUILTIN_TEXTS: &[&str] = &[
    "OpCapability Shader\nOpMemoryModel Logical GLSL450\n",
    r#"; a small compute shader
               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 8 1 1
               OpSource GLSL 450
               OpName %main "main"
               OpName %x "x"
               OpDecorate %x RelaxedPrecision
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
      %float = OpTypeFloat 32
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
    %v4float = OpTypeVector %float 4
%_ptr_Function_float = OpTypePointer Function %float
    %float_1 = OpConstant %float 1.5
   %float_n2 = OpConstant %float -0x1.8p+1
      %int_3 = OpConstant %int -3
     %uint_7 = OpConstant %uint 7
       %true = OpConstantTrue %bool
         %v4 = OpConstantComposite %v4float %float_1 %float_1 %float_n2 %float_1
       %main = OpFunction %void None %3
          %5 = OpLabel
          %x = OpVariable %_ptr_Function_float Function
               OpStore %x %float_1
          %6 = OpLoad %float %x
          %7 = OpExtInst %float %1 Sin %6
          %8 = OpFAdd %float %7 %float_n2
               OpSelectionMerge %merge None
               OpSwitch %uint_7 %default 0 %c0 7 %c7
         %c0 = OpLabel
               OpBranch %merge
         %c7 = OpLabel
               OpBranch %merge
    %default = OpLabel
               OpBranch %merge
      %merge = OpLabel
          %9 = OpPhi %float %8 %c0 %7 %c7 %6 %default
               OpStore %x %9 Aligned 4
               OpReturn
               OpFunctionEnd
"#,
    r#"OpCapability Kernel
OpCapability Addresses
OpCapability Int64
OpCapability Float64
%ext = OpExtInstImport "OpenCL.std"
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "k\"quoted\" \u00e9"
%s = OpString "file.cl"
OpLine %s 1 1
%void = OpTypeVoid
%ulong = OpTypeInt 64 0
%double = OpTypeFloat 64
%fn = OpTypeFunction %void
%c = OpConstant %ulong 18446744073709551615
%d = OpConstant %double 0x1.fffffffffffffp+1023
%k = OpFunction %void DontInline|Const %fn
%l = OpLabel
%r = OpExtInst %double %ext fabs %d
OpNoLine
OpReturn
OpFunctionEnd
"#,
    "%1 = OpTypeInt 32 0\n%2 = OpConstant %1 !7\nOpMemberDecorate %3 0 Offset 4\n%3 = OpTypeStruct %1 %1\n",
    "OpCapability Shader\nOpExtension \"SPV_KHR_non_semantic_info\"\n%n = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\nOpMemoryModel Logical Simple\n%void = OpTypeVoid\n%x = OpExtInst %void %n DebugInfoNone\n",
];

/// Encode a string operand: UTF-8, NUL-terminated, padded to whole words.
fn string_words(s: &str) -> Vec<u32> {
    let mut b = s.as_bytes().to_vec();
    b.push(0);
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    crate::input::words_of(&b)
}

fn inst(out: &mut Vec<u32>, opcode: u16, operands: &[u32]) {
    out.push(((operands.len() as u32 + 1) << 16) | opcode as u32);
    out.extend_from_slice(operands);
}

/// A small hand-encoded valid module (compute shader with a switch and GLSL.std.450 call).
pub fn builtin_binary() -> Vec<u32> {
    let mut w = vec![0x0723_0203, 0x0001_0000, 0, 30, 0];
    inst(&mut w, 17, &[1]); // OpCapability Shader
    let mut ext = vec![1];
    ext.extend(string_words("GLSL.std.450"));
    inst(&mut w, 11, &ext); // %1 = OpExtInstImport
    inst(&mut w, 14, &[0, 1]); // OpMemoryModel Logical GLSL450
    let mut ep = vec![5, 4];
    ep.extend(string_words("main"));
    inst(&mut w, 15, &ep); // OpEntryPoint GLCompute %4 "main"
    inst(&mut w, 16, &[4, 17, 1, 1, 1]); // OpExecutionMode LocalSize
    let mut name = vec![4];
    name.extend(string_words("main"));
    inst(&mut w, 5, &name); // OpName
    inst(&mut w, 71, &[10, 0]); // OpDecorate %10 RelaxedPrecision
    inst(&mut w, 19, &[2]); // %2 = OpTypeVoid
    inst(&mut w, 33, &[3, 2]); // %3 = OpTypeFunction %2
    inst(&mut w, 21, &[6, 32, 0]); // %6 = OpTypeInt 32 0
    inst(&mut w, 22, &[7, 32]); // %7 = OpTypeFloat 32
    inst(&mut w, 43, &[6, 8, 2]); // %8 = OpConstant %6 2
    inst(&mut w, 43, &[7, 9, 0x3FC0_0000]); // %9 = OpConstant %7 1.5
    inst(&mut w, 54, &[2, 4, 0, 3]); // %4 = OpFunction %2 None %3
    inst(&mut w, 248, &[5]); // %5 = OpLabel
    inst(&mut w, 12, &[7, 10, 1, 13, 9]); // %10 = OpExtInst %7 %1 Sin %9
    inst(&mut w, 247, &[11, 0]); // OpSelectionMerge %11 None
    inst(&mut w, 251, &[8, 12, 1, 13, 2, 14]); // OpSwitch %8 %12 1 %13 2 %14
    inst(&mut w, 248, &[13]);
    inst(&mut w, 249, &[11]); // OpBranch %11
    inst(&mut w, 248, &[14]);
    inst(&mut w, 249, &[11]);
    inst(&mut w, 248, &[12]);
    inst(&mut w, 249, &[11]);
    inst(&mut w, 248, &[11]);
    inst(&mut w, 245, &[7, 15, 10, 13, 9, 14, 9, 12]); // %15 = OpPhi
    inst(&mut w, 253, &[]); // OpReturn
    inst(&mut w, 56, &[]); // OpFunctionEnd
    w
}

/// Seeds that need neither the corpus nor the reference tools.
pub fn builtin() -> Vec<Input> {
    let mut out: Vec<Input> = BUILTIN_TEXTS.iter().map(|t| Input::text(*t)).collect();
    let b = builtin_binary();
    out.push(Input::binary_words(&b));
    out.push(Input::Binary {
        bytes: crate::input::bytes_of(&b),
        dis: DisFlags(1),
    });
    // Header only; and a module with an instruction whose word count runs past the end.
    out.push(Input::binary_words(&b[..5]));
    let mut over = b[..8].to_vec();
    over.push((0xFFFF << 16) | 17);
    out.push(Input::binary_words(&over));
    out
}

/// One corpus text with the env it assembles at.
pub struct CorpusText {
    pub path: PathBuf,
    pub text: String,
    pub env: String,
}

/// A JSON string field of the `; corpus-meta:` line, without a JSON parser.
fn meta_field(text: &str, key: &str) -> Option<String> {
    let line = text.lines().next()?.strip_prefix("; corpus-meta: ")?;
    let pat = format!("\"{key}\": \"");
    let at = line.find(&pat)? + pat.len();
    let end = line[at..].find('"')?;
    Some(line[at..at + end].to_string())
}

/// The corpus texts no larger than `max_len` bytes, sorted by path.
pub fn corpus_texts(corpus: &Path, max_len: usize) -> Vec<CorpusText> {
    let mut paths = Vec::new();
    if let Ok(dirs) = std::fs::read_dir(corpus.join("cases")) {
        for d in dirs.flatten() {
            if let Ok(files) = std::fs::read_dir(d.path()) {
                for f in files.flatten() {
                    let p = f.path();
                    if p.extension().is_some_and(|e| e == "spvasm") {
                        paths.push(p);
                    }
                }
            }
        }
    }
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if text.len() > max_len {
            continue;
        }
        let env = meta_field(&text, "asm_env").unwrap_or_else(|| "spv1.6".into());
        out.push(CorpusText { path, text, env });
    }
    out
}

/// Assemble each text with the reference spirv-as (2 worker threads), caching the
/// binaries in `cache` under a hash of (env, text). Failures are cached as `.fail`.
pub fn reference_binaries(texts: &[CorpusText], bin: &Path, cache: &Path) -> Vec<(usize, Vec<u8>)> {
    let _ = std::fs::create_dir_all(cache);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(t) = texts.get(i) else { break };
                    let key = fnv64(format!("{}\n{}", t.env, t.text).as_bytes());
                    let spv = cache.join(format!("{key:016x}.spv"));
                    let fail = cache.join(format!("{key:016x}.fail"));
                    if let Ok(b) = std::fs::read(&spv) {
                        results.lock().unwrap().push((i, b));
                        continue;
                    }
                    if fail.exists() {
                        continue;
                    }
                    let tmp = cache.join(format!("{key:016x}.tmp"));
                    let ok = Command::new(bin.join("spirv-as"))
                        .arg("--target-env")
                        .arg(&t.env)
                        .arg(&t.path)
                        .arg("-o")
                        .arg(&tmp)
                        .stderr(std::process::Stdio::null())
                        .status()
                        .is_ok_and(|s| s.success());
                    if ok && std::fs::rename(&tmp, &spv).is_ok() {
                        if let Ok(b) = std::fs::read(&spv) {
                            results.lock().unwrap().push((i, b));
                        }
                    } else {
                        let _ = std::fs::remove_file(&tmp);
                        let _ = std::fs::write(&fail, b"");
                    }
                }
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(i, _)| *i);
    r
}

/// Options for [`load`].
pub struct SeedOptions {
    pub corpus: Option<PathBuf>,
    pub reference: Option<PathBuf>,
    pub cache: PathBuf,
    /// Corpus texts longer than this are left out (they slow every mutant down).
    pub max_text_len: usize,
}

impl Default for SeedOptions {
    fn default() -> Self {
        SeedOptions {
            corpus: corpus_dir(),
            reference: reference_bin(),
            cache: root().join("target/fuzz-seeds"),
            max_text_len: 24 * 1024,
        }
    }
}

/// Every seed: built-in, corpus texts, their reference binaries.
pub struct Seeds {
    pub inputs: Vec<Input>,
    pub corpus_texts: usize,
    pub reference_binaries: usize,
}

pub fn load(opts: &SeedOptions) -> Seeds {
    let mut inputs = builtin();
    let (mut n_texts, mut n_binaries) = (0, 0);
    if let Some(c) = &opts.corpus {
        let texts = corpus_texts(c, opts.max_text_len);
        if let Some(bin) = &opts.reference {
            for (_, b) in reference_binaries(&texts, bin, &opts.cache) {
                inputs.push(Input::Binary {
                    bytes: b,
                    dis: DisFlags::default(),
                });
                n_binaries += 1;
            }
        }
        for t in texts {
            let env = TargetEnv::parse(&t.env).unwrap_or_default();
            inputs.push(Input::Text {
                src: t.text,
                env,
                preserve_ids: false,
            });
            n_texts += 1;
        }
    }
    Seeds {
        inputs,
        corpus_texts: n_texts,
        reference_binaries: n_binaries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_env_is_read() {
        let t = "; corpus-meta: {\"source\": \"x\", \"asm_env\": \"spv1.3\", \"target_env\": \"vulkan1.1\"}\nOpNop\n";
        assert_eq!(meta_field(t, "asm_env").as_deref(), Some("spv1.3"));
        assert_eq!(meta_field(t, "nope"), None);
    }

    #[test]
    fn builtin_binary_is_well_formed() {
        let w = builtin_binary();
        let starts = crate::mutate::instruction_starts(&w);
        let last = *starts.last().unwrap();
        assert_eq!(
            last + (w[last] >> 16) as usize,
            w.len(),
            "word counts cover the module exactly"
        );
        assert_eq!(w[last] & 0xFFFF, 56, "ends with OpFunctionEnd");
    }
}
