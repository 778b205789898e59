//! Seeded one-edit mutations of SPIR-V assembly text, the near-misses a person
//! typing SPIR-V by hand makes: a result type swapped for another type, an id
//! operand swapped for another id, a line deleted, two lines swapped, a
//! constant's type changed, an opcode swapped for a sibling (`OpIAdd` for
//! `OpFAdd`, `OpLoad` for `OpStore`), two operands of one instruction swapped,
//! and a literal number changed. Used by `tests/tests/val_mutants.rs`.
//!
//! Works on the text's tokens (a quoted string is one token); it knows no
//! grammar, so a mutant may not assemble: the caller keeps those the reference
//! assembler accepts.

use crate::cfggen::Rng;

/// The kinds of edit, by name.
pub const KINDS: &[&str] = &[
    "result-type",
    "id-operand",
    "delete-line",
    "swap-lines",
    "const-type",
    "opcode-sibling",
    "swap-operands",
    "literal",
];

/// Opcodes that may stand for one another (without the `Op`).
const SIBLINGS: &[&[&str]] = &[
    &[
        "IAdd", "ISub", "IMul", "FAdd", "FSub", "FMul", "FDiv", "SDiv", "UDiv", "SMod", "UMod", "SRem", "FRem", "FMod",
    ],
    &[
        "ShiftLeftLogical",
        "ShiftRightLogical",
        "ShiftRightArithmetic",
        "BitwiseOr",
        "BitwiseAnd",
        "BitwiseXor",
    ],
    &[
        "IEqual",
        "INotEqual",
        "SLessThan",
        "ULessThan",
        "SGreaterThan",
        "UGreaterThanEqual",
        "FOrdEqual",
        "FOrdLessThan",
        "FUnordNotEqual",
        "FOrdGreaterThanEqual",
        "LogicalEqual",
        "LogicalNotEqual",
        "LogicalOr",
        "LogicalAnd",
    ],
    &["SNegate", "FNegate", "Not", "LogicalNot", "BitReverse", "BitCount"],
    &[
        "ConvertFToS",
        "ConvertFToU",
        "ConvertSToF",
        "ConvertUToF",
        "Bitcast",
        "UConvert",
        "SConvert",
        "FConvert",
    ],
    &["Any", "All", "IsNan", "IsInf"],
    &[
        "Dot",
        "VectorTimesScalar",
        "MatrixTimesScalar",
        "MatrixTimesVector",
        "VectorTimesMatrix",
        "MatrixTimesMatrix",
        "OuterProduct",
    ],
    &["Load", "Store", "CopyObject"],
    &["AccessChain", "InBoundsAccessChain", "PtrAccessChain"],
    &["CompositeExtract", "VectorExtractDynamic", "CompositeInsert"],
    &["Select", "Phi"],
    &["Constant", "SpecConstant"],
    &[
        "ConstantTrue",
        "ConstantFalse",
        "SpecConstantTrue",
        "SpecConstantFalse",
        "ConstantNull",
    ],
    &["TypeInt", "TypeFloat"],
    &["Variable", "Undef"],
];

/// One token of a line: its byte range.
type Tok = (usize, usize);

fn tokens(line: &str) -> Vec<Tok> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b';' {
            break;
        }
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let s = i;
        if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
        } else {
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        out.push((s, i));
    }
    out
}

/// An instruction line: its index in the text, tokens, and where its opcode is.
struct Line<'a> {
    at: usize,
    text: &'a str,
    toks: Vec<Tok>,
    /// The token index of the opcode.
    op: usize,
}

impl<'a> Line<'a> {
    fn tok(&self, k: usize) -> &'a str {
        let (a, b) = self.toks[k];
        &self.text[a..b]
    }
    fn opcode(&self) -> &'a str {
        self.tok(self.op)
    }
    fn result(&self) -> Option<&'a str> {
        (self.op == 2).then(|| self.tok(0))
    }
    fn replace(&self, k: usize, with: &str) -> String {
        let (a, b) = self.toks[k];
        format!("{}{}{}", &self.text[..a], with, &self.text[b..])
    }
}

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> Option<&'a str> {
    from.get(rng.below(from.len())).copied()
}

/// A mutant: the edited text and what was done.
pub struct Mutant {
    pub text: String,
    pub kind: &'static str,
    pub what: String,
}

