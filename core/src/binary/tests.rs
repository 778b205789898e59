//! Reader errors, writer round trips and the operand parser's context.

use super::*;
use crate::diag::SpanUnit;
use alloc::vec;

const M: u32 = MAGIC_NUMBER;

fn op(opcode: u16, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | opcode as u32];
    v.extend_from_slice(operands);
    v
}

/// A small valid module; returns the words and the offset of each instruction.
fn module() -> (Vec<u32>, Vec<usize>) {
    let mut w = vec![M, 0x0001_0000, 7 << 16, 10, 0];
    let mut at = Vec::new();
    for inst in [
        op(17, &[1]),                              // OpCapability Shader
        op(14, &[0, 1]),                           // OpMemoryModel Logical GLSL450
        op(5, &[1, 0x0000_6261]),                  // OpName %1 "ab"
        op(71, &[3, 1, 5]),                        // OpDecorate %3 SpecId 5
        op(21, &[2, 32, 0]),                       // %2 = OpTypeInt 32 0
        op(21, &[4, 64, 1]),                       // %4 = OpTypeInt 64 1
        op(43, &[2, 3, 7]),                        // %3 = OpConstant %2 7
        op(43, &[4, 5, 0xffff_fffe, 0xffff_ffff]), // %5 = OpConstant %4 -2
    ] {
        at.push(w.len());
        w.extend(inst);
    }
    (w, at)
}

#[test]
fn reads_a_valid_module_and_writes_it_back() {
    let (w, _) = module();
    let m = read_words(&w).unwrap();
    assert_eq!(m.instructions.len(), 8);
    assert_eq!(m.header.bound, 10);
    assert_eq!(write_words(&m), w);
    let bytes = to_bytes(&m);
    assert_eq!(read_bytes(&bytes).unwrap(), m);
}

#[test]
fn both_byte_orders_read_the_same_module() {
    let (w, _) = module();
    let le = read_bytes(&to_bytes(&read_words(&w).unwrap())).unwrap();
    let be = read_bytes(&to_bytes_be(&w)).unwrap();
    assert_eq!(le, be);
    // Byte-swapped words are accepted too.
    let swapped: Vec<u32> = w.iter().map(|x| x.swap_bytes()).collect();
    assert_eq!(read_words(&swapped).unwrap(), le);
}

#[test]
fn bad_magic() {
    let (mut w, _) = module();
    w[0] = 0xdead_beef;
    let e = read_words(&w).unwrap_err();
    assert_eq!(e, BinaryError::BadMagic { found: 0xdead_beef });
    assert_eq!(e.offset(), 0);
    let d: Diagnostic = e.into();
    assert_eq!(d.code, "bin.bad-magic");
    assert_eq!(d.unit, SpanUnit::BinaryWords);
    assert_eq!(d.span, Span::new(0, 1));
}

#[test]
fn byte_length_not_a_multiple_of_four() {
    let (w, _) = module();
    let mut bytes = to_bytes_be(&w);
    bytes.push(0);
    assert_eq!(
        read_bytes(&bytes).unwrap_err(),
        BinaryError::ByteLength { len: bytes.len() }
    );
    assert_eq!(read_bytes(&bytes).unwrap_err().code(), "bin.byte-length");
}

#[test]
fn truncated_header() {
    let (w, _) = module();
    for n in 0..5 {
        let e = read_words(&w[..n]).unwrap_err();
        assert_eq!(e, BinaryError::TruncatedHeader { words: n });
        assert_eq!(e.span(), Span::new(0, n as u32));
        assert_eq!(e.code(), "bin.truncated-header");
        let bytes = to_bytes_be(&w[..n]);
        assert_eq!(
            read_bytes(&bytes).unwrap_err(),
            BinaryError::TruncatedHeader { words: n }
        );
    }
}

#[test]
fn word_count_zero() {
    let (mut w, at) = module();
    w[at[2]] = 5; // OpName with word count 0
    let e = read_words(&w).unwrap_err();
    assert_eq!(
        e,
        BinaryError::ZeroWordCount {
            offset: at[2],
            opcode: 5
        }
    );
    assert_eq!(e.offset(), at[2]);
    assert_eq!(e.code(), "bin.zero-word-count");
}

#[test]
fn word_count_past_the_end() {
    let (mut w, at) = module();
    let last = at[7];
    w[last] = (9 << 16) | 43;
    let e = read_words(&w).unwrap_err();
    assert_eq!(
        e,
        BinaryError::TruncatedInstruction {
            offset: last,
            opcode: 43,
            word_count: 9,
            available: 5
        }
    );
    assert_eq!(e.offset(), last);
    // Every cut inside the last instruction.
    for cut in last + 1..w.len() {
        let e = read_words(&w[..cut]).unwrap_err();
        assert!(matches!(e, BinaryError::TruncatedInstruction { offset, .. } if offset == last));
    }
}

