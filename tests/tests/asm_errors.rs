//! Assembler errors: codes, exact positions and messages; every error of a file is
//! reported; and accept/reject verdicts agree with the reference spirv-as on
//! hundreds of random edits of corpus texts.

use spvlab_core::diag::line_col;
use spvlab_core::text::asm::{AsmOptions, assemble, assemble_with_map, errors, lexer};
use spvlab_core::{Diagnostic, Severity, TargetEnv};
use spvlab_tests::{cases, corpus_or_skip, reference_or_skip, run_tool, scratch};

fn errs(src: &str) -> Vec<Diagnostic> {
    match assemble(src, &AsmOptions::default()) {
        Ok(_) => panic!("expected errors for {src:?}"),
        Err(e) => e,
    }
}

/// (code, line, column, span length, message) of each error.
fn summary(src: &str) -> Vec<(&'static str, u32, u32, u32, String)> {
    errs(src)
        .into_iter()
        .map(|d| {
            let (l, c) = line_col(src, d.span.start);
            (d.code, l, c, d.span.len(), d.message)
        })
        .collect()
}

const HEAD: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%float = OpTypeFloat 32\n";

#[test]
fn expected_an_id() {
    let src = format!("{HEAD}OpName 42 \"x\"\n");
    assert_eq!(summary(&src), [(errors::EXPECTED_ID, 4, 8, 2, "expected an id, found `42`".to_string())]);
}

#[test]
fn unknown_opcode_with_suggestion() {
    let src = format!("{HEAD}%x = OpFMd %float %a %b\n");
    let e = errs(&src);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].code, errors::UNKNOWN_OPCODE);
    assert_eq!(e[0].message, "unknown opcode `OpFMd`");
    assert_eq!(line_col(&src, e[0].span.start), (4, 6));
    assert_eq!(e[0].span.len(), 5);
    assert_eq!(e[0].help.as_deref(), Some("did you mean `OpFMod`?"));
    let r = spvlab_core::diag::render(&e[0], &src, "t.spvasm");
    assert!(r.contains("4 | %x = OpFMd %float %a %b"), "{r}");
    assert!(r.contains("^^^^^"), "{r}");
}

#[test]
fn undefined_id_is_a_warning_like_spirv_as() {
    // spirv-as accepts ids that are used but never defined; so do we, with a warning.
    let src = format!("{HEAD}OpName %foo \"x\"\n%fooo = OpTypeBool\nOpName %fo \"y\"\n");
    let out = assemble_with_map(&src, &AsmOptions::default()).expect("accepted");
    let w: Vec<_> = out
        .warnings
        .iter()
        .map(|d| (d.code, d.severity, line_col(&src, d.span.start), d.message.clone(), d.help.clone()))
        .collect();
    assert_eq!(
        w,
        [
            (errors::UNDEFINED_ID, Severity::Warning, (4, 8), "undefined id `%foo`".to_string(), Some("did you mean `%fooo`?".to_string())),
            (errors::UNDEFINED_ID, Severity::Warning, (6, 8), "undefined id `%fo`".to_string(), None),
        ]
    );
    // Forward references are fine.
    let src = format!("{HEAD}OpName %later \"x\"\n%later = OpTypeBool\n");
    assert!(assemble_with_map(&src, &AsmOptions::default()).unwrap().warnings.is_empty());
}

#[test]
fn all_errors_of_a_file_are_reported() {
    let src = "OpCapability Shadr\n\
               OpMemoryModel Logical GLSL450\n\
               %int = OpTypeInt 32 1\n\
               %c = OpConstant %int 2147483648\n\
               %d = OpConstant %int 1.5\n\
               %x = OpIAdd %int %c 7\n\
               OpDecorate %c SpecId\n\
               %s = OpString \"unterminated\n";
    let got = summary(src);
    let want = [
        (errors::UNKNOWN_ENUMERANT, 1, 14, 5, "unknown Capability `Shadr`".to_string()),
        (errors::BAD_LITERAL, 4, 22, 10, "`2147483648` does not fit in a 32-bit signed integer".to_string()),
        (errors::BAD_LITERAL, 5, 22, 3, "expected a 32-bit signed integer, found `1.5`".to_string()),
        (errors::EXPECTED_ID, 6, 21, 1, "expected an id, found `7`".to_string()),
        (errors::MISSING_OPERAND, 7, 21, 0, "expected a literal integer (Specialization Constant ID) for `OpDecorate`, found the next instruction".to_string()),
        (errors::BAD_STRING, 8, 15, 13, "missing closing `\"`: the string opened on line 8 is never closed".to_string()),
    ];
    assert_eq!(got, want);
    assert_eq!(errs(src)[0].help.as_deref(), Some("did you mean `Shader`?"));
}

