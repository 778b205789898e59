//! Bytes <-> words for SPIR-V binaries.
//!
//! Output is little-endian, as spirv-as writes it on every common host. Input
//! may be either endianness: it is big-endian when the first word reads as
//! the magic number 0x07230203 that way.

pub const MAGIC: u32 = 0x0723_0203;

/// Words of a binary; `None` when the length is not a multiple of 4.
pub fn from_bytes(bytes: &[u8]) -> Option<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let big = bytes.get(..4) == Some(&MAGIC.to_be_bytes()[..]);
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| {
                let b = [c[0], c[1], c[2], c[3]];
                if big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }
            })
            .collect(),
    )
}

/// Little-endian bytes of `words`.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_and_big_endian_input() {
        let words = [MAGIC, 0x0001_0600, 7];
        let le = to_bytes(&words);
        assert_eq!(&le[..4], &[0x03, 0x02, 0x23, 0x07]);
        assert_eq!(from_bytes(&le).unwrap(), words);
        let be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(from_bytes(&be).unwrap(), words);
    }

    #[test]
    fn no_magic_reads_little_endian() {
        assert_eq!(from_bytes(&[1, 0, 0, 0]).unwrap(), vec![1]);
        assert_eq!(from_bytes(&[]).unwrap(), Vec::<u32>::new());
    }

    #[test]
    fn partial_word_is_rejected() {
        assert_eq!(from_bytes(&[1, 2, 3]), None);
        assert_eq!(from_bytes(&[3, 2, 0x23, 7, 0]), None);
    }
}
