//! Running fleshed programs on a backend: one at a time ([`Runner::outcome`]),
//! or many in one batch ([`Runner::judge`]), a batch that goes wrong being
//! split until each finding is one program's own.

use spvlab_core::analysis::Analysis;
use spvlab_core::flesh::{self, Batch, Fleshed, Member, Options, Skeleton};
use spvlab_core::interp::{self, Buffers};
use spvlab_core::plan::{Inputs, Plan, Slot};
use spvlab_core::{TargetEnv, valid};

use crate::cmd::run::backend::{self, Backend, Failure, GpuFlags};

/// What one backend did with one fleshed program.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// It wrote the expected path.
    Pass,
    /// It wrote this instead.
    Wrong(Vec<u32>),
    /// It failed: `class` names how (`interp`, `crash` for a GPU process
    /// that died, or the GPU error's kind), for telling one failure from
    /// another.
    Failed { class: String, message: String },
    /// It refused the program (not a finding).
    Refused,
    /// It cannot run here (no device).
    Unavailable(String),
}

impl Outcome {
    /// A finding's kind: `wrong` or `failed:CLASS`; `None` when no finding.
    pub(crate) fn finding(&self) -> Option<String> {
        match self {
            Outcome::Wrong(_) => Some("wrong".into()),
            Outcome::Failed { class, .. } => Some(format!("failed:{class}")),
            _ => None,
        }
    }

    /// Whether this outcome goes wrong the way a finding recorded it: the
    /// same kind and, for a failure, the same [`signature`] of its message
    /// (naga refusing with another error is another finding).
    pub(crate) fn same_way(&self, kind: &str, signature_of: &str) -> bool {
        self.finding().as_deref() == Some(kind)
            && match self {
                Outcome::Failed { message, .. } => signature(message) == signature_of,
                _ => true,
            }
    }
}

/// What tells one failure's message from another's: its principal line
/// (the last ` = ` note of a rendered naga error, naga's repetition of it
/// dropped), white space collapsed, and every number written `N`, so that
/// ids, sizes and times do not split a class.
pub(crate) fn signature(message: &str) -> String {
    let words: Vec<&str> = message.split_whitespace().collect();
    let start = words.iter().rposition(|w| *w == "=").map_or(0, |i| i + 1);
    let mut tail = &words[start..];
    let half = tail.len() / 2;
    if tail.len().is_multiple_of(2) && half > 0 && tail[..half] == tail[half..] {
        tail = &tail[..half];
    }
    let (mut out, mut in_number) = (String::new(), false);
    for c in tail.join(" ").chars() {
        if !c.is_ascii_digit() {
            out.push(c);
        } else if !in_number {
            out.push('N');
        }
        in_number = c.is_ascii_digit();
    }
    out
}

/// One program of a campaign: its case number and how it was made.
pub(crate) struct Program {
    pub case: u64,
    pub skeleton: Skeleton,
    pub opts: Options,
    pub fleshed: Fleshed,
}

/// A module's analysis and run plan, made once for every backend.
pub(crate) struct Ready {
    analysis: Analysis,
    plan: Plan,
}

/// `text` made ready to run with `buffers` in `workgroups` workgroups; an
/// `Outcome::Failed` when it cannot be (the fleshed program is ours: that
/// is a finding against spvlab).
pub(crate) fn ready(text: &str, buffers: Vec<(Slot, String)>, workgroups: u32) -> Result<Ready, Outcome> {
    let analysis = Analysis::of_text(text, &valid::Options { env: TargetEnv::Spv1_4, ..valid::Options::default() });
    let inputs = Inputs { buffers, workgroups: [workgroups, 1, 1], ..Inputs::default() };
    match Plan::new(&analysis, &inputs) {
        Ok(plan) => Ok(Ready { analysis, plan }),
        Err(e) => Err(Outcome::Failed { class: "plan".into(), message: format!("the fleshed program does not run: {e:?}") }),
    }
}

