//! Data races: two accesses to the same bytes of a buffer or of Workgroup
//! memory (the same component of a Workgroup variable held as a value) by two
//! invocations, at least one a write, not both atomic, and not ordered by an
//! OpControlBarrier of their workgroup (accesses of two workgroups are never
//! ordered: no barrier spans workgroups).
//!
//! Time is counted in epochs: one begins at each workgroup's start and after
//! each barrier. An access records (invocation, instruction, epoch); two
//! accesses are ordered when the invocation is the same, or both belong to
//! one workgroup and their epochs differ. Per byte (per component path of a
//! Workgroup value) it keeps the last write and up to two reads by different
//! invocations since then, which is enough to find a race with any later
//! access if there is one.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The epoch's top bit marks an atomic access.
const ATOMIC: u32 = 1 << 31;

/// One access: 0 in `epoch` for none.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Acc {
    pub inv: u32,
    pub inst: u32,
    epoch: u32,
}

impl Acc {
    pub fn atomic(&self) -> bool {
        self.epoch & ATOMIC != 0
    }
    fn epoch(&self) -> u32 {
        self.epoch & !ATOMIC
    }
}

#[derive(Clone, Copy, Default, Debug)]
struct Cell {
    w: Acc,
    r1: Acc,
    r2: Acc,
}

/// What one access does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Read,
    Write,
    AtomicRead,
    AtomicWrite,
    /// The read of an atomic read-modify-write: checked as an atomic read,
    /// not recorded (the write that follows at once replaces the record).
    AtomicUpdate,
}

impl Kind {
    fn writes(self) -> bool {
        matches!(self, Kind::Write | Kind::AtomicWrite)
    }
    fn atomic(self) -> bool {
        matches!(self, Kind::AtomicRead | Kind::AtomicWrite | Kind::AtomicUpdate)
    }
}

/// A race found: the earlier access and whether it wrote, then the current.
#[derive(Debug)]
pub(super) struct Found {
    pub first: Acc,
    pub first_wrote: bool,
    /// The byte offset (buffers) at which the two accesses meet.
    pub byte: u64,
    /// The component path (Workgroup values) at which they meet.
    pub path: Vec<u32>,
}

/// Where the running invocation stands in time (see [`Races`]).
#[derive(Clone, Copy)]
struct Clock {
    epoch: u32,
    wg_start: u32,
    inv: u32,
}

impl Clock {
    /// Whether `a` may race with an access of the running invocation now.
    #[inline]
    fn unordered(&self, a: &Acc) -> bool {
        a.epoch() != 0
            && a.inv != self.inv
            && (a.epoch() == self.epoch || a.epoch() < self.wg_start)
    }

    #[inline]
    fn now(&self, inst: u32, kind: Kind) -> Acc {
        Acc {
            inv: self.inv,
            inst,
            epoch: self.epoch | if kind.atomic() { ATOMIC } else { 0 },
        }
    }

    /// Check `cell` against an access, then record it.
    #[inline]
    fn access(&self, cell: &mut Cell, inst: u32, kind: Kind) -> Option<(Acc, bool)> {
        let conflicts = |a: &Acc| self.unordered(a) && !(a.atomic() && kind.atomic());
        if conflicts(&cell.w) {
            return Some((cell.w, true));
        }
        if kind == Kind::AtomicUpdate {
            return None;
        }
        let now = self.now(inst, kind);
        if kind.writes() {
            for r in [cell.r1, cell.r2] {
                if conflicts(&r) {
                    return Some((r, false));
                }
            }
            *cell = Cell {
                w: now,
                ..Cell::default()
            };
        } else {
            // Keep reads by two invocations: a later write by either of
            // them still meets the other's.
            let stale = |a: &Acc| a.epoch() == 0 || a.inv == self.inv || !self.unordered(a);
            if stale(&cell.r1) {
                cell.r1 = now;
            } else if stale(&cell.r2) {
                cell.r2 = now;
            } else {
                cell.r1 = now;
            }
        }
        None
    }
}

