//! What the fuzzer feeds the targets: assembly text or binary bytes.

use spvlab_core::TargetEnv;
use spvlab_core::env::TARGET_ENVS;
use spvlab_core::text::DisOptions;

/// One fuzz input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Assembly text, with the assembler options to use.
    Text {
        src: String,
        env: TargetEnv,
        preserve_ids: bool,
    },
    /// A binary module as bytes (little-endian words; may have any length).
    Binary { bytes: Vec<u8>, dis: DisFlags },
}

/// The disassembler options as three bits (raw id, header, indent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DisFlags(pub u8);

impl DisFlags {
    pub fn options(self) -> DisOptions {
        DisOptions {
            raw_id: self.0 & 1 != 0,
            header: self.0 & 2 == 0,
            indent: self.0 & 4 == 0,
        }
    }
}

impl Input {
    pub fn text(src: impl Into<String>) -> Input {
        Input::Text {
            src: src.into(),
            env: TargetEnv::default(),
            preserve_ids: false,
        }
    }

    pub fn binary_words(words: &[u32]) -> Input {
        Input::Binary {
            bytes: bytes_of(words),
            dis: DisFlags::default(),
        }
    }

    pub fn is_text(&self) -> bool {
        matches!(self, Input::Text { .. })
    }

    pub fn len(&self) -> usize {
        match self {
            Input::Text { src, .. } => src.len(),
            Input::Binary { bytes, .. } => bytes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file content to save for this input (a crash reproducer).
    pub fn file_bytes(&self) -> Vec<u8> {
        match self {
            Input::Text {
                src,
                env,
                preserve_ids,
            } => {
                // The options go in a leading comment the assembler ignores.
                let mut s = format!(
                    "; spvlab-fuzz: --target-env {}{}\n",
                    env.name(),
                    if *preserve_ids {
                        " --preserve-numeric-ids"
                    } else {
                        ""
                    }
                );
                s.push_str(src);
                s.into_bytes()
            }
            Input::Binary { bytes, .. } => bytes.clone(),
        }
    }

    pub fn extension(&self) -> &'static str {
        if self.is_text() { "spvasm" } else { "spv" }
    }
}

/// A random target environment from the list SPIRV-Tools accepts.
pub fn env_at(i: usize) -> TargetEnv {
    TARGET_ENVS[i % TARGET_ENVS.len()].1
}

/// Little-endian words of bytes (a trailing partial word is dropped).
pub fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn bytes_of(words: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 4);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

/// FNV-1a, for crash file names and seed cache keys.
pub fn fnv64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