/// Findings planted for tests (`SPVLAB_FUZZ_TEST`): the interpreter's
/// output for these cases is disturbed (`wrong:CASE`) or its run fails
/// (`fail:CASE`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Planted {
    pub wrong: Vec<u64>,
    pub fail: Vec<u64>,
}

impl Planted {
    /// `result`, the interpreter's output for the programs `parts` (case and
    /// words of the output), with the planted findings among them.
    fn apply(&self, b: Backend, parts: &[(u64, std::ops::Range<usize>)], result: Result<Vec<u32>, Outcome>) -> Result<Vec<u32>, Outcome> {
        if b != Backend::Interp {
            return result;
        }
        let mut out = result?;
        for (case, words) in parts {
            if self.fail.contains(case) {
                return Err(Outcome::Failed { class: "planted".into(), message: format!("a failure planted in case {case}") });
            }
            if self.wrong.contains(case)
                && let Some(w) = out.get_mut(words.start)
            {
                *w ^= 0x8000_0000;
            }
        }
        Ok(out)
    }
}

/// Runs fleshed programs on the backends, keeping one GPU process.
pub(crate) struct Runner {
    pub gpu: GpuFlags,
    pub planted: Planted,
    /// Batches that went wrong while none of their programs does alone.
    pub batch_only: u64,
    #[cfg(feature = "gpu")]
    process: crate::cmd::run::child::GpuProcess,
}

impl Runner {
    pub(crate) fn new(gpu: GpuFlags) -> Runner {
        Runner {
            gpu,
            planted: Planted::default(),
            batch_only: 0,
            #[cfg(feature = "gpu")]
            process: crate::cmd::run::child::GpuProcess::new(),
        }
    }

    /// `f` on backend `b`, against its expected output.
    pub(crate) fn outcome(&mut self, b: Backend, f: &Fleshed) -> Outcome {
        match ready(&f.text, f.buffer_inputs(), 1) {
            Ok(r) => self.single(b, f, &r, None),
            Err(o) => o,
        }
    }

    /// `f`, made ready as `r`, on backend `b`, against its expected output;
    /// `case`: its case in a campaign.
    fn single(&mut self, b: Backend, f: &Fleshed, r: &Ready, case: Option<u64>) -> Outcome {
        let parts: Vec<_> = case.into_iter().map(|c| (c, 0..f.expected.len())).collect();
        let out = self.output(b, r, 1);
        match self.planted.apply(b, &parts, out) {
            Ok(actual) if actual == f.expected => Outcome::Pass,
            Ok(actual) => Outcome::Wrong(actual),
            Err(o) => o,
        }
    }

    /// The output buffer (binding 0.1) after `r` runs on backend `b`, or
    /// how it did not run; `programs`: how many programs it holds (a GPU
    /// dispatch of a batch may take that much longer).
    fn output(&mut self, b: Backend, r: &Ready, programs: usize) -> Result<Vec<u32>, Outcome> {
        let (a, plan) = (&r.analysis, &r.plan);
        let result: Result<Buffers, Failure> = match b {
            Backend::Interp => {
                let mut bufs = plan.buffers.clone();
                interp::run(&plan.ir, &plan.options, &mut bufs).map(|_| bufs).map_err(|err| Failure::Interp {
                    unsupported: false,
                    text: a.run_error_message(&err),
                    error: serde_json::Value::Null,
                })
            }
            #[cfg(feature = "gpu")]
            Backend::Gpu(g) => {
                let mut flags = self.gpu.clone();
                flags.timeout += flags.timeout.mul_f64(programs.saturating_sub(1) as f64 / 32.0);
                backend::run_gpu(&flags, g, plan, "fleshed", &mut self.process)
            }
        };
        let _ = programs;
        match result {
            Ok(bufs) => Ok(words(bufs.get(&(0, 1)).map_or(&[][..], |v| v))),
            Err(Failure::NoDevice { message, .. }) => Err(Outcome::Unavailable(message)),
            Err(e) if e.is_refusal() => Err(Outcome::Refused),
            #[cfg(feature = "gpu")]
            Err(Failure::Gpu(e)) if e.crashed => Err(Outcome::Failed { class: "crash".into(), message: e.to_string() }),
            Err(e) => Err(Outcome::Failed { class: e.class().into(), message: e.to_string() }),
        }
    }