/// The shadow memory of a run.
pub(super) struct Races {
    epoch: u32,
    wg_start: u32,
    /// The running invocation (its index in the run: workgroup, then local).
    pub inv: u32,
    bufs: Vec<Vec<Cell>>,
    shared: BTreeMap<(u32, Vec<u32>), Cell>,
}

/// Buffers bigger than this are not watched for races (their shadow would
/// take 12 times their size).
const MAX_WATCHED: usize = 1 << 26;

impl Races {
    pub fn new(nbufs: usize) -> Races {
        Races {
            epoch: 0,
            wg_start: 0,
            inv: 0,
            bufs: (0..nbufs).map(|_| Vec::new()).collect(),
            shared: BTreeMap::new(),
        }
    }

    /// A workgroup starts: its Workgroup memory is new (`wg_buf`: the
    /// explicitly laid out one, if any).
    pub fn workgroup(&mut self, wg_buf: Option<usize>) {
        self.next_epoch();
        self.wg_start = self.epoch;
        if let Some(b) = wg_buf.and_then(|b| self.bufs.get_mut(b)) {
            b.clear();
        }
    }

    /// The invocations of the workgroup went on from a barrier.
    pub fn barrier(&mut self) {
        self.next_epoch();
    }

    fn next_epoch(&mut self) {
        self.epoch = (self.epoch + 1).min(ATOMIC - 1);
        self.shared.clear();
    }

    /// The clock of the running invocation (copied out, so that the shadow
    /// can be borrowed at the same time).
    fn clock(&self) -> Clock {
        Clock {
            epoch: self.epoch,
            wg_start: self.wg_start,
            inv: self.inv,
        }
    }

    /// An access to bytes `off..off + n` of buffer `buf` (of `len` bytes).
    pub fn buffer(
        &mut self,
        buf: u32,
        len: usize,
        off: u64,
        n: u64,
        inst: u32,
        kind: Kind,
    ) -> Result<(), Found> {
        if len > MAX_WATCHED {
            return Ok(());
        }
        let clock = self.clock();
        let Some(shadow) = self.bufs.get_mut(buf as usize) else {
            return Ok(());
        };
        if shadow.len() < len {
            shadow.resize(len, Cell::default());
        }
        let end = off.saturating_add(n).min(len as u64);
        if off >= end {
            return Ok(());
        }
        for (b, cell) in (off..end).zip(&mut shadow[off as usize..end as usize]) {
            if let Some((first, first_wrote)) = clock.access(cell, inst, kind) {
                return Err(Found {
                    first,
                    first_wrote,
                    byte: b,
                    path: Vec::new(),
                });
            }
        }
        Ok(())
    }

    /// An access to Workgroup variable `var` at component `path` (the whole
    /// of what is there).
    pub fn shared(&mut self, var: u32, path: &[u32], inst: u32, kind: Kind) -> Result<(), Found> {
        let clock = self.clock();
        let shared = &mut self.shared;
        // What overlaps: an access to a part that holds this one (a prefix
        // of the path) or to a part of it (a path it is a prefix of).
        let check = |cell: &Cell, at: &[u32]| -> Result<(), Found> {
            let mut c = *cell;
            match clock.access(&mut c, inst, kind) {
                Some((first, first_wrote)) => Err(Found {
                    first,
                    first_wrote,
                    byte: 0,
                    path: at.to_vec(),
                }),
                None => Ok(()),
            }
        };
        for k in 0..path.len() {
            if let Some(c) = shared.get(&(var, path[..k].to_vec())) {
                check(c, path)?;
            }
        }
        let key = (var, path.to_vec());
        for ((v, p), c) in shared.range(key.clone()..) {
            if *v != var || !p.starts_with(path) {
                break;
            }
            check(c, p)?;
        }
        let c = shared.entry(key).or_default();
        clock.access(c, inst, kind).map_or(Ok(()), |(first, first_wrote)| {
            Err(Found {
                first,
                first_wrote,
                byte: 0,
                path: path.to_vec(),
            })
        })
    }
}
