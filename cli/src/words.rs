//! Words to bytes for SPIR-V binaries (bytes to words: core's
//! `spvlab_core::binary::words_from_bytes`).
//!
//! Output is little-endian, as spirv-as writes it on every common host.

/// Little-endian bytes of `words`.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_output() {
        let le = to_bytes(&[spvlab_core::grammar::MAGIC_NUMBER, 0x0001_0600]);
        assert_eq!(le, [0x03, 0x02, 0x23, 0x07, 0x00, 0x06, 0x01, 0x00]);
    }
}