#[test]
fn structural_errors_with_positions() {
    let cases: &[(&str, &str, (u32, u32), &str)] = &[
        ("OpTypeVoid\n", errors::MISSING_RESULT_ID, (1, 1), "`OpTypeVoid` produces a result id, but the instruction has no `%result =`"),
        ("%1 = OpCapability Shader\n", errors::UNEXPECTED_RESULT_ID, (1, 1), "`OpCapability` does not produce a result id, found `%1`"),
        ("OpCapability Shader junk\n", errors::EXPECTED_OPCODE, (1, 21), "expected an opcode or `%result =` at the start of an instruction, found `junk`"),
        ("%x OpTypeVoid\n", errors::EXPECTED_EQUALS, (1, 4), "expected `=` after result id `%x`, found `OpTypeVoid`"),
        ("%x = TypeVoid\n", errors::EXPECTED_OPCODE, (1, 6), "expected an opcode after `=`, found `TypeVoid`"),
        ("%a.b = OpTypeVoid\n", errors::INVALID_ID, (1, 1), "invalid id `%a.b`"),
        ("OpCapability Shader,\n", errors::UNEXPECTED_PUNCT, (1, 20), "unexpected `,`"),
        ("%u = OpTypeInt 8 0\n%c = OpConstant %u -1\n", errors::BAD_LITERAL, (2, 20), "expected an 8-bit unsigned integer, found negative number `-1`"),
        ("%f = OpTypeFloat 32\n%c = OpConstant %f 1e39\n", errors::BAD_LITERAL, (2, 20), "`1e39` does not fit in a 32-bit float"),
        ("%c = OpConstant %t 1\n%t = OpTypeInt 32 0\n", errors::BAD_CONSTANT_TYPE, (1, 20), "the result type of `OpConstant` must be a scalar integer or float type declared before it"),
        ("OpLoopMerge %m %c Unroll|Dependency 4\n", errors::UNKNOWN_ENUMERANT, (1, 19), "unknown LoopControl `Dependency`"),
        ("%g = OpExtInstImport \"GLSL.std.450\"\n%x = OpExtInst %f %g FMx %a %b %c\n", errors::UNKNOWN_EXT_INST, (2, 22), "unknown extended instruction `FMx` in GLSL.std.450"),
        ("%g = OpExtInstImport \"GLSL.std.45\"\n", errors::UNKNOWN_EXT_INST_SET, (1, 22), "unknown extended instruction set `GLSL.std.45`"),
        ("%x = OpExtInst %f %g Sqrt %a\n", errors::NOT_EXT_INST_SET, (1, 19), "`%g` is not an extended instruction set imported by OpExtInstImport (before this use)"),
        ("%i = OpTypeInt 32 1\n%x = OpSpecConstantOp %i OpIAdd %a %b\n", errors::MISSING_OPERAND, (2, 25), "expected an opcode name (Opcode) for `OpSpecConstantOp`, found the next instruction"),
        ("OpCapability !-1\n", errors::BAD_IMMEDIATE, (1, 14), "invalid immediate integer `!-1`"),
        ("%t = OpTypeInt 32 0\n%t = OpTypeInt 32 1\n", errors::DUPLICATE_TYPE, (2, 1), "`%t` already names a type"),
        ("", errors::EMPTY_TEXT, (1, 1), "the assembly text is empty"),
    ];
    for &(src, code, pos, msg) in cases {
        let e = errs(src);
        assert_eq!(e.len(), 1, "{src:?}: {e:?}");
        assert_eq!((e[0].code, line_col(src, e[0].span.start), e[0].message.as_str()), (code, pos, msg), "{src:?}");
    }
    let e = errs("OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSiz 8 8 1\n");
    assert_eq!(e[0].help.as_deref(), Some("did you mean `LocalSize`?"));
    let e = errs("%i = OpTypeInt 32 1\n%x = OpSpecConstantOp %i IAd %a %b\n");
    assert_eq!((e[0].code, e[0].help.as_deref()), (errors::BAD_SPEC_CONSTANT_OP, Some("did you mean `IAdd`?")));
}

// ---- verdicts on random edits ------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const NUMBERS: &[&str] = &[
    "0", "1", "-1", "4294967296", "0x", "1.5", "-0x80000001", "0x1p+3", "08", "65536", "2147483648",
    "99999999999999999999", "1e40", "0x1.8p+128", "-",
];

