use super::*;
use crate::analysis::report::tests::LOOP;
use crate::text::asm::assemble;

fn opts() -> valid::Options {
    valid::Options::default()
}

#[test]
fn locate_maps_words_to_text_and_drops_unmapped_related_spans() {
    let map = [
        InstSpan { word_offset: 5, word_count: 2, span: Span::new(0, 19) },
        InstSpan { word_offset: 7, word_count: 3, span: Span::new(20, 49) },
    ];
    let mut d = Diagnostic::error("x.y", Span::new(7, 10), "m").in_binary();
    d.relate(Span::new(5, 7), "first");
    d.relate(Span::new(0, 5), "header");
    let mut o = Origin::default();
    locate(&map, &mut d, &mut o);
    assert_eq!((d.span, d.unit), (Span::new(20, 49), SpanUnit::TextBytes));
    assert_eq!(d.related.len(), 1);
    assert_eq!((d.related[0].span, d.related[0].label.as_str()), (Span::new(0, 19), "first"));
    // The word span of the related span that was kept.
    assert_eq!(o.related_words, [Some(Span::new(5, 7))]);
}

#[test]
fn text_and_binary_give_the_same_verdict_and_cfg() {
    let words = assemble(LOOP, &Default::default()).unwrap();
    let t = Analysis::of_text(LOOP, &opts());
    let b = Analysis::of_words(words.clone(), &opts());
    assert!(t.is_valid() && b.is_valid());
    assert_eq!(t.words(), &words[..]);
    assert_eq!(t.cfg(), b.cfg());
    assert_eq!(t.file_name(), TEXT_FILE);
    assert_eq!(b.file_name(), BINARY_FILE);
    // The friendly names: OpName first, the number otherwise.
    let main = t.cfg().functions[0].id;
    assert_eq!(t.friendly_name(main), "main");
    assert_eq!(b.function_by_name("%main"), Some(0));
    assert_eq!(b.function_by_name(&alloc::format!("{main}")), Some(0));
    assert_eq!(b.function_by_name("nope"), None);
}

#[test]
fn a_broken_loop_is_located_in_the_text_with_its_words_kept() {
    // The continue target branches to the body: the back edge no longer targets
    // the loop header.
    let text = LOOP.replace("%cont = OpLabel\nOpBranch %header", "%cont = OpLabel\nOpBranch %body");
    let t = Analysis::of_text(&text, &opts());
    assert!(t.assembled() && !t.is_valid());
    let i = t.diagnostics().iter().position(|d| d.code == "cfg.back-edge-not-to-loop-header").unwrap();
    let d = &t.diagnostics()[i];
    assert_eq!(d.unit, SpanUnit::TextBytes);
    assert_eq!(&text[d.span.start as usize..d.span.end as usize], "OpBranch %cont");
    let o = t.origin(i).unwrap();
    let w = o.words.unwrap();
    // The same problem in the binary is at those words, and names the same blocks.
    let b = Analysis::of_words(t.words().to_vec(), &opts());
    let bd = b.diagnostics().iter().position(|d| d.code == "cfg.back-edge-not-to-loop-header").unwrap();
    assert_eq!(b.diagnostics()[bd].span, w);
    assert_eq!(b.diagnostics()[bd].unit, SpanUnit::BinaryWords);
    assert_eq!(b.origin(bd).unwrap().blocks, o.blocks);
    assert_eq!(b.origin(bd).unwrap().edges, o.edges);
    assert_eq!(o.blocks.len(), 2);
    // Rendered at the text's line, or at the binary's instruction.
    assert!(t.render(d, TEXT_FILE).contains("input.spvasm:19:1"), "{}", t.render(d, TEXT_FILE));
    let rb = b.render(&b.diagnostics()[bd], BINARY_FILE);
    assert!(rb.contains("(instruction ") && rb.contains("OpBranch"), "{rb}");
}

#[test]
fn bad_inputs_give_diagnostics_not_modules() {
    let a = Analysis::of_text("OpCapability Shader\n%x = OpFMd %a\n", &opts());
    assert!(!a.assembled() && !a.is_valid() && a.module().is_none() && a.disassembly().is_none());
    assert_eq!(a.diagnostics()[0].code, "asm.unknown-opcode");
    let b = Analysis::of_bytes(&[1, 2, 3], &opts());
    assert!(b.assembled() && !b.is_valid() && b.module().is_none());
    assert_eq!(b.diagnostics()[0].code, "bin.byte-length");
    assert_eq!(b.origin(0).unwrap().words, Some(b.diagnostics()[0].span));
    let c = Analysis::of_words(alloc::vec![crate::grammar::MAGIC_NUMBER, 0x0001_0000, 0, 5], &opts());
    assert_eq!(c.diagnostics()[0].code, "bin.truncated-header");
    assert_eq!(c.dot(None, &Default::default()), None);
}

#[test]
fn read_bytes_reads_without_checking_and_disassembles() {
    // An invalid module (an OpIAdd on a function type): read only, there is no
    // IR and no validator diagnostic, yet it disassembles as the full analysis does.
    let src = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
               %void = OpTypeVoid\n%fnty = OpTypeFunction %void\n\
               %f = OpFunction %void None %fnty\n%entry = OpLabel\n\
               %x = OpIAdd %fnty %fnty %fnty\nOpReturn\nOpFunctionEnd\n";
    let words = assemble(src, &Default::default()).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let read = Analysis::read_bytes(&bytes);
    assert!(read.ir().is_none() && read.diagnostics().is_empty());
    assert_eq!(read.words(), &words[..]);
    let checked = Analysis::of_words(words, &opts());
    assert!(!checked.is_valid() && checked.ir().is_some());
    let raw = DisOptions { raw_id: true, ..DisOptions::default() };
    for o in [DisOptions::default(), raw] {
        assert_eq!(read.disassemble(&o), checked.disassemble(&o));
    }
    let text = read.disassemble(&raw).unwrap();
    assert!(text.contains("%5 = OpIAdd %2 %2 %2"), "{text}");
    // Not a module: the reader's one diagnostic, nothing to disassemble.
    let cut = Analysis::read_bytes(&bytes[..12]);
    assert_eq!(cut.diagnostics().len(), 1);
    assert!(cut.module().is_none() && cut.disassemble(&raw).is_none());
}
