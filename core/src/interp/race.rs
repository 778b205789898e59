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

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The epoch's top bit marks an atomic access.
const ATOMIC: u32 = 1 << 31;

/// One access: 0 in `epoch` for none.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
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

#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
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
    #[inline(always)]
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

/// The records of four bytes of a buffer (one aligned word): one for all
/// four while they are the same (a word accessed whole, the common case),
/// else one per byte. The same as a record per byte, in less time and space.
#[derive(Clone)]
enum Word {
    Whole(Cell),
    Bytes(Box<[Cell; 4]>),
}

/// The shadow memory of a run.
pub(super) struct Races {
    epoch: u32,
    wg_start: u32,
    /// The running invocation (its index in the run: workgroup, then local).
    pub inv: u32,
    bufs: Vec<Vec<Word>>,
    /// Per Workgroup variable, its components' records by path (looked up
    /// by slice: no allocation but for a path met the first time).
    shared: BTreeMap<u32, BTreeMap<Vec<u32>, Cell>>,
}

/// Buffers bigger than this are not watched for races (their shadow would
/// take about 10 times their size).
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
    #[inline(always)]
    pub fn buffer(
        &mut self,
        buf: u32,
        len: usize,
        off: u64,
        n: u64,
        inst: u32,
        kind: Kind,
    ) -> Result<(), Found> {
        // The common case first: one aligned word, inside the buffer, whose
        // bytes hold one record (what the loop below does for it).
        if n == 4 && off & 3 == 0 && len <= MAX_WATCHED && off.saturating_add(4) <= len as u64 {
            let clock = self.clock();
            if let Some(Word::Whole(c)) = self.bufs.get_mut(buf as usize).and_then(|s| s.get_mut((off / 4) as usize)) {
                return match clock.access(c, inst, kind) {
                    None => Ok(()),
                    Some((first, first_wrote)) => Err(Found {
                        first,
                        first_wrote,
                        byte: off,
                        path: Vec::new(),
                    }),
                };
            }
        }
        self.buffer_walk(buf, len, off, n, inst, kind)
    }

    /// [`Races::buffer`] for any bytes (out of line: the shortcut above is
    /// inlined into its callers).
    #[inline(never)]
    fn buffer_walk(
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
        let words = len.div_ceil(4);
        if shadow.len() < words {
            shadow.resize(words, Word::Whole(Cell::default()));
        }
        let end = off.saturating_add(n).min(len as u64);
        let found = |first: Acc, first_wrote: bool, byte: u64| Found {
            first,
            first_wrote,
            byte,
            path: Vec::new(),
        };
        let mut b = off;
        while b < end {
            let start = b & !3;
            let Some(word) = shadow.get_mut((b / 4) as usize) else { break };
            if b == start && end >= start + 4 {
                // The whole word: once when its bytes hold the same record.
                match word {
                    Word::Whole(c) => {
                        if let Some((f, w)) = clock.access(c, inst, kind) {
                            return Err(found(f, w, b));
                        }
                    }
                    Word::Bytes(cells) => {
                        for (k, c) in cells.iter_mut().enumerate() {
                            if let Some((f, w)) = clock.access(c, inst, kind) {
                                return Err(found(f, w, b + k as u64));
                            }
                        }
                        let c0 = cells[0];
                        if cells.iter().all(|c| *c == c0) {
                            *word = Word::Whole(c0);
                        }
                    }
                }
                b += 4;
            } else {
                // Part of the word: byte by byte.
                let stop = end.min(start + 4);
                let cells = match word {
                    Word::Bytes(cells) => cells,
                    Word::Whole(c) => {
                        *word = Word::Bytes(Box::new([*c; 4]));
                        match word {
                            Word::Bytes(cells) => cells,
                            Word::Whole(_) => return Ok(()),
                        }
                    }
                };
                for x in b..stop {
                    if let Some((f, w)) = clock.access(&mut cells[(x - start) as usize], inst, kind) {
                        return Err(found(f, w, x));
                    }
                }
                b = stop;
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
        let cells = shared.entry(var).or_default();
        for k in 0..path.len() {
            if let Some(c) = cells.get(&path[..k]) {
                check(c, path)?;
            }
        }
        use core::ops::Bound;
        for (p, c) in cells.range::<[u32], _>((Bound::Included(path), Bound::Unbounded)) {
            if !p.starts_with(path) {
                break;
            }
            check(c, p)?;
        }
        let c = match cells.get_mut(path) {
            Some(c) => c,
            None => cells.entry(path.to_vec()).or_default(),
        };
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

#[cfg(test)]
mod word_tests {
    use super::*;

    /// A race is found at the byte where two accesses meet, whether the
    /// bytes' records are held per word or per byte.
    #[test]
    fn words_and_bytes_meet_at_the_byte() {
        let mut r = Races::new(1);
        r.workgroup(None);
        r.inv = 0;
        // Byte 6 written alone, then the word 4..8 read whole by another.
        assert!(r.buffer(0, 16, 6, 1, 10, Kind::Write).is_ok());
        r.inv = 1;
        let f = r.buffer(0, 16, 4, 4, 11, Kind::Read).expect_err("a race");
        assert_eq!((f.byte, f.first.inv, f.first.inst, f.first_wrote), (6, 0, 10, true));
        // A whole word written, then one byte of it read by another.
        r.inv = 2;
        assert!(r.buffer(0, 16, 8, 4, 12, Kind::Write).is_ok());
        r.inv = 3;
        let f = r.buffer(0, 16, 9, 1, 13, Kind::Read).expect_err("a race");
        assert_eq!((f.byte, f.first.inv), (9, 2));
        // Two words written across a boundary at an odd offset.
        r.inv = 4;
        assert!(r.buffer(0, 16, 13, 2, 14, Kind::Write).is_ok());
        r.inv = 5;
        let f = r.buffer(0, 16, 12, 4, 15, Kind::AtomicRead).expect_err("a race");
        assert_eq!(f.byte, 13);
        // After a barrier, no race.
        r.barrier();
        assert!(r.buffer(0, 16, 0, 16, 16, Kind::Write).is_ok());
    }

    /// Whole aligned words (the shortcut in `Races::buffer`): atomics by two
    /// invocations never race, a plain read after another's atomic write
    /// does, at the word's first byte; the last word of a buffer whose
    /// length is not a multiple of four is walked byte by byte.
    #[test]
    fn whole_words_race_as_bytes_do() {
        let mut r = Races::new(1);
        r.workgroup(None);
        r.inv = 0;
        assert!(r.buffer(0, 14, 8, 4, 20, Kind::AtomicUpdate).is_ok());
        assert!(r.buffer(0, 14, 8, 4, 20, Kind::AtomicWrite).is_ok());
        r.inv = 1;
        assert!(r.buffer(0, 14, 8, 4, 21, Kind::AtomicUpdate).is_ok());
        assert!(r.buffer(0, 14, 8, 4, 21, Kind::AtomicWrite).is_ok());
        r.inv = 2;
        let f = r.buffer(0, 14, 8, 4, 22, Kind::Read).expect_err("a race");
        assert_eq!((f.byte, f.first.inv, f.first.inst, f.first_wrote), (8, 1, 21, true));
        // Bytes 12..14: past the end for a word of four.
        r.inv = 3;
        assert!(r.buffer(0, 14, 12, 4, 23, Kind::Write).is_ok());
        r.inv = 4;
        let f = r.buffer(0, 14, 13, 1, 24, Kind::Read).expect_err("a race");
        assert_eq!((f.byte, f.first.inv), (13, 3));
        // The writer itself: no race with itself.
        r.inv = 1;
        assert!(r.buffer(0, 14, 8, 4, 25, Kind::Read).is_ok());
        // After a barrier, a plain write of the word races with nothing.
        r.barrier();
        r.inv = 0;
        assert!(r.buffer(0, 14, 8, 4, 26, Kind::Write).is_ok());
    }
}
