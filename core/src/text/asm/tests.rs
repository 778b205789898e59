//! Unit tests. Expected words were produced by the reference spirv-as v2025.5.

use super::*;
use alloc::vec::Vec;

fn asm(src: &str) -> Vec<u32> {
    match assemble(src, &AsmOptions::default()) {
        Ok(w) => w,
        Err(e) => panic!("{src}: {e:?}"),
    }
}

fn asm_p(src: &str) -> Vec<u32> {
    assemble(src, &AsmOptions { preserve_numeric_ids: true, ..Default::default() }).unwrap()
}

fn codes(src: &str) -> Vec<&'static str> {
    assemble(src, &AsmOptions::default()).unwrap_err().iter().map(|d| d.code).collect()
}

#[test]
fn header_and_forward_reference() {
    let w = asm("OpCapability Shader\n%1 = OpTypeVoid\nOpName %foo \"x\"\n");
    assert_eq!(w, [0x07230203, 0x00010600, 0x00070000, 3, 0, 0x00020011, 1, 0x00020013, 1, 0x00030005, 2, 0x78]);
}

#[test]
fn preserve_numeric_ids() {
    let w = asm_p("OpCapability Shader\nOpMemoryModel Logical GLSL450\n%5 = OpTypeVoid\n%a = OpTypeInt 32 0\n%b = OpTypeFunction %5\n%2 = OpTypeBool\n");
    assert_eq!(
        &w[3..],
        [6, 0, 0x20011, 1, 0x3000e, 0, 1, 0x20013, 5, 0x40015, 1, 32, 0, 0x30021, 3, 5, 0x20014, 2]
    );
    let w = asm_p("%0x10 = OpTypeVoid\n%010 = OpTypeBool\n%x = OpTypeInt 32 1\n");
    assert_eq!(&w[3..], [0x11, 0, 0x20013, 0x10, 0x20014, 8, 0x40015, 1, 32, 1]);
    let w = asm_p("%0 = OpTypeVoid\n");
    assert_eq!(&w[3..], [1, 0, 0x20013, 0]);
}

#[test]
fn strings() {
    assert_eq!(&asm("OpSourceExtension \"a\\\"b\\\\c\\qd\"")[5..], [0x00030004, 0x5c622261, 0x00647163]);
    assert_eq!(&asm("OpSourceExtension \"\u{e9}\"")[5..], [0x00020004, 0x0000a9c3]);
    assert_eq!(&asm("OpSourceExtension \"abc\"\"def\"")[5..], [0x00040004, 0x22636261, 0x66656422, 0]);
    assert_eq!(codes("OpSourceExtension \"abc\"x"), [errors::BAD_STRING]);
}

#[test]
fn masks_and_parameters() {
    assert_eq!(&asm("OpLoopMerge %m %c Unroll|DependencyLength 4")[5..], [0x000500f6, 1, 2, 9, 4]);
    assert_eq!(&asm("OpLoopMerge %m %c MinIterations|MaxIterations 3 4")[5..], [0x000600f6, 1, 2, 0x30, 3, 4]);
    assert_eq!(&asm("OpExecutionMode %m LocalSize 8 8 1")[5..], [0x00060010, 1, 0x11, 8, 8, 1]);
    assert_eq!(&asm("OpCapability StorageUniformBufferBlock16")[5..], [0x00020011, 0x1151]);
    assert_eq!(codes("OpLoopMerge %m %c Unroll|0x4"), [errors::UNKNOWN_ENUMERANT]);
    assert_eq!(codes("OpCapability 1"), [errors::UNKNOWN_ENUMERANT]);
}