#[test]
fn unterminated_string() {
    let (mut w, at) = module();
    // OpName %1 "abcd" with no terminating word: replace the "ab" word.
    w[at[2] + 2] = 0x6463_6261;
    let e = read_words(&w).unwrap_err();
    assert_eq!(
        e,
        BinaryError::UnterminatedString {
            offset: at[2],
            opcode: 5,
            operand: at[2] + 2
        }
    );
    assert_eq!(e.code(), "bin.unterminated-string");
    // The framing-only reader keeps it.
    assert!(read_words_framing(&w).is_ok());
}

#[test]
fn missing_operand() {
    // OpTypeInt %2 32 (no signedness).
    let mut w = vec![M, 0x0001_0000, 0, 10, 0];
    let at = w.len();
    w.extend(op(21, &[2, 32]));
    let e = read_words(&w).unwrap_err();
    assert_eq!(
        e,
        BinaryError::MissingOperand {
            offset: at,
            opcode: 21,
            operand: at + 3,
            kind: OperandKind::LiteralInteger
        }
    );
    assert_eq!(e.offset(), at + 3);
    // OpDecorate %3 SpecId without its literal.
    let mut w = vec![M, 0x0001_0000, 0, 10, 0];
    w.extend(op(71, &[3, 1]));
    assert!(matches!(
        read_words(&w).unwrap_err(),
        BinaryError::MissingOperand { operand: 8, .. }
    ));
    // A 64-bit constant with one word.
    let (mut w, at) = module();
    let last = at[7];
    w.truncate(w.len() - 1);
    w[last] = (4 << 16) | 43;
    assert!(matches!(
        read_words(&w).unwrap_err(),
        BinaryError::MissingOperand { offset, kind: OperandKind::LiteralContextDependentNumber, .. } if offset == last
    ));
}

#[test]
fn leftover_words() {
    let (mut w, at) = module();
    // OpCapability Shader 7
    w[at[0]] = (3 << 16) | 17;
    w.insert(at[0] + 2, 7);
    let e = read_words(&w).unwrap_err();
    assert_eq!(
        e,
        BinaryError::ExtraWords {
            offset: at[0],
            opcode: 17,
            operand: at[0] + 2,
            word_count: 3
        }
    );
    assert_eq!(e.code(), "bin.extra-words");
}

#[test]
fn bad_enumerant_and_literal_type() {
    let (mut w, at) = module();
    w[at[0] + 1] = 99_999;
    let e = read_words(&w).unwrap_err();
    assert_eq!(e.offset(), at[0] + 1);
    assert!(matches!(
        e,
        BinaryError::BadEnumerant {
            kind: OperandKind::Capability,
            value: 99_999,
            ..
        }
    ));

    let (mut w, at) = module();
    w[at[6] + 1] = 9; // OpConstant whose type id is not a type
    let e = read_words(&w).unwrap_err();
    assert_eq!(
        e,
        BinaryError::BadLiteralType {
            offset: at[6],
            opcode: 43,
            operand: at[6] + 3,
            type_id: 9
        }
    );
}

#[test]
fn unknown_opcodes_are_kept() {
    let (mut w, _) = module();
    w.extend(op(0x7ff0, &[1, 2, 3]));
    let m = read_words(&w).unwrap();
    let last = m.instructions.last().unwrap();
    assert_eq!(last.opcode, 0x7ff0);
    assert_eq!(last.operands, vec![1, 2, 3]);
    assert_eq!(write_words(&m), w);
}

#[test]
fn redefined_ids() {
    let (mut w, _) = module();
    let at = w.len();
    w.extend(op(21, &[2, 16, 0]));
    assert_eq!(
        read_words(&w).unwrap_err(),
        BinaryError::IdRedefined {
            offset: at,
            opcode: 21,
            operand: at + 1,
            id: 2
        }
    );
}

#[test]
fn parser_widths_come_from_context() {
    let (mut w, _) = module();
    // OpSwitch on a 64-bit selector: %6 = OpSConvert %4 %3 ; OpSwitch %6 %7 1 0 %7
    w.extend(op(114, &[4, 6, 3]));
    w.extend(op(251, &[6, 7, 1, 0, 7, 2, 0, 7]));
    let m = read_words(&w).unwrap();
    let mut p = OperandParser::new(m.header.bound);
    let mut out = Vec::new();
    for inst in &m.instructions {
        p.parse(inst.opcode, &inst.operands, 0, &mut out).unwrap();
    }
    let lens: Vec<u32> = out.iter().map(|o| o.len).collect();
    assert_eq!(lens, vec![1, 1, 2, 1, 2, 1]);
    assert_eq!(
        out[2].num,
        NumType::Int {
            width: 64,
            signed: true
        }
    );
}