    /// Each of `programs` (made ready as `prepared`) on backend `b`, as one
    /// batch when there are several: a batch that writes every path passes
    /// them all; where some programs' slices of the output are wrong, those
    /// run again; a batch that fails, hangs or is refused is split in
    /// halves, down to single programs, each run as itself. Gives each
    /// program's outcome, in order.
    pub(crate) fn judge(&mut self, b: Backend, programs: &[&Program], prepared: &Prepared) -> Vec<Outcome> {
        let (outcomes, went_wrong) = self.attribute(b, programs, Some(prepared));
        if went_wrong && programs.len() > 1 && outcomes.iter().all(|o| matches!(o, Outcome::Pass)) {
            self.batch_only += 1;
            let cases: Vec<u64> = programs.iter().map(|p| p.case).collect();
            eprintln!("spvlab fuzz: {} went wrong on a batch of the cases {cases:?}, and on none of them alone", b.name());
        }
        outcomes
    }

    /// [`Runner::judge`]'s outcomes, and whether the first run (the batch,
    /// or the one program) went wrong.
    fn attribute(&mut self, b: Backend, programs: &[&Program], prepared: Option<&Prepared>) -> (Vec<Outcome>, bool) {
        let made;
        let prepared = match prepared {
            Some(p) => p,
            None => {
                made = Prepared::of(programs);
                &made
            }
        };
        let Some(batch) = &prepared.batch else {
            let o = match (&prepared.ready, programs) {
                (Ok(r), [p]) => self.single(b, &p.fleshed, r, Some(p.case)),
                (Err(o), _) => o.clone(),
                (Ok(_), _) => Outcome::Pass,
            };
            let wrong = !matches!(o, Outcome::Pass);
            return (vec![o; programs.len()], wrong);
        };
        let parts: Vec<_> = programs.iter().map(|p| p.case).zip(batch.outputs.iter().cloned()).collect();
        let out = match &prepared.ready {
            Ok(r) => self.output(b, r, programs.len()),
            Err(o) => Err(o.clone()),
        };
        match self.planted.apply(b, &parts, out) {
            Ok(actual) => {
                let wrong = batch.wrong(&actual);
                let mut outcomes = vec![Outcome::Pass; programs.len()];
                for &k in &wrong {
                    outcomes[k] = self.attribute(b, &programs[k..=k], None).0.remove(0);
                }
                (outcomes, !wrong.is_empty())
            }
            Err(Outcome::Unavailable(m)) => (vec![Outcome::Unavailable(m); programs.len()], false),
            Err(_) => {
                let (left, right) = programs.split_at(programs.len() / 2);
                let mut outcomes = self.attribute(b, left, None).0;
                outcomes.extend(self.attribute(b, right, None).0);
                (outcomes, true)
            }
        }
    }
}

/// Programs made ready to run, once for every backend: one program as
/// itself, several as a batch.
pub(crate) struct Prepared {
    batch: Option<Batch>,
    ready: Result<Ready, Outcome>,
}

impl Prepared {
    /// `programs` (at least one) made ready.
    pub(crate) fn of(programs: &[&Program]) -> Prepared {
        if let [p] = programs {
            return Prepared { batch: None, ready: ready(&p.fleshed.text, p.fleshed.buffer_inputs(), 1) };
        }
        let members: Vec<Member> = programs.iter().map(|p| Member { skeleton: &p.skeleton, opts: &p.opts, program: &p.fleshed }).collect();
        let batch = flesh::batch(&members);
        let ready = ready(&batch.text, batch.buffer_inputs(), batch.workgroups);
        Prepared { batch: Some(batch), ready }
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}
