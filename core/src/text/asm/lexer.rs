//! The tokenizer: splits assembly text into words exactly as spirv-as does.
//!
//! Whitespace is only ` `, `\t`, `\r` and `\n`; `;` starts a comment that runs to the
//! end of the line; a word ends at whitespace, `;`, `,`, `(` or `)` unless it is inside
//! double quotes or escaped with a backslash. A `,`, `(` or `)` where a word would
//! start is a word of its own kind ([`TokKind::Punct`]), which is never valid.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Word,
    /// A stray `,`, `(` or `)`.
    Punct,
}

/// One token: a byte range of the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tok {
    pub start: u32,
    pub end: u32,
    pub kind: TokKind,
}

/// Split `src` into tokens (single pass over the bytes). The text is assumed to end
/// at its first NUL byte, as it does for spirv-as.
pub fn tokenize(src: &[u8]) -> alloc::vec::Vec<Tok> {
    let mut toks = alloc::vec::Vec::with_capacity(src.len() / 5 + 4);
    let n = src.len();
    let mut i = 0usize;
    loop {
        // Skip whitespace and comments.
        while i < n {
            match src[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b';' => {
                    while i < n && src[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if i >= n {
            break;
        }
        let start = i;
        if matches!(src[i], b',' | b'(' | b')') {
            i += 1;
            toks.push(Tok { start: start as u32, end: i as u32, kind: TokKind::Punct });
            continue;
        }
        let mut quoting = false;
        let mut escaping = false;
        while i < n {
            let c = src[i];
            if c == b'\\' {
                escaping = !escaping;
            } else {
                match c {
                    b'"'
                        if !escaping => {
                            quoting = !quoting;
                        }
                    b' ' | b';' | b',' | b'(' | b')' | b'\t' | b'\n' | b'\r'
                        if !(escaping || quoting) => {
                            break;
                        }
                    _ => {}
                }
                escaping = false;
            }
            i += 1;
        }
        toks.push(Tok { start: start as u32, end: i as u32, kind: TokKind::Word });
    }
    toks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> alloc::vec::Vec<&str> {
        tokenize(s.as_bytes()).iter().map(|t| &s[t.start as usize..t.end as usize]).collect()
    }

    #[test]
    fn splits_like_spirv_as() {
        assert_eq!(words("%a = OpX %b ; c d\n  \"x y\\\" z\"q\tr"), ["%a", "=", "OpX", "%b", "\"x y\\\" z\"q", "r"]);
        assert_eq!(words("Shader,x"), ["Shader", ",", "x"]);
        assert_eq!(words("a\\ b"), ["a\\ b"]);
        assert_eq!(words("a;b\nc"), ["a", "c"]);
        assert!(words("  ; only\n").is_empty());
    }
}