#[test]
fn constants_by_type() {
    let w = asm("%i64 = OpTypeInt 64 1\n%s = OpConstant %i64 5\nOpSwitch %s %d 1 %a -2 %b 0x100000000 %c");
    assert_eq!(
        &w[5..],
        [0x40015, 1, 64, 1, 0x5002b, 1, 2, 5, 0, 0xc00fb, 2, 3, 1, 0, 4, 0xfffffffe, 0xffffffff, 5, 0, 1, 6]
    );
    let w = asm("%f = OpTypeFloat 16 BFloat16KHR\n%c = OpConstant %f 1.0\n");
    assert_eq!(&w[5..], [0x40016, 1, 16, 0, 0x4002b, 1, 2, 0x3f80]);
    assert_eq!(codes("%c = OpConstant %t 1\n%t = OpTypeInt 32 0"), [errors::BAD_CONSTANT_TYPE]);
    assert_eq!(codes("OpSwitch %s %d 1 %a"), [errors::BAD_SWITCH_SELECTOR]);
}

#[test]
fn ext_inst_and_spec_constant_op() {
    let w = asm("%g = OpExtInstImport \"GLSL.std.450\"\n%f = OpTypeFloat 32\n%x = OpExtInst %f %g FMix %a %b %c");
    assert_eq!(&w[14..], [0x8000c, 2, 3, 1, 46, 4, 5, 6]);
    assert_eq!(codes("%g = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %f %g 46 %a"), [errors::UNKNOWN_EXT_INST]);
    let w = asm("%g = OpExtInstImport \"NonSemantic.Foo\"\n%x = OpExtInst %f %g 7 %a %b");
    assert_eq!(&w[w.len() - 7..], [0x7000c, 2, 3, 1, 7, 4, 5]);
    assert_eq!(codes("%g = OpExtInstImport \"Foo.Bar\""), [errors::UNKNOWN_EXT_INST_SET]);
    let w = asm("%i = OpTypeInt 32 1\n%x = OpSpecConstantOp %i VectorShuffle %a %b 1 2 3");
    assert_eq!(&w[9..], [0x90034, 1, 2, 0x4f, 3, 4, 1, 2, 3]);
    assert_eq!(codes("%i = OpTypeInt 32 1\n%x = OpSpecConstantOp %i PtrEqual %a %b"), [errors::BAD_SPEC_CONSTANT_OP]);
}

#[test]
fn raw_words() {
    assert_eq!(&asm("!0x3002e !1 !64")[5..], [0x3002e, 1, 0x40]);
    assert_eq!(
        &asm("!0x3002e %a 5 \"ab\" 1.5 -1\nOpCapability Shader")[5..],
        [0x3002e, 1, 5, 0x6261, 0x3fc00000, 0xffffffff, 0x20011, 1]
    );
    assert_eq!(&asm("OpLoopMerge %m %c !4 5")[5..], [0x500f6, 1, 2, 4, 5]);
    assert_eq!(&asm("%x = OpTypeInt 32 !1\n%c = OpConstant %x 5")[5..], [0x40015, 1, 32, 1, 0x4002b, 1, 2, 5]);
    assert_eq!(codes("!0x3002e Shader"), [errors::BAD_RAW_OPERAND]);
    assert_eq!(codes("!1 = OpNop"), [errors::BAD_RAW_OPERAND]);
    assert_eq!(codes("OpCapability !-1"), [errors::BAD_IMMEDIATE]);
}

#[test]
fn structural_errors() {
    assert_eq!(codes(""), [errors::EMPTY_TEXT]);
    assert_eq!(codes("OpTypeVoid"), [errors::MISSING_RESULT_ID]);
    assert_eq!(codes("%1 = OpCapability Shader"), [errors::UNEXPECTED_RESULT_ID]);
    assert_eq!(codes("OpCapability Shader junk"), [errors::EXPECTED_OPCODE]);
    assert_eq!(codes("OpCapability Shader,"), [errors::UNEXPECTED_PUNCT]);
    assert_eq!(codes("%a.b = OpTypeVoid"), [errors::INVALID_ID]);
    assert_eq!(codes("%x = OpTypeInt 32 0\n%x = OpTypeInt 32 1"), [errors::DUPLICATE_TYPE]);
    assert_eq!(codes("OpSource GLSL"), [errors::MISSING_OPERAND]);
    assert_eq!(codes("%a = OpTypeFloat 32 0 1"), [errors::UNKNOWN_ENUMERANT]);
}