/// One random edit of `text`: delete, duplicate or swap tokens, or replace a number.
fn mutate(text: &str, rng: &mut Rng) -> (String, &'static str) {
    let toks = lexer::tokenize(text.as_bytes());
    let n = toks.len();
    let span = |i: usize| (toks[i].start as usize, toks[i].end as usize);
    loop {
        let i = rng.below(n);
        let (a, b) = span(i);
        match rng.below(6) {
            4 => {
                // Rename an id use: spirv-as accepts never-defined ids.
                if !text[a..b].starts_with('%') {
                    continue;
                }
                return (format!("{}%zz_undefined{}", &text[..a], &text[b..]), "rename-id");
            }
            5 => {
                // Change one character of a word (opcode, enumerant, string, number...).
                if b - a < 2 || !text[a..b].is_ascii() {
                    continue;
                }
                let at = a + 1 + rng.below(b - a - 1);
                let set = b"aZ0_.|\"%x-";
                let c = set[rng.below(set.len())] as char;
                return (format!("{}{}{}", &text[..at], c, &text[at + 1..]), "change-char");
            }
            0 => return (format!("{}{}", &text[..a], &text[b..]), "delete"),
            1 => return (format!("{}{} {}", &text[..b], " ", &text[a..]).replacen("  ", " ", 0), "duplicate"),
            2 => {
                let j = (i + 1 + rng.below(3)).min(n - 1);
                if j == i {
                    continue;
                }
                let (c, d) = span(j);
                return (format!("{}{}{}{}{}", &text[..a], &text[c..d], &text[b..c], &text[a..b], &text[d..]), "swap");
            }
            _ => {
                let nums: Vec<usize> = (0..n)
                    .filter(|&k| {
                        let (a, b) = span(k);
                        text[a..b].bytes().next().is_some_and(|c| c.is_ascii_digit() || c == b'-')
                    })
                    .collect();
                if nums.is_empty() {
                    continue;
                }
                let k = nums[rng.below(nums.len())];
                let (a, b) = span(k);
                let r = NUMBERS[rng.below(NUMBERS.len())];
                return (format!("{}{}{}", &text[..a], r, &text[b..]), "number");
            }
        }
    }
}

#[test]
fn verdicts_match_reference_on_random_edits() {
    let test = "verdicts_match_reference_on_random_edits";
    let Some(corpus) = corpus_or_skip(test) else { return };
    let Some(bin) = reference_or_skip(test) else { return };
    let all = cases(&corpus);
    let dir = scratch(test);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let total = 600;
    let mut jobs = Vec::new();
    for k in 0..total {
        let case = &all[rng.below(all.len())];
        // Keep the texts small enough that the edit matters: the first 60 lines.
        let body: String = case.text.lines().skip(1).take(60).collect::<Vec<_>>().join("\n");
        let (text, kind) = mutate(&body, &mut rng);
        jobs.push((k, case.asm_env().to_string(), text, kind, case.name.clone()));
    }
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..2 {
            let (jobs, results, dir, bin) = (&jobs, &results, &dir, &bin);
            s.spawn(move || {
                for (k, env, text, kind, name) in jobs.iter().skip(t).step_by(2) {
                    let p = dir.join(format!("{k}.spvasm"));
                    std::fs::write(&p, text).unwrap();
                    let o = dir.join(format!("{k}.spv"));
                    let (ok, _, err) = run_tool(bin, "spirv-as", &["--target-env", env, p.to_str().unwrap(), "-o", o.to_str().unwrap()]);
                    let opts = AsmOptions { env: TargetEnv::parse(env).unwrap(), preserve_numeric_ids: false };
                    let ours = assemble(text, &opts);
                    let mut same_words = true;
                    if let (true, Ok(w)) = (ok, &ours) {
                        same_words = *w == spvlab_tests::words_of(&std::fs::read(&o).unwrap());
                    }
                    results.lock().unwrap().push((*k, ok, ours.is_ok(), same_words, *kind, name.clone(), err, ours.err()));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    let agree = results.iter().filter(|r| r.1 == r.2 && r.3).count();
    let rejected = results.iter().filter(|r| !r.1).count();
    println!(
        "{test}: {agree}/{} verdicts agree ({:.1}%); reference rejected {rejected}, accepted {}",
        results.len(),
        100.0 * agree as f64 / results.len() as f64,
        results.len() - rejected
    );
    for r in results.iter().filter(|r| !(r.1 == r.2 && r.3)) {
        println!(
            "DISAGREE #{} ({}, {}): reference {} [{}], ours {} {:?}",
            r.0,
            r.4,
            r.5,
            if r.1 { "accepts" } else { "rejects" },
            r.6.trim(),
            if r.2 { "accept" } else { "reject" },
            r.7.as_ref().map(|e| e[0].message.clone())
        );
    }
    assert_eq!(agree, results.len(), "verdicts differ from spirv-as");
}
