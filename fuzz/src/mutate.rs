//! Mutators for binaries (word and byte level) and for assembly text (token level).

use crate::input::{DisFlags, Input, bytes_of, env_at, words_of};
use crate::rng::Rng;
use spvlab_core::grammar::{INSTRUCTIONS, INSTRUCTIONS_BY_NAME, OPERAND_KINDS};

/// Values that tend to find bugs in word-reading code.
const INTERESTING_WORDS: &[u32] = &[
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    16,
    32,
    64,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x1_0000,
    0x1_0001,
    0x3F_FFFF,
    0x40_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
    0x0723_0203,
    0x0302_2307,
    0x0001_0000,
    0x0001_0600,
    0x0001_0700,
    0x0002_0000,
];

/// Numbers in forms the assembler's literal parser has to survive.
const NUMBER_FORMS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "4294967295",
    "4294967296",
    "-2147483648",
    "-2147483649",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999999999999",
    "0x",
    "0x0",
    "0xFFFFFFFF",
    "0x1FFFFFFFF",
    "0X7f",
    "0b101",
    "1.5",
    "-1.5",
    "1e10",
    "1e309",
    "-1e-400",
    "1.",
    ".5",
    "0x1p+128",
    "0x1.fffffep+127",
    "0x1p-150",
    "-0x1.8p1",
    "0x1.8p+",
    "nan",
    "inf",
    "-inf",
    "0x1p99999999999",
    "1e",
    "--1",
    "+1",
    "1_000",
    "٣",
    "0x1.0p-1074",
    "65504",
    "65505",
    "-32769",
    "256",
    "-129",
];

const INSERTS: &[&str] = &[
    "%",
    "%%",
    "\"",
    "\\",
    "=",
    ";",
    "\n",
    "!",
    "|",
    "-",
    ".",
    "0x",
    " ",
    "\t",
    "\r\n",
    "%1",
    "%0",
    "%4294967295",
    "!0",
    "!4294967296",
    "\"\\",
    "\"\u{e9}\"",
    "\u{1F980}",
    "\u{FEFF}",
    "\u{0}",
    "\u{202E}",
    "\u{FFFD}",
    "é",
    " = ",
    "OpNop",
    "%x = ",
    "Op",
    "%_",
    "%a.b",
    "|None",
    "Const|Pure",
    "0.5",
    "\"unterminated",
    "; comment\n",
    "\u{7F}",
    "\u{85}",
    "\u{2028}",
];

