//! Every graphics Amber test of the corpus (`amber/*/index.json`,
//! `pipeline_kind` graphics, with EXPECT lines) read by `amber::parse_with`:
//! each parses, is "graphics: not run" (geometry or tessellation), or fails
//! to parse with a message (printed, grouped). At least [`MUST_PARSE`]
//! parse, and each parsed script then runs on an executor that draws
//! nothing, so the runner's graphics path meets every script (GLSL shaders
//! precompiled from the corpus's cases); nothing panics.

use spvlab_core::amber::{self, Dispatch, DrawJob, ExecError, Executor, RunOptions};
use spvlab_core::interp::Buffers;
use spvlab_core::raster::Framebuffer;
use spvlab_tests::amber::{graphics_cases, parse_case_text, precompiled};
use spvlab_tests::corpus_or_skip;
use std::collections::BTreeMap;

/// The number that parse today; it may only go up.
const MUST_PARSE: usize = 843;

/// Runs nothing: dispatches and draws leave their buffers as they are.
struct Nothing {
    draws: usize,
}

impl Executor for Nothing {
    fn dispatch(&mut self, _: &Dispatch, _: &mut Buffers) -> Result<(), ExecError> {
        Ok(())
    }

    fn draw(&mut self, job: &DrawJob, fb: &mut Framebuffer, _: &mut Buffers) -> Result<(), ExecError> {
        assert_eq!(fb.size(), Some(job.pipeline.state.framebuffer), "the attachments have the framebuffer's size");
        self.draws += 1;
        Ok(())
    }
}

/// A message without its position and the names in backquotes, for
/// grouping.
fn cause(m: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in m.chars() {
        if c == '`' {
            quoted = !quoted;
            if quoted {
                out.push_str("`…`");
            }
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

#[test]
fn graphics_amber_tests_parse() {
    let Some(corpus) = corpus_or_skip("amber_graphics") else { return };
    let cases = graphics_cases(&corpus);
    assert!(cases.len() >= 880, "the corpus has {} graphics Amber tests", cases.len());
    let (mut parsed, mut not_run, mut ran, mut draws) = (0, 0, 0, 0);
    let mut failed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut run_errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in &cases {
        let text = std::fs::read_to_string(corpus.join(&c.amber)).expect("read the script");
        match parse_case_text(&corpus, c, &text) {
            Ok(script) => {
                parsed += 1;
                let opts = RunOptions { shaders: precompiled(&corpus, c), ..RunOptions::default() };
                let mut e = Nothing { draws: 0 };
                match amber::run_on(&script, &opts, &mut e) {
                    Ok(_) => ran += 1,
                    Err(err) => run_errors.entry(cause(&err.message)).or_default().push(format!("{}: {err}", c.amber)),
                }
                draws += e.draws;
            }
            Err(e) if e.is_graphics() => not_run += 1,
            Err(e) => failed.entry(cause(&e.message)).or_default().push(format!("{}: {e}", c.amber)),
        }
    }
    for (cause, names) in &failed {
        println!("parse {:4}  {cause}  (e.g. {})", names.len(), names[0]);
    }
    for (cause, names) in &run_errors {
        println!("run   {:4}  {cause}  (e.g. {})", names.len(), names[0]);
    }
    let failures: usize = failed.values().map(Vec::len).sum();
    println!(
        "amber_graphics: {} scripts: {parsed} parse ({ran} run through on a drawless executor, {draws} draws), {not_run} graphics: not run, {failures} fail to parse",
        cases.len()
    );
    assert_eq!(parsed + not_run + failures, cases.len());
    assert!(parsed >= MUST_PARSE, "{parsed} parse, fewer than {MUST_PARSE}");
}
