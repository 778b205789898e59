//! "Did you mean" suggestions by edit distance.

use alloc::vec::Vec;

/// Levenshtein distance over bytes; gives up (returns `limit + 1`) once every path exceeds `limit`.
pub fn distance(a: &str, b: &str, limit: usize) -> usize {
    let a = a.as_bytes();
    let b = b.as_bytes();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = alloc::vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let sub = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j - 1] + sub).min(prev[j] + 1).min(cur[j - 1] + 1);
            row_min = row_min.min(cur[j]);
        }
        if row_min > limit {
            return limit + 1;
        }
        core::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate to `word`, if any is close enough.
pub fn best<'c>(word: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    let limit = (word.len() / 3).clamp(1, 4);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let d = distance(word, c, limit);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_close_names() {
        assert_eq!(distance("OpFMd", "OpFMod", 3), 1);
        assert_eq!(best("OpFMd", ["OpFMod", "OpFAdd", "OpSMod"].into_iter()), Some("OpFMod"));
        assert_eq!(best("Shadr", ["Shader", "Kernel"].into_iter()), Some("Shader"));
        assert_eq!(best("xyzzy", ["Shader", "Kernel"].into_iter()), None);
    }
}
