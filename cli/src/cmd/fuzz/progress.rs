//! A campaign's counts, its progress on stderr, its state on disk (for
//! `--resume`) and its closing table of findings.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::runner::Outcome;
use crate::error::CliError;

/// The kinds of finding in the closing table, as a finding's class maps to
/// them (`Outcome::Failed`'s class).
pub(crate) const KINDS: [&str; 6] = ["mismatch", "crash", "hang", "device lost", "refused", "other"];

/// The column of [`KINDS`] for a finding.
fn kind(o: &Outcome) -> Option<usize> {
    match o {
        Outcome::Wrong(_) => Some(0),
        Outcome::Failed { class, .. } => Some(match class.as_str() {
            "crash" => 1,
            "timeout" => 2,
            "deviceLost" => 3,
            // wgpu (naga's front end) rejected a valid module.
            "validation" => 4,
            _ => 5,
        }),
        _ => None,
    }
}

/// What one backend did with the cases.
#[derive(Default, Clone)]
pub(crate) struct Tally {
    /// Seconds spent running the programs.
    pub secs: f64,
    pub passed: u64,
    pub wrong: u64,
    pub failed: u64,
    /// Refused by our lowering (no finding).
    pub refused: u64,
    /// Findings per kind of [`KINDS`].
    pub kinds: [u64; 6],
    /// Why the backend did not run (no device), once.
    pub unavailable: Option<String>,
}

impl Tally {
    /// Counts `o`; whether it is a finding.
    pub(crate) fn count(&mut self, o: &Outcome) -> bool {
        match o {
            Outcome::Pass => self.passed += 1,
            Outcome::Wrong(_) => self.wrong += 1,
            Outcome::Failed { .. } => self.failed += 1,
            Outcome::Refused => self.refused += 1,
            Outcome::Unavailable(m) => self.unavailable = Some(m.clone()),
        }
        match kind(o) {
            Some(k) => {
                self.kinds[k] += 1;
                true
            }
            None => false,
        }
    }

    fn data(&self) -> Value {
        json!({
            "secs": self.secs, "passed": self.passed, "wrong": self.wrong, "failed": self.failed,
            "refused": self.refused, "kinds": self.kinds, "unavailable": self.unavailable,
        })
    }

    fn of_data(v: &Value) -> Option<Tally> {
        let n = |k: &str| v.get(k).and_then(Value::as_u64);
        let mut kinds = [0u64; 6];
        for (slot, k) in kinds.iter_mut().zip(v.get("kinds")?.as_array()?) {
            *slot = k.as_u64()?;
        }
        Some(Tally {
            secs: v.get("secs")?.as_f64()?,
            passed: n("passed")?,
            wrong: n("wrong")?,
            failed: n("failed")?,
            refused: n("refused")?,
            kinds,
            unavailable: v.get("unavailable").and_then(Value::as_str).map(String::from),
        })
    }
}

/// How far a campaign got: written to `progress.json` under `--out` after
/// each batch (atomically: a new file renamed over the old), read back by
/// `--resume`.
#[derive(Clone, Default)]
pub(crate) struct State {
    /// The campaign's parameters (a resumed campaign must have the same).
    pub params: Value,
    /// The next case to run: every case before it in the shard is done.
    pub next: u64,
    pub cases: u64,
    /// The paths the programs follow (one per invocation).
    pub paths: u64,
    pub no_exit: u64,
    pub findings: u64,
    pub batch_only: u64,
    /// Seconds spent making programs and batches, and planning them.
    pub making: f64,
    pub planning: f64,
    /// The wall time of the runs so far, before this one.
    pub wall: f64,
    pub tallies: Vec<Tally>,
}

impl State {
    pub(crate) fn file(out: &Path) -> PathBuf {
        out.join("progress.json")
    }

