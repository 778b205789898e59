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
    locate(&map, &[], &mut d, &mut o);
    assert_eq!((d.span, d.unit), (Span::new(20, 49), SpanUnit::TextBytes));
    assert_eq!(d.related.len(), 1);
    assert_eq!((d.related[0].span, d.related[0].label.as_str()), (Span::new(0, 19), "first"));
    // The word span of the related span that was kept.
    assert_eq!(o.related_words, [Some(Span::new(5, 7))]);
}

#[test]
fn a_diagnostic_at_one_operand_is_shown_at_its_token() {
    let src = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
               %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n\
               %float = OpTypeFloat 32\n%a = OpConstant %int 1\n\
               %f = OpFunction %void None %fn\n%e = OpLabel\n\
               %x = OpFAdd %float %a %a\n%y = OpIAdd %float %a %a\nOpReturn\nOpFunctionEnd\n";
    let a = Analysis::of_text(src, &opts());
    let shown: Vec<(&str, &str)> = a
        .diagnostics()
        .iter()
        .map(|d| (d.code, &src[d.span.start as usize..d.span.end as usize]))
        .collect();
    // OpFAdd: both operands, each at its own token; OpIAdd: its result type.
    assert_eq!(
        shown,
        [("inst.arith.operand-type", "%a"), ("inst.arith.operand-type", "%a"), ("inst.arith.result-type", "%float")]
    );
    let at = |k: usize| a.diagnostics()[k].span.start as usize;
    assert_eq!(&src[at(0) - 7..at(0)], "%float ");
    assert_eq!(at(1), at(0) + 3);
    assert!(src[at(2) - 7..].starts_with("OpIAdd %float"));
    // The word spans are kept for the page (binary offsets).
    assert!(a.origin(0).and_then(|o| o.words).is_some_and(|w| w.len() == 1));
    // A span over the whole instruction stays at the instruction.
    let map = [InstSpan { word_offset: 5, word_count: 4, span: Span::new(0, 20) }];
    let ops = [(6, Span::new(5, 7)), (7, Span::new(8, 10)), (8, Span::new(11, 13))];
    assert_eq!(operand_text(map[0], &ops, Span::new(5, 9)), None);
    assert_eq!(operand_text(map[0], &ops, Span::new(7, 8)), Some(Span::new(8, 10)));
    assert_eq!(operand_text(map[0], &ops, Span::new(7, 9)), Some(Span::new(8, 13)));
    assert_eq!(operand_text(map[0], &ops, Span::new(7, 10)), None);
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
    assert_eq!(t.display_name(main), "main");
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
    // An invalid module (a loop without its OpLoopMerge): read only, there is
    // no IR and no validator diagnostic, yet it disassembles as the full
    // analysis does.
    let src = LOOP.replace("OpLoopMerge %merge %cont None\n", "");
    let words = assemble(&src, &Default::default()).unwrap();
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
    // Ids by first use: %true is 5, %body 8, %merge 9.
    assert!(text.contains("OpBranchConditional %5 %8 %9") && !text.contains("OpLoopMerge"), "{text}");
    // Not a module: the reader's one diagnostic, nothing to disassemble.
    let cut = Analysis::read_bytes(&bytes[..12]);
    assert_eq!(cut.diagnostics().len(), 1);
    assert!(cut.module().is_none() && cut.disassemble(&raw).is_none());
}

/// A loop with no OpName: every name below comes from the text.
const NO_OPNAME: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%bool = OpTypeBool
%zero = OpConstant %int 0
%ten = OpConstant %int 10
%one = OpConstant %int 1
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %header
%header = OpLabel
%iv = OpPhi %int %zero %entry %next %cont
OpLoopMerge %merge %cont None
OpBranch %body
%body = OpLabel
%c = OpSLessThan %bool %iv %ten
OpBranchConditional %c %cont %merge
%cont = OpLabel
%next = OpIAdd %int %iv %one
OpBranch %header
%merge = OpLabel
OpReturn
OpFunctionEnd
";

#[test]
fn every_view_of_a_text_uses_its_names() {
    let a = Analysis::of_text(NO_OPNAME, &opts());
    assert!(a.is_valid(), "{:?}", a.diagnostics());
    let f = &a.cfg().functions[0];
    let names: Vec<String> = f.blocks.iter().map(|b| a.display_name(b.label)).collect();
    assert_eq!(names, ["entry", "header", "body", "cont", "merge"]);
    assert_eq!(a.display_name(f.id), "main");
    assert_eq!(a.function_by_name("%main"), Some(0));
    // The drawing: nodes, the loop's cluster, the listing.
    let dot = a.dot(None, &dot::DotOptions::default()).unwrap();
    for n in ["%entry", "%header", "%body", "%cont", "%merge"] {
        assert!(dot.contains(&alloc::format!("label=\"{n}\"")), "{n}: {dot}");
    }
    assert!(dot.contains("label=\"loop %header\""), "{dot}");
    assert!(!dot.contains("label=\"%1"), "{dot}");
    let l = a.dot(None, &dot::DotOptions { listing: true, ..Default::default() }).unwrap();
    assert!(l.contains("%iv = OpPhi %int %zero %entry %next %cont\\l"), "{l}");
    assert!(l.contains("OpLoopMerge %merge %cont None\\l"), "{l}");
    // The page's report: the function menu, blocks, hover data, disassembly.
    let r = report::AnalyzeReport::of(&a);
    assert_eq!(r.functions[0].name, "main");
    assert_eq!(r.functions[0].blocks[1].listing[1], "%iv = OpPhi %int %zero %entry %next %cont");
    let iv = r.ids.iter().find(|i| i.name == "iv").unwrap();
    assert_eq!(iv.ty.as_deref(), Some("%int"));
    assert_eq!(iv.def_text, "%iv = OpPhi %int %zero %entry %next %cont");
    assert!(r.disassembly.contains("%c = OpSLessThan %bool %iv %ten"), "{}", r.disassembly);
}