#[test]
fn all_errors_and_recovery() {
    let src = "OpCapability Shadr\n%x = OpFMd %f %a %b\nOpMemoryModel Logical GLSL450\nOpName 42 \"x\"\n";
    let e = assemble(src, &AsmOptions::default()).unwrap_err();
    let c: Vec<_> = e.iter().map(|d| d.code).collect();
    assert_eq!(c, [errors::UNKNOWN_ENUMERANT, errors::UNKNOWN_OPCODE, errors::EXPECTED_ID]);
    assert_eq!(e[1].help.as_deref(), Some("did you mean `OpFMod`?"));
    assert_eq!(e[0].help.as_deref(), Some("did you mean `Shader`?"));
}

#[test]
fn source_map_and_undefined_ids() {
    let src = "OpCapability Shader\n%v = OpTypeVoid\nOpName %foo \"x\"\n";
    let o = assemble_with_map(src, &AsmOptions::default()).unwrap();
    assert_eq!(o.map.len(), 3);
    assert_eq!(o.map[1].word_offset, 7);
    assert_eq!(o.map[1].word_count, 2);
    assert_eq!(&src[o.map[1].span.start as usize..o.map[1].span.end as usize], "%v = OpTypeVoid");
    assert_eq!(o.warnings.len(), 1);
    assert_eq!(o.warnings[0].code, errors::UNDEFINED_ID);
    assert_eq!(o.warnings[0].message, "undefined id `%foo`");
}

#[test]
fn never_panics_on_odd_input() {
    for s in ["%", "=", "%x =", "%x = ", "!", "\"", "Op", "OpX", "%x = Op", "OpSwitch", "\u{0}", "OpConstant", ";",
        "OpDecorate %x SpecId", "%a = OpExtInst %b %c", "OpTypeInt 8 8 8", "|", "OpLoopMerge %a %b |"] {
        let _ = assemble(s, &AsmOptions::default());
        let _ = assemble(s, &AsmOptions { preserve_numeric_ids: true, ..Default::default() });
    }
}

#[test]
fn a_missing_closing_quote_points_at_the_opening_quote() {
    // spirv-as lets the string run to the end of the text; the diagnostic
    // names the line it started on and underlines only the rest of that line.
    let src = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %x \"abc\n%x = OpTypeVoid\n%y = OpTypeBool\n";
    let e = assemble(src, &AsmOptions::default()).unwrap_err();
    assert_eq!(e.len(), 1, "{e:?}");
    let d = &e[0];
    assert_eq!(d.code, errors::BAD_STRING);
    assert_eq!(crate::diag::line_col(src, d.span.start), (3, 11));
    assert_eq!(&src[d.span.start as usize..d.span.end as usize], "\"abc");
    assert_eq!(d.message, "missing closing `\"`: the string opened on line 3 is never closed");
    assert!(!d.message.contains("OpTypeVoid"));
    assert!(d.help.as_deref().unwrap().contains("takes in the rest of the text"), "{:?}", d.help);
    // An escaped quote does not close it; the last line of the text.
    let src = "OpCapability Shader\nOpName %x \"a\\\"b";
    let e = assemble(src, &AsmOptions::default()).unwrap_err();
    assert_eq!((e.len(), e[0].code), (1, errors::BAD_STRING));
    assert_eq!(&src[e[0].span.start as usize..e[0].span.end as usize], "\"a\\\"b");
    assert_eq!(e[0].help.as_deref(), Some("close it with `\"`"));
    // A closed string that spans lines is a string (spirv-as accepts it).
    assert!(assemble("OpCapability Shader\nOpName %x \"a\nb\"\n%x = OpTypeVoid\n", &AsmOptions::default()).is_ok());
}