#[test]
fn mask_parameters_in_bit_order() {
    // OpLoopMerge %1 %2 Unroll|DependencyLength|MinIterations 4 8 -> params of bit 3 then bit 4.
    let mut p = OperandParser::new(10);
    let mut out = Vec::new();
    p.parse(246, &[1, 2, 0x1 | 0x8 | 0x10, 4, 8], 0, &mut out)
        .unwrap();
    assert_eq!(out.len(), 5);
    assert_eq!(out[3].kind, OperandKind::LiteralInteger);
    // Missing the second parameter.
    let e = p
        .parse(246, &[1, 2, 0x1 | 0x8 | 0x10, 4], 0, &mut out)
        .unwrap_err();
    assert!(matches!(e, BinaryError::MissingOperand { .. }));
}

#[test]
fn bad_version() {
    for v in [0x0001_0700u32, 0x0001_0001, 0, 0x0002_0000, 0x0101_0000] {
        let (mut w, _) = module();
        w[1] = v;
        let e = read_words(&w).unwrap_err();
        assert_eq!(e, BinaryError::BadVersion { version: v });
        assert_eq!(e.offset(), 1);
    }
    let (mut w, _) = module();
    w[1] = 0x0001_0600;
    assert!(read_words(&w).is_ok());
}

#[test]
fn ids_past_the_bound_print_raw_so_the_text_keeps_the_bound() {
    use crate::text::{DisOptions, disassemble};
    // OpCapability Shader; OpMemoryModel Logical GLSL450; %1 = OpTypeBool; %64 = OpTypeVoid,
    // with a bound of 2.
    let words = [
        0x0723_0203, 0x0001_0000, 0, 2, 0, 0x0002_0011, 1, 0x0003_000e, 0, 1, 0x0002_0014, 1,
        0x0002_0013, 64,
    ];
    let text = disassemble(&words, &DisOptions { raw_id: true, ..DisOptions::default() }).unwrap();
    let last = text.lines().last().unwrap();
    assert!(last.contains("!0x00020013 !0x00000040"), "{text}");
    assert!(last.contains("; error: OpTypeVoid at word 12: id 64 is not below the id bound 2"), "{text}");
    assert!(text.contains("%1 = OpTypeBool"), "{text}");
}

#[test]
fn the_opcode_table_finds_what_the_bisection_finds() {
    for opcode in 0..=u16::MAX {
        let a = crate::binary::parse::instruction_desc(opcode).map(|d| d as *const _);
        let b = crate::grammar::instruction(opcode).map(|d| d as *const _);
        assert_eq!(a, b, "opcode {opcode}");
    }
    assert!(crate::binary::parse::instruction_desc(crate::grammar::op::OpIAdd).is_some());
}

/// The word-by-word reading ([`OperandParser::walk_words`]) gives what the
/// full walk gives wherever it takes an instruction, over every opcode of the
/// grammar with operand words drawn from values that hit enumerants with and
/// without parameters, unknown enumerants, masks, ids and number types, and
/// lengths from none to past the grammar's operands. It takes some of them.
#[test]
fn word_by_word_reading_is_the_walk() {
    // Types for OpConstant's value: %2 a 32-bit int, %4 a 64-bit int, %6 a 16-bit float.
    let mut p = OperandParser::new(100);
    let mut out = Vec::new();
    for (opcode, w) in [(21u16, &[2u32, 32, 0][..]), (21, &[4, 64, 1]), (22, &[6, 16])] {
        p.parse(opcode, w, 0, &mut out).unwrap();
    }
    let values = [0u32, 1, 2, 3, 4, 5, 6, 11, 28, 33, 0x8000_0000, 0xffff, 9999];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut taken, mut tried) = (0, 0);
    for d in crate::grammar::INSTRUCTIONS {
        for _ in 0..40 {
            let n = (next() % (d.operands.len() as u64 + 3)) as usize;
            let mut words: Vec<u32> = (0..n).map(|_| values[(next() % values.len() as u64) as usize]).collect();
            if let Some(w) = words.first_mut().filter(|_| next() % 2 == 0) {
                *w = [2, 4, 6][(next() % 3) as usize];
            }
            let mut fast = vec![ParsedOperand { kind: OperandKind::IdRef, start: 99, len: 9, num: NumType::None }];
            let mut slow = fast.clone();
            tried += 1;
            if !p.walk_words(d.opcode, d.operands, &words, &mut fast) {
                assert_eq!(fast.len(), 1, "{} {words:?}: out left as it was", d.name);
                continue;
            }
            taken += 1;
            let walked = p.clone().walk_all(d.opcode, d.operands, &words, 0, &mut slow);
            assert!(walked.is_ok(), "{} {words:?}: the walk rejects what the word-by-word reading took", d.name);
            assert_eq!(fast, slow, "{} {words:?}", d.name);
        }
    }
    assert!(taken * 8 > tried, "the word-by-word reading took {taken} of {tried}");
}