/// Apply one to a few mutations to a copy of `input`; `donors` supplies splice material.
pub fn mutate(rng: &mut Rng, input: &Input, donors: &[Input]) -> Input {
    let mut out = input.clone();
    let n = rng.small(5);
    for _ in 0..n {
        match &mut out {
            Input::Text {
                src,
                env,
                preserve_ids,
            } => {
                if rng.one_in(40) {
                    *env = env_at(rng.below(64));
                } else if rng.one_in(60) {
                    *preserve_ids = !*preserve_ids;
                } else {
                    mutate_text(rng, src, donors);
                }
            }
            Input::Binary { bytes, dis } => {
                if rng.one_in(40) {
                    *dis = DisFlags(rng.below(8) as u8);
                } else {
                    mutate_binary(rng, bytes, donors);
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------- binaries

/// Where each instruction starts (after the 5 header words), following word counts.
pub fn instruction_starts(words: &[u32]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        out.push(i);
        let wc = (words[i] >> 16) as usize;
        if wc == 0 {
            break;
        }
        i += wc;
    }
    out
}

fn instruction_at(words: &[u32], start: usize) -> &[u32] {
    let wc = ((words[start] >> 16) as usize).max(1);
    let end = (start + wc).min(words.len());
    &words[start..end]
}

fn random_opcode(rng: &mut Rng) -> u32 {
    if rng.one_in(10) {
        rng.below(0x1_0000) as u32
    } else {
        INSTRUCTIONS[rng.below(INSTRUCTIONS.len())].opcode as u32
    }
}

fn interesting_word(rng: &mut Rng, words: &[u32]) -> u32 {
    match rng.below(6) {
        0 => rng.next_u32(),
        1 => {
            // A plausible first word: word count and opcode.
            let wc = rng.below(12) as u32;
            (wc << 16) | random_opcode(rng)
        }
        2 => {
            // An id near the bound.
            let bound = words.get(3).copied().unwrap_or(16);
            bound.wrapping_add(rng.below(5) as u32).wrapping_sub(2)
        }
        3 => rng.below(64) as u32,
        _ => INTERESTING_WORDS[rng.below(INTERESTING_WORDS.len())],
    }
}

fn donor_words(rng: &mut Rng, donors: &[Input]) -> Option<Vec<u32>> {
    for _ in 0..4 {
        if let Some(Input::Binary { bytes, .. }) = rng.pick(donors) {
            return Some(words_of(bytes));
        }
    }
    None
}

/// One binary mutation, in place.
pub fn mutate_binary(rng: &mut Rng, bytes: &mut Vec<u8>, donors: &[Input]) {
    // Byte-level mutations first (they keep odd lengths possible).
    match rng.below(24) {
        0 => {
            if !bytes.is_empty() {
                let at = rng.below(bytes.len());
                bytes[at] ^= 1 << rng.below(8);
            }
            return;
        }
        1 => {
            let at = rng.below(bytes.len() + 1);
            bytes.truncate(at);
            return;
        }
        2 => {
            // The whole module in the other byte order.
            for c in bytes.chunks_exact_mut(4) {
                c.reverse();
            }
            return;
        }
        3 => {
            let at = rng.below(bytes.len() + 1);
            for _ in 0..rng.small(3) {
                bytes.insert(at, rng.next_u32() as u8);
            }
            return;
        }
        _ => {}
    }
    let tail: Vec<u8> = bytes[bytes.len() / 4 * 4..].to_vec();
    let mut words = words_of(bytes);
    mutate_words(rng, &mut words, donors);
    *bytes = bytes_of(&words);
    bytes.extend_from_slice(&tail);
}

/// One word-level mutation, in place.
pub fn mutate_words(rng: &mut Rng, words: &mut Vec<u32>, donors: &[Input]) {
    let starts = instruction_starts(words);
    let pick_start = |rng: &mut Rng| starts.get(rng.below(starts.len())).copied();
    // Aim at the header now and then: it gates everything else.
    let any_word = |rng: &mut Rng, len: usize| {
        if rng.one_in(8) {
            rng.below(len.min(5))
        } else {
            rng.below(len)
        }
    };
    match rng.below(14) {
        0 | 1 => {
            if !words.is_empty() {
                let at = any_word(rng, words.len());
                words[at] ^= 1 << rng.below(32);
            }
        }
        2 | 3 => {
            if !words.is_empty() {
                let at = any_word(rng, words.len());
                words[at] = interesting_word(rng, words);
            }
        }
        4 => {
            // Truncate, at an instruction boundary or anywhere.
            let at = match pick_start(rng) {
                Some(s) if rng.one_in(2) => s + rng.below(2),
                _ => rng.below(words.len() + 1),
            };
            words.truncate(at);
        }
        5 => {
            // Splice an instruction from a donor (or from this module).
            let src = donor_words(rng, donors).unwrap_or_else(|| words.clone());
            let ds = instruction_starts(&src);
            if let (Some(&from), Some(to)) = (
                ds.get(rng.below(ds.len())),
                pick_start(rng).or(Some(words.len())),
            ) {
                let inst = instruction_at(&src, from).to_vec();
                let to = to.min(words.len());
                words.splice(to..to, inst);
            }
        }
        6 => {
            // Duplicate a range of words (or a whole instruction).
            if let Some(s) = pick_start(rng) {
                let inst = instruction_at(words, s).to_vec();
                let to = pick_start(rng).unwrap_or(s);
                words.splice(to..to, inst);
            } else if !words.is_empty() {
                let a = rng.below(words.len());
                let b = (a + rng.small(8)).min(words.len());
                let part = words[a..b].to_vec();
                words.splice(a..a, part);
            }
        }
        7 => {
            // Remove an instruction or a few words.
            if let (Some(s), true) = (pick_start(rng), rng.one_in(2)) {
                let n = instruction_at(words, s).len();
                words.drain(s..s + n);
            } else if !words.is_empty() {
                let a = rng.below(words.len());
                let b = (a + rng.small(4)).min(words.len());
                words.drain(a..b);
            }
        }
        8 | 9 => {
            // Change an instruction's word count field.
            if let Some(s) = pick_start(rng) {
                let wc = words[s] >> 16;
                let new = match rng.below(6) {
                    0 => 0,
                    1 => 1,
                    2 => wc.wrapping_add(1) & 0xFFFF,
                    3 => wc.wrapping_sub(1) & 0xFFFF,
                    4 => 0xFFFF,
                    _ => rng.below(0x1_0000) as u32,
                };
                words[s] = (new << 16) | (words[s] & 0xFFFF);
            }
        }
        10 => {
            // Change an opcode, keeping the word count.
            if let Some(s) = pick_start(rng) {
                words[s] = (words[s] & 0xFFFF_0000) | random_opcode(rng);
            }
        }
        11 => {
            // Insert fresh words.
            let at = pick_start(rng).unwrap_or(words.len());
            for _ in 0..rng.small(4) {
                let w = interesting_word(rng, words);
                words.insert(at.min(words.len()), w);
            }
        }
        12 => {
            // Swap two instructions.
            if let (Some(a), Some(b)) = (pick_start(rng), pick_start(rng)) {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                if a != b {
                    let ia = instruction_at(words, a).to_vec();
                    let ib = instruction_at(words, b).to_vec();
                    if a + ia.len() <= b {
                        words.splice(b..b + ib.len(), ia.iter().copied());
                        words.splice(a..a + ia.len(), ib.iter().copied());
                    }
                }
            }
        }
        _ => {
            // Small arithmetic on an operand word.
            if !words.is_empty() {
                let at = any_word(rng, words.len());
                let d = rng.range(1, 35) as u32;
                words[at] = if rng.one_in(2) {
                    words[at].wrapping_add(d)
                } else {
                    words[at].wrapping_sub(d)
                };
            }
        }
    }
}

// ---------------------------------------------------------------- text

/// Byte ranges of the whitespace-separated tokens of `s`.
fn tokens(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_ascii_whitespace() {
            if let Some(st) = start.take() {
                out.push((st, i));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, s.len()));
    }
    out
}

/// Byte ranges of lines (without the newline).
fn lines(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut st = 0;
    for (i, b) in s.bytes().enumerate() {
        if b == b'\n' {
            out.push((st, i + 1));
            st = i + 1;
        }
    }
    if st < s.len() {
        out.push((st, s.len()));
    }
    out
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn random_enumerant(rng: &mut Rng) -> &'static str {
    for _ in 0..8 {
        let k = &OPERAND_KINDS[rng.below(OPERAND_KINDS.len())];
        if let Some(e) = rng.pick(k.enumerants) {
            return e.name;
        }
    }
    "None"
}

fn random_word_token(rng: &mut Rng, s: &str, toks: &[(usize, usize)]) -> String {
    match rng.below(7) {
        0 | 1 => INSTRUCTIONS_BY_NAME[rng.below(INSTRUCTIONS_BY_NAME.len())]
            .0
            .to_string(),
        2 | 3 => random_enumerant(rng).to_string(),
        4 => {
            // Some id from this text, to break definitions/uses.
            for _ in 0..8 {
                if let Some(&(a, b)) = rng.pick(toks) {
                    let t = &s[a..b];
                    if t.starts_with('%') {
                        return t.to_string();
                    }
                }
            }
            format!("%{}", rng.below(100))
        }
        5 => format!("!{}", INTERESTING_WORDS[rng.below(INTERESTING_WORDS.len())]),
        _ => NUMBER_FORMS[rng.below(NUMBER_FORMS.len())].to_string(),
    }
}

fn is_number(t: &str) -> bool {
    let t = t.strip_prefix('-').unwrap_or(t);
    t.bytes().next().is_some_and(|b| b.is_ascii_digit())
}

/// One text mutation, in place.
pub fn mutate_text(rng: &mut Rng, s: &mut String, donors: &[Input]) {
    let toks = tokens(s);
    let tok = |rng: &mut Rng| toks.get(rng.below(toks.len())).copied();
    match rng.below(14) {
        0 => {
            if let Some((a, b)) = tok(rng) {
                s.replace_range(a..b, "");
            }
        }
        1 => {
            if let Some((a, b)) = tok(rng) {
                let t = s[a..b].to_string();
                s.insert_str(b, &format!(" {t}"));
            }
        }
        2 => {
            if let (Some((a1, b1)), Some((a2, b2))) = (tok(rng), tok(rng)) {
                let ((a1, b1), (a2, b2)) = if a1 <= a2 {
                    ((a1, b1), (a2, b2))
                } else {
                    ((a2, b2), (a1, b1))
                };
                if b1 <= a2 {
                    let t1 = s[a1..b1].to_string();
                    let t2 = s[a2..b2].to_string();
                    s.replace_range(a2..b2, &t1);
                    s.replace_range(a1..b1, &t2);
                }
            }
        }
        3 | 4 => {
            // Insert special characters or raw random bytes (made valid UTF-8).
            let at = floor_char(s, rng.below(s.len() + 1));
            if rng.one_in(3) {
                let raw: Vec<u8> = (0..rng.small(6)).map(|_| rng.next_u32() as u8).collect();
                s.insert_str(at, &String::from_utf8_lossy(&raw));
            } else {
                s.insert_str(at, INSERTS[rng.below(INSERTS.len())]);
            }
        }
        5 | 6 => {
            // Replace a number (or any token) by a number in an awkward form.
            let nums: Vec<(usize, usize)> = toks
                .iter()
                .copied()
                .filter(|&(a, b)| is_number(&s[a..b]))
                .collect();
            let target = if nums.is_empty() {
                tok(rng)
            } else {
                nums.get(rng.below(nums.len())).copied()
            };
            if let Some((a, b)) = target {
                s.replace_range(a..b, NUMBER_FORMS[rng.below(NUMBER_FORMS.len())]);
            }
        }
        7 | 8 => {
            // Replace a token by an opcode, an enumerant, an id or a literal.
            if let Some((a, b)) = tok(rng) {
                let t = random_word_token(rng, s, &toks);
                s.replace_range(a..b, &t);
            }
        }
        9 => {
            // Cut the text short.
            let at = floor_char(s, rng.below(s.len() + 1));
            s.truncate(at);
        }
        10 => {
            // Remove or duplicate a line.
            let ls = lines(s);
            if let Some(&(a, b)) = rng.pick(&ls) {
                if rng.one_in(2) {
                    s.replace_range(a..b, "");
                } else {
                    let l = s[a..b].to_string();
                    let to = rng.pick(&ls).map_or(0, |&(x, _)| x);
                    s.insert_str(to, &l);
                }
            }
        }
        11 => {
            // Swap two lines.
            let ls = lines(s);
            if let (Some(&(a1, b1)), Some(&(a2, b2))) = (rng.pick(&ls), rng.pick(&ls)) {
                let ((a1, b1), (a2, b2)) = if a1 <= a2 {
                    ((a1, b1), (a2, b2))
                } else {
                    ((a2, b2), (a1, b1))
                };
                if b1 <= a2 {
                    let l1 = s[a1..b1].to_string();
                    let l2 = s[a2..b2].to_string();
                    s.replace_range(a2..b2, &l1);
                    s.replace_range(a1..b1, &l2);
                }
            }
        }
        12 => {
            // Splice lines from another text.
            for _ in 0..4 {
                if let Some(Input::Text { src: d, .. }) = rng.pick(donors) {
                    let dl = lines(d);
                    if let Some(&(a, b)) = rng.pick(&dl) {
                        let n = rng.small(4);
                        let end = dl
                            .get(
                                (dl.iter().position(|&l| l == (a, b)).unwrap_or(0) + n)
                                    .min(dl.len() - 1),
                            )
                            .map_or(b, |l| l.1);
                        let part = d[a..end.max(b)].to_string();
                        let ls = lines(s);
                        let to = rng.pick(&ls).map_or(s.len(), |&(x, _)| x);
                        let mut part = part;
                        if !part.ends_with('\n') {
                            part.push('\n');
                        }
                        s.insert_str(to, &part);
                    }
                    break;
                }
            }
        }
        _ => {
            // Damage a string literal or a token's characters.
            if let Some((a, b)) = tok(rng) {
                let t = &s[a..b];
                if let Some(q) = t.rfind('"') {
                    s.replace_range(a + q..a + q + 1, if rng.one_in(2) { "" } else { "\\\"" });
                } else {
                    let cut = floor_char(s, a + rng.below(b - a + 1));
                    s.insert_str(cut, if rng.one_in(2) { "\"" } else { "\u{0}" });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_lines() {
        assert_eq!(tokens(" ab  c\nd "), vec![(1, 3), (5, 6), (7, 8)]);
        assert_eq!(lines("a\nbc\nd"), vec![(0, 2), (2, 5), (5, 6)]);
    }

    #[test]
    fn instruction_starts_follow_word_counts() {
        let w = [
            0x0723_0203,
            0x10000,
            0,
            10,
            0,
            2 << 16 | 17,
            1,
            3 << 16 | 14,
            0,
            1,
        ];
        assert_eq!(instruction_starts(&w), vec![5, 7]);
        // A zero word count stops the walk instead of looping.
        let w = [0x0723_0203, 0x10000, 0, 10, 0, 0, 1, 2];
        assert_eq!(instruction_starts(&w), vec![5]);
    }

    #[test]
    fn mutations_are_deterministic_and_change_inputs() {
        let seeds = crate::seeds::builtin();
        let mut a = Rng::new(3);
        let mut b = Rng::new(3);
        let mut changed = 0;
        for i in 0..2000 {
            let s = &seeds[i % seeds.len()];
            let x = mutate(&mut a, s, &seeds);
            let y = mutate(&mut b, s, &seeds);
            assert_eq!(x, y);
            if &x != s {
                changed += 1;
            }
        }
        assert!(
            changed > 1500,
            "only {changed} of 2000 mutants differ from their parent"
        );
    }
}