#[test]
fn a_binary_goes_by_opname_then_friendly_names() {
    // The same module as a binary: no text names. The labels have no OpName:
    // spirv-dis numbers them; types and constants get spirv-dis's names.
    let words = assemble(NO_OPNAME, &Default::default()).unwrap();
    let b = Analysis::of_words(words, &opts());
    let f = &b.cfg().functions[0];
    assert_eq!(b.display_name(f.blocks[1].label), alloc::format!("{}", f.blocks[1].label));
    assert_eq!(b.display_name(f.id), alloc::format!("{}", f.id));
    let r = report::AnalyzeReport::of(&b);
    assert!(r.disassembly.contains("OpTypeInt 32 1"));
    assert!(r.disassembly.contains("%int_10 = OpConstant %int 10"), "{}", r.disassembly);
    // With OpName (and no text): OpName.
    let named = NO_OPNAME.replace("OpExecutionMode %main LocalSize 1 1 1\n", "OpExecutionMode %main LocalSize 1 1 1\nOpName %main \"start\"\nOpName %header \"loop_head\"\n");
    let b = Analysis::of_words(assemble(&named, &Default::default()).unwrap(), &opts());
    let f = &b.cfg().functions[0];
    assert_eq!(b.display_name(f.id), "start");
    assert_eq!(b.display_name(f.blocks[1].label), "loop_head");
    assert_eq!(report::AnalyzeReport::of(&b).functions[0].name, "start");
    let dot = b.dot(None, &dot::DotOptions::default()).unwrap();
    assert!(dot.contains("label=\"loop %loop_head\""), "{dot}");
    // The text of that module: its own names win over OpName.
    let t = Analysis::of_text(&named, &opts());
    assert_eq!(t.display_name(t.cfg().functions[0].id), "main");
}

/// The page's entries for `text`: (code, line, column, end line, help).
fn entries(text: &str) -> Vec<(&'static str, u32, u32, u32, Option<String>)> {
    let r = report::AnalyzeReport::of(&Analysis::of_text(text, &opts()));
    r.diagnostics
        .iter()
        .map(|d| {
            let g = d.range.unwrap();
            (d.diagnostic.code, g.line, g.column, g.end_line, d.diagnostic.help.clone())
        })
        .collect()
}

#[test]
fn a_mistyped_branch_target_is_one_entry_suggesting_a_label() {
    // `%cnt` for `%cont`: `%int` (a type) is as close, but a branch target
    // is a label. One entry, at the token.
    let text = NO_OPNAME.replace("OpBranchConditional %c %cont %merge", "OpBranch %cnt");
    let e = entries(&text);
    assert_eq!(e, [("ids.undefined-forward-reference", 21, 10, 21, Some("did you mean `%cont`?".into()))]);
    let a = Analysis::of_text(&text, &opts());
    let d = &a.diagnostics()[0];
    assert_eq!(&text[d.span.start as usize..d.span.end as usize], "%cnt");
    assert_eq!(d.message, "%cnt is referenced here but never defined");
    // The graph marks still come from the instruction.
    assert_eq!(a.origin(0).unwrap().function, Some(a.cfg().functions[0].id));
    // A result type: `%it` is one edit from `%iv` (a value) and from `%int`.
    let text = NO_OPNAME.replace("%next = OpIAdd %int %iv %one", "%next = OpIAdd %it %iv %one");
    let e = entries(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].0, e[0].1, e[0].2), ("ids.undefined", 23, 16));
    assert_eq!(e[0].4.as_deref(), Some("did you mean `%int`?"));
    // Two undefined ids in one instruction: two entries, each at its token.
    let text = NO_OPNAME.replace("OpBranchConditional %c %cont %merge", "OpBranchConditional %c %cnt %mrge");
    let e = entries(&text);
    let got: Vec<_> = e.iter().map(|x| (x.1, x.2, x.4.as_deref())).collect();
    assert_eq!(got, [(21, 24, Some("did you mean `%cont`?")), (21, 29, Some("did you mean `%merge`?"))], "{e:?}");
}

#[test]
fn a_missing_quote_and_a_module_scope_variable_are_one_entry_each() {
    let text = NO_OPNAME.replace("OpExecutionMode %main LocalSize 1 1 1\n", "OpExecutionMode %main LocalSize 1 1 1\nOpName %main \"abc\n");
    let e = entries(&text);
    assert_eq!(e.len(), 1, "{e:?}");
    // Line 5, column 14, on that line only.
    assert_eq!((e[0].0, e[0].1, e[0].2, e[0].3), ("asm.bad-string", 5, 14, 5));
    let text = NO_OPNAME.replace("%one = OpConstant %int 1\n", "%one = OpConstant %int 1\n%ptr = OpTypePointer Function %int\n%v = OpVariable %ptr Function\n");
    let a = Analysis::of_text(&text, &opts());
    let d = a.diagnostics();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].message, "OpVariable with Function storage class outside any function");
    assert_eq!(crate::diag::line_col(&text, d[0].span.start), (13, 1));
    assert!(d[0].related.is_empty());
}