/// Apply one random edit of a random kind to `text`; `None` when the drawn edit
/// does not apply to this module (the caller draws again).
pub fn mutate(text: &str, rng: &mut Rng) -> Option<Mutant> {
    let lines: Vec<&str> = text.lines().collect();
    let insts: Vec<Line> = lines
        .iter()
        .enumerate()
        .filter_map(|(at, l)| {
            let toks = tokens(l);
            let op = if toks.len() >= 3 && &l[toks[1].0..toks[1].1] == "=" {
                2
            } else {
                0
            };
            let t = toks.get(op)?;
            l[t.0..t.1].starts_with("Op").then_some(Line { at, text: l, toks, op })
        })
        .collect();
    if insts.is_empty() {
        return None;
    }
    let types: Vec<&str> = insts
        .iter()
        .filter(|l| l.opcode().starts_with("OpType"))
        .filter_map(|l| l.result())
        .collect();
    let scalar_types: Vec<&str> = insts
        .iter()
        .filter(|l| matches!(l.opcode(), "OpTypeInt" | "OpTypeFloat" | "OpTypeBool"))
        .filter_map(|l| l.result())
        .collect();
    let values: Vec<&str> = insts.iter().filter_map(|l| l.result()).collect();
    let kind = KINDS[rng.below(KINDS.len())];
    let line = &insts[rng.below(insts.len())];
    let edit = |new_line: String| -> (String, String) {
        let mut out: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        let what = format!("line {}: `{}` -> `{}`", line.at + 1, line.text.trim(), new_line.trim());
        out[line.at] = new_line;
        (out.join("\n") + "\n", what)
    };
    let (text, what) = match kind {
        "result-type" => {
            if line.op != 2 || line.toks.len() < 4 || line.opcode().starts_with("OpType") {
                return None;
            }
            let t = line.tok(3);
            if !types.contains(&t) {
                return None;
            }
            let other = pick(rng, &types)?;
            if other == t {
                return None;
            }
            edit(line.replace(3, other))
        }
        "id-operand" => {
            let ks: Vec<usize> = (line.op + 1..line.toks.len())
                .filter(|&k| line.tok(k).starts_with('%'))
                .collect();
            let k = *ks.get(rng.below(ks.len()))?;
            let other = pick(rng, &values)?;
            if other == line.tok(k) {
                return None;
            }
            edit(line.replace(k, other))
        }
        "delete-line" => {
            if line.opcode() == "OpCapability" && line.tok(line.op + 1) == "Shader" {
                return None;
            }
            let mut out: Vec<&str> = lines.clone();
            out.remove(line.at);
            (
                out.join("\n") + "\n",
                format!("line {}: deleted `{}`", line.at + 1, line.text.trim()),
            )
        }
        "swap-lines" => {
            let j = insts.iter().position(|l| l.at == line.at)?;
            let k = (j + 1 + rng.below(6)).min(insts.len() - 1);
            let other = &insts[k];
            if other.text == line.text {
                return None;
            }
            let mut out: Vec<&str> = lines.clone();
            out.swap(line.at, other.at);
            (
                out.join("\n") + "\n",
                format!(
                    "lines {} and {} swapped: `{}`, `{}`",
                    line.at + 1,
                    other.at + 1,
                    line.text.trim(),
                    other.text.trim()
                ),
            )
        }
        "const-type" => {
            if !line.opcode().contains("Constant") || line.op != 2 || line.toks.len() < 4 {
                return None;
            }
            let other = pick(rng, &scalar_types)?;
            if other == line.tok(3) {
                return None;
            }
            edit(line.replace(3, other))
        }
        "opcode-sibling" => {
            let name = line.opcode().strip_prefix("Op")?;
            let group = SIBLINGS.iter().find(|g| g.contains(&name))?;
            let other = group[rng.below(group.len())];
            if other == name {
                return None;
            }
            edit(line.replace(line.op, &format!("Op{other}")))
        }
        "swap-operands" => {
            let ks: Vec<usize> = (line.op + 1..line.toks.len())
                .filter(|&k| line.tok(k).starts_with('%'))
                .collect();
            if ks.len() < 2 {
                return None;
            }
            let a = ks[rng.below(ks.len())];
            let b = ks[rng.below(ks.len())];
            if line.tok(a) == line.tok(b) {
                return None;
            }
            let (a, b) = (a.min(b), a.max(b));
            let (ta, tb) = (line.tok(a), line.tok(b));
            // Replace the later token first so that the earlier range holds.
            let once = line.replace(b, ta);
            let (s, e) = line.toks[a];
            edit(format!("{}{}{}", &once[..s], tb, &once[e..]))
        }
        "literal" => {
            let ks: Vec<usize> = (line.op + 1..line.toks.len())
                .filter(|&k| {
                    line.tok(k)
                        .bytes()
                        .next()
                        .is_some_and(|c| c.is_ascii_digit() || c == b'-')
                })
                .collect();
            let k = *ks.get(rng.below(ks.len()))?;
            let old = line.tok(k);
            let new = match rng.below(6) {
                0 => "0".to_owned(),
                1 => "1".to_owned(),
                2 => "-1".to_owned(),
                3 => "64".to_owned(),
                4 => "16".to_owned(),
                _ => (old.parse::<i64>().unwrap_or(0).wrapping_add(1)).to_string(),
            };
            if new == old {
                return None;
            }
            edit(line.replace(k, &new))
        }
        _ => return None,
    };
    Some(Mutant { text, kind, what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_strings_whole() {
        let l = "OpName %x \"a b\" ; comment";
        let t: Vec<&str> = tokens(l).iter().map(|&(a, b)| &l[a..b]).collect();
        assert_eq!(t, ["OpName", "%x", "\"a b\""]);
    }

    #[test]
    fn every_kind_applies_somewhere() {
        let src = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%int = OpTypeInt 32 1\n\
                   %float = OpTypeFloat 32\n%a = OpConstant %int 1\n%b = OpConstant %int 2\n\
                   %x = OpIAdd %int %a %b\n";
        let mut seen = std::collections::BTreeSet::new();
        let mut rng = Rng::new(3);
        for _ in 0..2000 {
            if let Some(m) = mutate(src, &mut rng) {
                assert_ne!(m.text, src, "{}", m.what);
                seen.insert(m.kind);
            }
        }
        assert_eq!(seen.len(), KINDS.len(), "{seen:?}");
    }
}
