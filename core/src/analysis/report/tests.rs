use super::*;
use alloc::format;

pub(crate) const LOOP: &str = "; ünïcödé comment\n\
OpCapability Shader\n\
OpMemoryModel Logical GLSL450\n\
OpEntryPoint GLCompute %main \"main\"\n\
OpExecutionMode %main LocalSize 1 1 1\n\
OpName %main \"main\"\n\
OpName %header \"header\"\n\
%void = OpTypeVoid\n\
%bool = OpTypeBool\n\
%true = OpConstantTrue %bool\n\
%fn = OpTypeFunction %void\n\
%main = OpFunction %void None %fn\n\
%entry = OpLabel\n\
OpBranch %header\n\
%header = OpLabel\n\
OpLoopMerge %merge %cont None\n\
OpBranchConditional %true %body %merge\n\
%body = OpLabel\n\
OpBranch %cont\n\
%cont = OpLabel\n\
OpBranch %header\n\
%merge = OpLabel\n\
OpReturn\n\
OpFunctionEnd\n";

#[test]
fn line_index_counts_utf16_units() {
    let s = "a\u{e9}\u{1F600}b\nxy";
    let li = LineIndex::new(s);
    // `b` is at byte 1 + 2 + 4 = 7, UTF-16 offset 1 + 1 + 2 = 4.
    assert_eq!(li.position(7), (4, 1, 5));
    assert_eq!(li.position(9), (6, 2, 1));
    // Inside a multi-byte char: moved back to its start.
    assert_eq!(li.position(4), (2, 1, 3));
    assert_eq!(li.position(999), (8, 2, 3));
    let r = li.range(Span::new(9, 11));
    assert_eq!((r.from, r.to, r.line, r.column, r.end_line, r.end_column), (6, 8, 2, 1, 2, 3));
}

#[test]
fn valid_loop_report() {
    let r = analyze(LOOP, TargetEnv::default());
    assert!(r.assembled && r.valid, "{:?}", r.diagnostics);
    assert!(r.diagnostics.is_empty());
    assert_eq!(r.source_map.len(), 23);
    // The disassembly of a text goes by the text's names.
    assert!(r.disassembly.contains("OpLoopMerge %merge %cont None"), "{}", r.disassembly);
    assert_eq!(r.functions.len(), 1);
    let f = &r.functions[0];
    assert_eq!(f.name, "main");
    let names: Vec<&str> = f.blocks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names.len(), 5);
    assert_eq!(names[1], "header");
    let h = &f.blocks[1];
    assert!(h.roles.contains(&"loop-header"));
    assert_eq!(h.listing, ["%header = OpLabel", "OpLoopMerge %merge %cont None", "OpBranchConditional %true %body %merge"].map(String::from));
    // The header's text: line 15 ("%header = OpLabel") to line 17.
    let hr = h.range.unwrap();
    assert_eq!((hr.line, hr.column, hr.end_line), (15, 1, 17));
    let hdr_utf16 = LOOP.encode_utf16().collect::<Vec<_>>();
    let hdr_text = String::from_utf16(&hdr_utf16[hr.from as usize..hr.to as usize]).unwrap();
    assert!(hdr_text.starts_with("%header = OpLabel") && hdr_text.ends_with("%body %merge"), "{hdr_text}");
    assert_eq!(h.idom, Some(f.blocks[0].id));
    assert!(f.blocks[0].entry && f.blocks[4].exit);
    let kinds = |k: EdgeKind| f.edges.iter().filter(|e| e.kind == k).count();
    assert_eq!((kinds(EdgeKind::Merge), kinds(EdgeKind::Continue)), (1, 1));
    let back: Vec<_> = f.edges.iter().filter(|e| e.back).collect();
    assert_eq!(back.len(), 1);
    assert_eq!((back[0].from, back[0].to), (f.blocks[3].id, h.id));
    let loops: Vec<_> = f.constructs.iter().filter(|c| c.kind == ConstructKind::Loop).collect();
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].header, h.id);
    let cont = f.constructs.iter().position(|c| c.kind == ConstructKind::Continue).unwrap();
    assert_eq!(f.blocks[3].innermost, Some(cont as u32));
    // Ids: %header is defined by its label and used by OpName and two branches;
    // the defining `%header =` is not among the uses.
    let id = r.ids.iter().find(|i| i.name == "header").unwrap();
    assert_eq!(id.refs.len(), 3, "{:?}", id.refs);
    assert!(id.refs.iter().all(|u| u.line != 15), "{:?}", id.refs);
    assert_eq!(id.def.unwrap().line, 15);
    assert_eq!(id.def_text, "%header = OpLabel");
    let t = r.ids.iter().find(|i| i.name == "true").unwrap();
    assert_eq!(t.ty.as_deref(), Some("%bool"));
    assert_eq!(t.def_text, "%true = OpConstantTrue %bool");
    for i in &r.ids {
        for rr in &i.refs {
            let s = String::from_utf16(&hdr_utf16[rr.from as usize..rr.to as usize]).unwrap();
            assert!(s.starts_with('%'), "{s}");
        }
    }
    // The words are the binary.
    assert_eq!(r.words.first(), Some(&0x0723_0203));
}

#[test]
fn assembler_errors_give_an_empty_rest() {
    let r = analyze("OpCapability Shader\n%x = OpFMd %a\n", TargetEnv::default());
    assert!(!r.assembled && !r.valid);
    assert!(r.functions.is_empty() && r.words.is_empty() && r.ids.is_empty());
    let d = &r.diagnostics[0];
    assert_eq!(d.diagnostic.code, "asm.unknown-opcode");
    let range = d.range.unwrap();
    assert_eq!((range.line, range.column), (2, 6));
    assert!(d.rendered.contains("OpFMd"), "{}", d.rendered);
}

#[test]
fn validator_problems_are_located_and_marked_on_the_graph() {
    // The back edge goes to the merge block instead: the continue target's
    // branch targets the merge, and the header is no longer a loop header.
    let text = LOOP.replace("%cont = OpLabel\nOpBranch %header", "%cont = OpLabel\nOpBranch %body");
    let r = analyze(&text, TargetEnv::default());
    assert!(r.assembled && !r.valid);
    let d = r.diagnostics.iter().find(|d| d.diagnostic.code == "cfg.back-edge-not-to-loop-header").unwrap();
    let (body, cont) = (r.functions[0].blocks[2].id, r.functions[0].blocks[3].id);
    assert_eq!(d.range.unwrap().line, 19);
    assert_eq!(d.blocks, [body, cont]);
    assert_eq!(d.edges, [(body, cont)]);
    assert!(d.range.is_some());
    assert!(d.summary.is_some() && d.explanation.is_some(), "{}", d.diagnostic.code);
    assert_eq!(d.function, Some(r.functions[0].id));
    assert!(!d.blocks.is_empty());
    let line = format!("{}", d.range.unwrap().line);
    assert!(d.rendered.contains(&line));
}