    /// Saves the state under `out`, `secs` of this run's wall time added.
    pub(crate) fn save(&self, out: &Path, secs: f64) -> Result<(), CliError> {
        let data = json!({
            "params": self.params, "next": self.next, "cases": self.cases, "paths": self.paths, "noExit": self.no_exit,
            "findings": self.findings, "batchOnly": self.batch_only, "making": self.making,
            "planning": self.planning, "wall": self.wall + secs,
            "tallies": self.tallies.iter().map(Tally::data).collect::<Vec<_>>(),
        });
        let path = State::file(out);
        let tmp = out.join("progress.json.tmp");
        let err = |err| CliError::Write { path: path.clone(), err };
        std::fs::create_dir_all(out).map_err(err)?;
        std::fs::write(&tmp, format!("{data}\n")).map_err(err)?;
        std::fs::rename(&tmp, &path).map_err(err)
    }

    /// The state saved under `out`, if it is one of the campaign with
    /// `params`; else why not.
    pub(crate) fn load(out: &Path, params: &Value) -> Result<State, String> {
        let path = State::file(out);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        if v.get("params") != Some(params) {
            return Err(format!(
                "{} is of another campaign ({}); this one is {params}",
                path.display(),
                v.get("params").unwrap_or(&Value::Null)
            ));
        }
        let bad = || format!("{} lacks a field or has one of the wrong type", path.display());
        let n = |k: &str| v.get(k).and_then(Value::as_u64).ok_or_else(bad);
        let f = |k: &str| v.get(k).and_then(Value::as_f64).ok_or_else(bad);
        let tallies = v.get("tallies").and_then(Value::as_array).ok_or_else(bad)?;
        Ok(State {
            params: params.clone(),
            next: n("next")?,
            cases: n("cases")?,
            paths: n("paths")?,
            no_exit: n("noExit")?,
            findings: n("findings")?,
            batch_only: n("batchOnly")?,
            making: f("making")?,
            planning: f("planning")?,
            wall: f("wall")?,
            tallies: tallies.iter().map(Tally::of_data).collect::<Option<Vec<_>>>().ok_or_else(bad)?,
        })
    }
}

/// The progress on stderr: a bar with the throughput redrawn in place when
/// stderr is a terminal, else a plain line every few seconds.
pub(crate) struct Meter {
    total: u64,
    start: Instant,
    last: Option<Instant>,
    terminal: bool,
}

impl Meter {
    pub(crate) fn new(total: u64) -> Meter {
        Meter { total, start: Instant::now(), last: None, terminal: std::io::stderr().is_terminal() }
    }

    /// `done` of the cases run (`before` of them by an earlier run), with
    /// `findings` so far; `last`: the campaign is over.
    pub(crate) fn show(&mut self, done: u64, before: u64, findings: u64, last: bool) {
        let every = if self.terminal { Duration::from_millis(200) } else { Duration::from_secs(5) };
        if !last && self.last.is_some_and(|t| t.elapsed() < every) {
            return;
        }
        if last && !self.terminal && self.last.is_none() {
            return;
        }
        self.last = Some(Instant::now());
        let secs = self.start.elapsed().as_secs_f64();
        let rate = (done - before) as f64 / secs.max(1e-9);
        let left = if rate > 0.0 { (self.total.saturating_sub(done)) as f64 / rate } else { 0.0 };
        let text = format!(
            "{done}/{} cases, {rate:.1}/s, {findings} findings, {:.0} s gone, about {left:.0} s left",
            self.total, secs
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            const WIDTH: u64 = 30;
            let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH) as usize;
            let bar = format!("{}{}", "#".repeat(filled), "-".repeat(WIDTH as usize - filled.min(WIDTH as usize)));
            write!(err, "\r[{bar}] {text}\x1b[K{}", if last { "\n" } else { "" })
        } else {
            writeln!(err, "spvlab fuzz: {text}")
        };
    }
}

/// The closing table: findings per backend and kind.
pub(crate) fn table(names: &[&str], tallies: &[Tally]) -> String {
    let mut t = format!("  {:<17}", "findings");
    for k in KINDS {
        t.push_str(&format!(" {k:>11}"));
    }
    t.push('\n');
    for (name, tally) in names.iter().zip(tallies) {
        t.push_str(&format!("  {name:<17}"));
        for n in tally.kinds {
            t.push_str(&format!(" {n:>11}"));
        }
        t.push('\n');
    }
    t
}
