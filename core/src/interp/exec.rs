//! Execution: invocations one after another, each a stack of frames over the
//! decoded functions.

use crate::interp::error::Feature;
use super::mem::BufKey;
use super::program::{Block, Func, G, Handler, Inst, NONE, OP_BAD_CONST, OP_CONST_PTR, Program};
use super::mem::{Loc, MAX_RUN_VALUES, MemErr, Ptr, Val, at, at_mut, bytes_at, load_scalar, map1, put_bytes, read_buf, scalar, scalar_bytes, spans, step, undef, val_count, value_count, write_buf};
use super::num::{fget, fput, mask, sext};
use super::trace::{Gather, Rec};
use super::race::{Found, Kind, Races};
use super::error::{BufferRef, Indexed, RaceAccess, RaceSite, RunErrorKind};
use super::ops::arith::{self, check_float, comps};
use super::ops::atomic;
use super::{Buffers, Options, RunError, RunStats};
use crate::grammar::class::Atomic;
use crate::grammar::{built_in as bi, op};
use crate::ir::Type;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub(super) mod ext;
pub(super) mod stage;

/// The deepest call stack.
const MAX_DEPTH: usize = 1024;

struct Frame {
    f: u32,
    pc: u32,
    block: u32,
    regs: Vec<Val>,
    /// The caller's slot for the returned value.
    ret: u32,
    /// The per-invocation memory's length at the call (Function variables
    /// above it are this frame's).
    mem_base: u32,
}

struct State<'b> {
    /// The running invocation's memory (Private, Input, then Function).
    mem: Vec<Val>,
    /// The workgroup's memory.
    shared: Vec<Val>,
    bufs: &'b mut [Option<Vec<u8>>],
    /// Scalar components of memory the workgroup holds (see `MAX_RUN_VALUES`).
    used: u64,
    /// The shadow memory that finds data races.
    races: Races,
    /// Whether to look for data races: not when the module orders accesses
    /// through atomics with acquire or release semantics (which this
    /// interpreter does not follow).
    watch: bool,
    /// Per buffer, whether a store or atomic of the module may write it
    /// (see [`written_bufs`]): a read of one that none can write never
    /// races, so it is not recorded.
    written: Vec<bool>,
    /// The dispatch grid and the workgroup size (to name an invocation).
    groups: [u32; 3],
    local_size: [u32; 3],
    /// The frames of calls that returned, kept for later calls (their
    /// registers' allocations).
    pool: Vec<Frame>,
    /// The running invocation is a helper invocation (a fragment lane not
    /// covered, or demoted): its stores, atomics and image writes to
    /// buffers and images have no effect (Vulkan's "Helper Invocations");
    /// an atomic gives the value in memory.
    helper: bool,
}

impl State<'_> {
    /// Count `n` more components of memory; an error past the budget.
    fn hold(&mut self, n: u64, inst: Option<u32>) -> Result<(), RunError> {
        self.used = self.used.saturating_add(n);
        if self.used > MAX_RUN_VALUES {
            return Err(RunError::of(inst, RunErrorKind::TooMuchMemory { limit: MAX_RUN_VALUES as u64 }));
        }
        Ok(())
    }
}

pub(super) fn run(
    prog: &Program,
    opts: &Options,
    buffers: &mut Buffers,
) -> Result<RunStats, RunError> {
    let mut bufs: Vec<Option<Vec<u8>>> = prog
        .bufs
        .iter()
        .map(|k| match k {
            BufKey::Binding(s, b) => buffers.remove(&(*s, *b)),
            BufKey::PushConstant => opts.push_constants.clone(),
            BufKey::Workgroup => None,
        })
        .collect();
    let r = run_grid(prog, opts, &mut bufs);
    for (k, b) in prog.bufs.iter().zip(bufs) {
        if let (BufKey::Binding(s, bd), Some(b)) = (k, b) {
            buffers.insert((*s, *bd), b);
        }
    }
    r
}

/// Where an invocation stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Running,
    /// Waiting at the OpControlBarrier with this index.
    Barrier(u32),
    /// Waiting before the group instruction with this index.
    Group(u32),
    Done,
}

/// The subgroup size of a run: the option, else the workgroup (at most 128).
pub(super) fn subgroup_size(prog: &Program, opts: &Options) -> u32 {
    let [lx, ly, lz] = prog.local_size;
    let n = lx.saturating_mul(ly).saturating_mul(lz);
    // A kernel: each invocation its own subgroup, unless the option says.
    let n = if prog.kernel { 1 } else { n.min(128) };
    opts.subgroup_size.unwrap_or(n).max(1)
}

/// One invocation of a workgroup, between its turns.
struct Invocation {
    /// Its index in the run (workgroup by workgroup, then local index).
    lin: u32,
    gid: [u32; 3],
    frames: Vec<Frame>,
    mem: Vec<Val>,
    steps: u64,
    status: Status,
    /// What it records of its path (`None`: tracing is off).
    rec: Option<Box<Rec>>,
}

fn located_at(mut e: RunError, gid: [u32; 3]) -> RunError {
    e.invocation = Some(gid);
    e
}

/// Run the grid, one workgroup after another. The invocations of a workgroup
/// take turns: each runs until it returns or reaches an OpControlBarrier;
/// when every one waits at the same barrier, they all go on.
fn run_grid(
    prog: &Program,
    opts: &Options,
    bufs: &mut [Option<Vec<u8>>],
) -> Result<RunStats, RunError> {
    let [lx, ly, lz] = prog.local_size;
    let [nx, ny, nz] = opts.workgroups;
    let sg = subgroup_size(prog, opts);
    let mut stats = RunStats::default();
    let mut gather = (opts.trace != super::Trace::Off).then(Gather::default);
    let mut st = State {
        mem: Vec::new(),
        shared: Vec::new(),
        races: Races::new(bufs.len()),
        watch: !synchronizes(prog),
        written: written_bufs(prog),
        bufs,
        used: 0,
        groups: opts.workgroups,
        local_size: prog.local_size,
        pool: Vec::new(),
        helper: false,
    };
    let wg_buf = prog.bufs.iter().position(|k| *k == BufKey::Workgroup);
    let wg_invs = (lx as u64).saturating_mul(ly as u64).saturating_mul(lz as u64);
    let private_values = prog.private_init.iter().map(val_count).fold(0u64, u64::saturating_add);
    let shared_values = prog.shared_init.iter().map(val_count).fold(0u64, u64::saturating_add);
    let mut invs: Vec<Invocation> = Vec::new();
    let one_by_one = opts.seed.is_none() && opts.trace == super::Trace::Off && straight(prog);
    for wz in 0..nz {
        for wy in 0..ny {
            for wx in 0..nx {
                let wg = [wx, wy, wz];
                st.used = 0;
                st.hold(shared_values, None)?;
                st.shared.clear();
                st.shared.extend_from_slice(&prog.shared_init);
                if let Some(k) = wg_buf {
                    st.bufs[k] = Some(vec![0u8; prog.wg_bytes as usize]);
                }
                st.races.workgroup(wg_buf);
                let wg_lin = (wz as u64 * ny as u64 + wy as u64) * nx as u64 + wx as u64;
                if one_by_one {
                    // Without a seed, the scheduler below lets the first
                    // running invocation run until it returns or waits; with
                    // no barrier and no group instruction none ever waits,
                    // so it runs invocation after invocation, each to its
                    // end, in local index order. This does the same with one
                    // invocation's state: the same instructions in the same
                    // order, on the same memory, so the same results, errors
                    // and races. The memory budget counts every invocation's
                    // Private values before any runs, as there (a sum, so
                    // one check gives the same verdict), and an unsupported
                    // built-in fails the first invocation's set-up, as there.
                    st.hold(private_values.saturating_mul(wg_invs), None)?;
                    if invs.is_empty() {
                        invs.push(Invocation {
                            lin: 0,
                            gid: [0; 3],
                            frames: Vec::new(),
                            mem: Vec::new(),
                            steps: 0,
                            status: Status::Running,
                            rec: None,
                        });
                    }
                    let inv = &mut invs[0];
                    let mut k = 0u64;
                    for z in 0..lz {
                        for y in 0..ly {
                            for x in 0..lx {
                                let gid = [wx * lx + x, wy * ly + y, wz * lz + z];
                                setup(prog, opts, inv, wg, [x, y, z], gid, (wg_lin * wg_invs + k) as u32)?;
                                k += 1;
                                turn(prog, opts, &mut st, inv, opts.max_steps)?;
                                stats.steps += inv.steps;
                                stats.invocations += 1;
                            }
                        }
                    }
                    continue;
                }
                // The invocations of the last workgroup are set up again in
                // place: their memory, frames and registers keep their
                // allocations (no allocation per invocation after the first
                // workgroup).
                let mut slot = 0usize;
                for z in 0..lz {
                    for y in 0..ly {
                        for x in 0..lx {
                            let local = [x, y, z];
                            let gid = [wx * lx + x, wy * ly + y, wz * lz + z];
                            st.hold(private_values, None)?;
                            if slot == invs.len() {
                                invs.push(Invocation {
                                    lin: 0,
                                    gid,
                                    frames: Vec::new(),
                                    mem: Vec::new(),
                                    steps: 0,
                                    status: Status::Running,
                                    rec: None,
                                });
                            }
                            let k = (z as u64 * ly as u64 + y as u64) * lx as u64 + x as u64;
                            setup(prog, opts, &mut invs[slot], wg, local, gid, (wg_lin * wg_invs + k) as u32)?;
                            slot += 1;
                        }
                    }
                }
                invs.truncate(slot);
                let mut rng = opts.seed.map(|s| {
                    SplitMix(s ^ (((wz as u64) << 42) | ((wy as u64) << 21) | wx as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                });
                // The workgroup's run; on an error, the paths recorded so far
                // go with it.
                let outcome = (|| -> Result<(), RunError> {
                    loop {
                        match &mut rng {
                            None => {
                                for inv in invs.iter_mut().filter(|i| i.status == Status::Running) {
                                    turn(prog, opts, &mut st, inv, opts.max_steps)?;
                                }
                            }
                            Some(rng) => loop {
                                // A running invocation picked at random runs 1
                                // to 8 instructions, until none is running.
                                let running = invs.iter().filter(|i| i.status == Status::Running).count();
                                if running == 0 {
                                    break;
                                }
                                let pick = (rng.next() % running as u64) as usize;
                                let quantum = 1 + rng.next() % 8;
                                if let Some(inv) = invs.iter_mut().filter(|i| i.status == Status::Running).nth(pick) {
                                    let stop = inv.steps.saturating_add(quantum).min(opts.max_steps);
                                    turn(prog, opts, &mut st, inv, stop)?;
                                }
                            },
                        }
                        // Group instructions first: in each subgroup, the one
                        // earliest in the module among those its invocations wait
                        // at runs for all that wait there (the others wait on:
                        // they reach it later, or reconverge with them after it).
                        if run_groups(prog, &mut invs, sg)? {
                            continue;
                        }
                        let Some(waiting) = invs.iter().find_map(|i| match i.status {
                            Status::Barrier(b) => Some((i.gid, b)),
                            _ => None,
                        }) else {
                            break;
                        };
                        for i in &invs {
                            let other_returned = match i.status {
                                Status::Done => Some(true),
                                Status::Barrier(b) if b != waiting.1 => Some(false),
                                _ => None,
                            };
                            if let Some(other_returned) = other_returned {
                                let kind = RunErrorKind::DivergentBarrier { waiting: waiting.0, other: i.gid, other_returned };
                                let mut e = RunError::of(Some(waiting.1), kind);
                                e.invocation = Some(waiting.0);
                                return Err(e);
                            }
                        }
                        for i in invs.iter_mut() {
                            i.status = Status::Running;
                        }
                        st.races.barrier();
                    }
                    Ok(())
                })();
                if let Err(mut e) = outcome {
                    if let Some(mut g) = gather.take() {
                        for i in invs {
                            if let Some(r) = i.rec {
                                g.add(i.gid, *r);
                            }
                        }
                        e.trace = Some(Box::new(g.report(prog)));
                    }
                    return Err(e);
                }
                for i in invs.iter_mut() {
                    stats.steps += i.steps;
                    stats.invocations += 1;
                    if let (Some(g), Some(r)) = (&mut gather, i.rec.take()) {
                        g.add(i.gid, *r);
                    }
                }
            }
        }
    }
    stats.trace = gather.map(|g| g.report(prog));
    Ok(stats)
}

/// Set invocation `inv` up (in place, keeping its allocations) as the one at
/// `local` of workgroup `wg`, with index `lin` in the run.
fn setup(
    prog: &Program,
    opts: &Options,
    inv: &mut Invocation,
    wg: [u32; 3],
    local: [u32; 3],
    gid: [u32; 3],
    lin: u32,
) -> Result<(), RunError> {
    let mem = &mut inv.mem;
    if prog.private_init.is_empty() {
        // (Not a call to drop nothing: the memory is usually empty here.)
        if !mem.is_empty() {
            mem.clear();
        }
    } else {
        mem.clone_from(&prog.private_init);
    }
    for b in &prog.builtins {
        let v = builtin_value(prog, opts, b.builtin, wg, local, gid)
            .ok_or_else(|| {
                let mut e = RunError::of(None, RunErrorKind::UnsupportedBuiltIn { built_in: b.builtin });
                e.invocation = Some(gid);
                e
            })?;
        if let Some(slot) = mem.get_mut(b.var as usize) {
            shape_into(prog, b.ty, v, slot);
        }
    }
    let base = mem.len() as u32;
    if opts.trace == super::Trace::Off {
        inv.rec = None;
    } else {
        let mut rec = super::trace::Rec::new(&opts.trace, gid);
        if let Some(r) = &mut rec {
            r.enter(prog.entry, 0);
        }
        inv.rec = rec;
    }
    // The entry point's frame stays after it returns (see `invoke`): the
    // next invocation set up in this one's place keeps its registers'
    // allocation.
    if inv.frames.len() > 1 {
        inv.frames.truncate(1);
    }
    match inv.frames.first_mut() {
        Some(frame) => reset_frame(prog, frame, prog.entry, NONE, base),
        None => inv.frames.push(new_frame(prog, prog.entry, NONE, base)),
    }
    // A kernel's parameters (see `kernel`).
    if !prog.entry_args.is_empty() {
        let frame = &mut inv.frames[0];
        for (&p, v) in prog.funcs[prog.entry as usize].params.iter().zip(&prog.entry_args) {
            if let Some(slot) = frame.regs.get_mut(p as usize) {
                *slot = v.clone();
            }
        }
    }
    inv.lin = lin;
    inv.gid = gid;
    inv.steps = 0;
    inv.status = Status::Running;
    Ok(())
}

/// Whether no invocation can ever wait for another: no function has an
/// OpControlBarrier or a group instruction (derivatives are not run in
/// compute). Then an unseeded run's scheduler runs each invocation to its
/// end in its turn (see `run_grid`).
fn straight(prog: &Program) -> bool {
    prog.funcs.iter().all(|f| {
        f.insts.iter().all(|i| i.op != op::OpControlBarrier && !super::ops::group::waits(i.op))
    })
}

/// Whether an atomic instruction of the module has acquire or release
/// semantics (Acquire, Release, AcquireRelease or SequentiallyConsistent):
/// then non-atomic accesses may be ordered through it (message passing),
/// across invocations and workgroups, and races are not looked for.
fn synchronizes(prog: &Program) -> bool {
    const ORDERING: u64 = 0x2 | 0x4 | 0x8 | 0x10;
    prog.funcs.iter().any(|f| {
        f.insts.iter().any(|i| {
            let sems: &[usize] = match atomic::class_of(i.op) {
                // The flag instructions are not run (`exec` gives
                // NotSupported): no ordering through them is seen.
                Some(Atomic::FlagTestAndSet | Atomic::FlagClear) | None => &[],
                Some(a) => atomic::semantics_operands(a),
            };
            let args = &f.args[i.a as usize..(i.a + i.n) as usize];
            sems.iter().any(|&k| match args.get(k).map(|&s| get(prog, &[], s)) {
                Some(Val::Scalar(x)) => x & ORDERING != 0,
                _ => false,
            })
        })
    })
}

/// Per buffer of `prog.bufs`, whether an instruction of the module may write
/// it: the pointer of each store, atomic, OpCopyMemory target and GLSL
/// out-pointer is followed through access chains and copies to the global
/// variable it starts at. A pointer that starts anywhere else (a function
/// parameter, an OpPhi, OpSelect, a loaded pointer) may be any buffer, so
/// then every buffer counts as written.
fn written_bufs(prog: &Program) -> Vec<bool> {
    let n = prog.bufs.len();
    let mut w = vec![false; n];
    for f in &prog.funcs {
        let mut def = vec![u32::MAX; f.nlocals as usize];
        for (k, i) in f.insts.iter().enumerate() {
            if let Some(d) = def.get_mut(i.res as usize) {
                *d = k as u32;
            }
        }
        let args = |i: &Inst| &f.args[i.a as usize..(i.a + i.n) as usize];
        for i in &f.insts {
            let target = match i.op {
                op::OpStore | op::OpCopyMemory | op::OpCopyMemorySized => args(i).first(),
                o if atomic::class_of(o).is_some_and(atomic::writes) => args(i).first(),
                op::OpExtInst if args(i).get(1).is_some_and(|&e| super::ops::glsl::has_out_pointer(e)) => args(i).get(3),
                _ => None,
            };
            let Some(&slot) = target else { continue };
            if !mark_root(prog, f, &def, slot, &mut w) {
                return vec![true; n];
            }
        }
    }
    w
}

/// Mark in `w` the buffers that the pointer in `slot` may point into; false
/// when where it starts is not known.
fn mark_root(prog: &Program, f: &Func, def: &[u32], mut slot: u32, w: &mut [bool]) -> bool {
    fn locs(l: &Loc, w: &mut [bool]) -> bool {
        match l {
            Loc::Buf { buf, .. } | Loc::Image { buf, .. } => match w.get_mut(*buf as usize) {
                Some(x) => {
                    *x = true;
                    true
                }
                None => false,
            },
            Loc::Var { .. } | Loc::Shared { .. } | Loc::Sampler { .. } | Loc::Unsupported(_) => true,
            Loc::Descs(ls) => ls.iter().all(|l| locs(l, w)),
        }
    }
    // Each step goes to an earlier instruction's result (or a global): at
    // most as many steps as instructions.
    for _ in 0..=f.insts.len() {
        if slot & G != 0 {
            return match prog.globals.get((slot & !G) as usize) {
                Some(Val::Pointer(p)) => locs(&p.loc, w),
                // Not a pointer (an OpUndef, a constant): no memory written.
                Some(_) => true,
                None => false,
            };
        }
        let Some(i) = def.get(slot as usize).and_then(|&k| f.insts.get(k as usize)) else { return false };
        let a = &f.args[i.a as usize..(i.a + i.n) as usize];
        let base = match i.op {
            op::OpVariable => return true,
            op::OpAccessChain
            | op::OpInBoundsAccessChain
            | op::OpPtrAccessChain
            | op::OpInBoundsPtrAccessChain
            | op::OpCopyObject
            | OP_CONST_PTR => a.first(),
            _ => None,
        };
        match base {
            Some(&b) => slot = b,
            None => return false,
        }
    }
    false
}

/// SplitMix64 (Steele, Lea and Flood): the pseudo-random order of a seeded run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// One turn of an invocation: it runs until it returns, waits, or has run
/// `stop` instructions in all (then it is still running).
fn turn(prog: &Program, opts: &Options, st: &mut State, inv: &mut Invocation, stop: u64) -> Result<(), RunError> {
    core::mem::swap(&mut st.mem, &mut inv.mem);
    st.races.inv = inv.lin;
    let rec = inv.rec.as_deref_mut();
    let r = if opts.specialize {
        invoke::<true>(prog, opts, st, &mut inv.frames, &mut inv.steps, stop, rec)
    } else {
        invoke::<false>(prog, opts, st, &mut inv.frames, &mut inv.steps, stop, rec)
    };
    core::mem::swap(&mut st.mem, &mut inv.mem);
    inv.status = r.map_err(|e| located_at(e, inv.gid))?;
    Ok(())
}

/// Run the group instructions that invocations wait at, if any: per
/// subgroup, the earliest in the module, for every invocation of the subgroup
/// waiting there (the active ones). Whether any ran.
fn run_groups(prog: &Program, invs: &mut [Invocation], sg: u32) -> Result<bool, RunError> {
    let mut first: alloc::collections::BTreeMap<u32, u32> = alloc::collections::BTreeMap::new();
    for (k, inv) in invs.iter().enumerate() {
        if let Status::Group(idx) = inv.status {
            let e = first.entry(k as u32 / sg).or_insert(idx);
            *e = (*e).min(idx);
        }
    }
    for (&s, &idx) in &first {
        let ks: Vec<usize> = (0..invs.len())
            .filter(|&k| k as u32 / sg == s && invs[k].status == Status::Group(idx))
            .collect();
        let Some(fr) = invs[ks[0]].frames.last() else {
            continue;
        };
        let func = &prog.funcs[fr.f as usize];
        let inst = &func.insts[fr.pc as usize];
        let members: Vec<super::ops::group::Member> = ks
            .iter()
            .map(|&k| super::ops::group::Member {
                id: k as u32 % sg,
                regs: invs[k].frames.last().map_or(&[][..], |f| &f.regs[..]),
            })
            .collect();
        let results = super::ops::group::run(prog, func, inst, &members).map_err(|kind| {
            let mut e = RunError::of(Some(inst.idx), kind);
            e.invocation = Some(invs[ks[0]].gid);
            e
        })?;
        let res = inst.res;
        for (&k, v) in ks.iter().zip(results) {
            let inv = &mut invs[k];
            inv.steps += 1;
            if let Some(fr) = inv.frames.last_mut() {
                if let Some(slot) = fr.regs.get_mut(res as usize) {
                    *slot = v;
                }
                fr.pc += 1;
            }
            inv.status = Status::Running;
        }
    }
    Ok(!first.is_empty())
}

fn builtin_value(
    prog: &Program,
    opts: &Options,
    b: u32,
    wg: [u32; 3],
    local: [u32; 3],
    gid: [u32; 3],
) -> Option<[u32; 3]> {
    let [lx, ly, _] = prog.local_size;
    Some(match b {
        bi::GlobalInvocationId => gid,
        bi::LocalInvocationId => local,
        bi::WorkgroupId => wg,
        bi::NumWorkgroups => opts.workgroups,
        bi::WorkgroupSize => prog.local_size,
        bi::LocalInvocationIndex => {
            let i = local[2] * lx * ly + local[1] * lx + local[0];
            [i, i, i]
        }
        bi::SubgroupSize | bi::SubgroupLocalInvocationId | bi::SubgroupId | bi::NumSubgroups => {
            let s = subgroup_size(prog, opts);
            let i = local[2] * lx * ly + local[1] * lx + local[0];
            let [_, _, lz] = prog.local_size;
            let v = match b {
                bi::SubgroupSize => s,
                bi::SubgroupLocalInvocationId => i % s,
                bi::SubgroupId => i / s,
                _ => (lx * ly * lz).div_ceil(s),
            };
            [v, v, v]
        }
        _ => return ext::kernel_builtin(b, opts.workgroups, prog.local_size, gid),
    })
}

/// [`shape`] into `slot`, reusing its vector's allocation when it has one of
/// the right length.
fn shape_into(prog: &Program, ty: u32, v: [u32; 3], slot: &mut Val) {
    if let (Some(Type::Vector { count, .. }), Val::Composite(items)) = (prog.ir.ty(ty).map(|t| &t.ty), &mut *slot)
        && items.len() == *count as usize
    {
        for (k, item) in items.iter_mut().enumerate() {
            *item = Val::Scalar(v.get(k).copied().unwrap_or(0) as u64);
        }
        return;
    }
    *slot = shape(prog, ty, v);
}

/// A built-in's value in the shape of its type: a vector takes the first
/// components, a scalar the first.
fn shape(prog: &Program, ty: u32, v: [u32; 3]) -> Val {
    match prog.ir.ty(ty).map(|t| &t.ty) {
        Some(Type::Vector { count, .. }) => Val::Composite(
            (0..*count as usize)
                .map(|k| Val::Scalar(v.get(k).copied().unwrap_or(0) as u64))
                .collect(),
        ),
        _ => Val::Scalar(v[0] as u64),
    }
}

/// What an operand that names no value reads as (only in invalid modules).
static NO_VAL: Val = Val::Scalar(0);

/// The value an operand names: a global's (`s` with bit [`G`]) or a
/// register's. Inlined into the run loop's hottest arms; the missing case is
/// marked cold, so that the compiler keeps it a branch never taken rather
/// than a select computed on every read.
#[inline(always)]
fn get<'v>(prog: &'v Program, regs: &'v [Val], s: u32) -> &'v Val {
    let (vals, k) = if s & G != 0 { (&prog.globals[..], (s & !G) as usize) } else { (regs, s as usize) };
    if k < vals.len() {
        &vals[k]
    } else {
        core::hint::cold_path();
        &NO_VAL
    }
}

fn literal_path<'v>(v: &'v Val, path: &[u32]) -> Result<&'v Val, RunErrorKind> {
    at(v, path).ok_or_else(|| RunErrorKind::IndexOutOfBounds { into: Indexed::Literal, index: None, len: None })
}

/// What the step did to the frames.
enum Flow {
    Next,
    /// A branch taken from the block with this index (the frame is in the
    /// block branched to).
    Jump(u32),
    Call(Frame),
    Return(Option<Val>),
    /// At an OpControlBarrier: wait for the rest of the workgroup.
    Barrier,
}

fn located(inst: &Inst) -> impl Fn(RunErrorKind) -> RunError + '_ {
    move |kind| RunError::of(Some(inst.idx), kind)
}

/// The buffer with index `buf` in the program, as errors name it.
fn buffer_ref(prog: &Program, buf: u32) -> BufferRef {
    match prog.bufs.get(buf as usize) {
        Some(BufKey::Binding(set, binding)) => BufferRef::Binding { set: *set, binding: *binding },
        Some(BufKey::Workgroup) => BufferRef::Workgroup,
        _ => BufferRef::PushConstants,
    }
}

fn mem_err(prog: &Program, inst: &Inst, buf: u32, e: MemErr) -> RunError {
    let kind = match e {
        MemErr::Fault(kind) => kind,
        MemErr::Oob(offset, bytes) => RunErrorKind::OutOfBounds { buffer: buffer_ref(prog, buf), offset, bytes },
        MemErr::Undef(byte) => RunErrorKind::UndefinedStore { buffer: buffer_ref(prog, buf), byte },
    };
    RunError::of(Some(inst.idx), kind)
}

/// What a load read: a value memory holds as values (borrowed), or one
/// made from bytes.
enum Loaded<'m> {
    Held(&'m Val),
    Made(Val),
}

impl Loaded<'_> {
    fn into_val(self) -> Val {
        match self {
            Loaded::Held(v) => v.clone(),
            Loaded::Made(v) => v,
        }
    }

    /// Into `slot`, keeping its allocation where it can.
    #[inline(always)]
    fn put(self, slot: &mut Val) {
        match self {
            Loaded::Held(&Val::Scalar(x)) | Loaded::Made(Val::Scalar(x)) => put_s(slot, x),
            Loaded::Held(v) => slot.clone_from(v),
            Loaded::Made(v) => put(slot, v),
        }
    }
}

/// A load (`kind`: plain, atomic, or the read of a read-modify-write)
/// through `p`, of the type `p` points to.
fn load<'m>(prog: &Program, st: &'m mut State, inst: &Inst, p: &Ptr, kind: Kind) -> Result<Loaded<'m>, RunError> {
    match &p.loc {
        Loc::Var { var, path } => st.mem.get(*var as usize).and_then(|v| at(v, path)).map(Loaded::Held).ok_or_else(|| gone(inst, false)),
        Loc::Shared { var, path } => {
            watch_shared(prog, st, inst, *var, path, kind)?;
            st.shared.get(*var as usize).and_then(|v| at(v, path)).map(Loaded::Held).ok_or_else(|| gone(inst, false))
        }
        Loc::Buf {
            buf,
            off,
            vstride,
            mat,
        } => {
            let bytes = st
                .bufs
                .get(*buf as usize)
                .and_then(|b| b.as_deref())
                .ok_or_else(|| no_buffer(prog, inst, *buf))?;
            // A scalar, the common case: one look at its type.
            if let Some(t) = prog.ir.ty(p.ty).map(|t| &t.ty)
                && let (Some(n), Some(v)) = (scalar_bytes(t), load_scalar(t, bytes, *off))
            {
                let v = v.map_err(|e| mem_err(prog, inst, *buf, e))?;
                watch_scalar(prog, st, inst, *buf, *off, n, kind)?;
                return Ok(Loaded::Made(Val::Scalar(v)));
            }
            let v = read_buf(prog.ir, bytes, p.ty, *off, *vstride, *mat)
                .map_err(|e| mem_err(prog, inst, *buf, e))?;
            watch_buf(prog, st, inst, *buf, p, kind)?;
            Ok(Loaded::Made(v))
        }
        Loc::Unsupported(kind) => Err(RunError::of(Some(inst.idx), (**kind).clone())),
        // A descriptor loads as a handle: the pointer itself.
        Loc::Image { .. } | Loc::Sampler { .. } | Loc::Descs(_) => Ok(Loaded::Made(Val::Pointer(p.clone()))),
    }
}

fn gone(inst: &Inst, store: bool) -> RunError {
    RunError::of(Some(inst.idx), RunErrorKind::MemoryGone { store })
}

/// A store (`kind`: plain or atomic) of `v` through `p`, of the type `p`
/// points to.
fn store(prog: &Program, st: &mut State, inst: &Inst, p: &Ptr, v: &Val, kind: Kind) -> Result<(), RunError> {
    match &p.loc {
        Loc::Var { var, path } => {
            let slot = st.mem.get_mut(*var as usize).and_then(|m| at_mut(m, path)).ok_or_else(|| gone(inst, true))?;
            match (slot, v) {
                (Val::Scalar(d), Val::Scalar(x)) => *d = *x,
                (d, v) => d.clone_from(v),
            }
            Ok(())
        }
        Loc::Shared { var, path } => {
            // A plain store of the value already there changes nothing that
            // any order could show: it races with nothing.
            let same = kind == Kind::Write && st.shared.get(*var as usize).and_then(|m| at(m, path)) == Some(v);
            if !same {
                watch_shared(prog, st, inst, *var, path, kind)?;
            }
            let slot = st.shared.get_mut(*var as usize).and_then(|m| at_mut(m, path)).ok_or_else(|| gone(inst, true))?;
            slot.clone_from(v);
            Ok(())
        }
        Loc::Buf { .. } if st.helper => Ok(()),
        Loc::Buf {
            buf,
            off,
            vstride,
            mat,
        } => {
            let bytes = st
                .bufs
                .get_mut(*buf as usize)
                .and_then(|b| b.as_deref_mut())
                .ok_or_else(|| no_buffer(prog, inst, *buf))?;
            // A scalar, the common case: its bytes, without the walks below
            // (the same bytes, the same errors).
            if let (Some(t), Val::Scalar(x)) = (prog.ir.ty(p.ty).map(|t| &t.ty), v)
                && let Some(n) = scalar_bytes(t)
            {
                let boolean = matches!(t, Type::Bool);
                // As above: storing the bytes already there races with nothing.
                let same = kind == Kind::Write
                    && st.watch
                    && bytes_at(bytes, *off, n).is_ok_and(|old| (if boolean { (old != 0) as u64 } else { old }) == *x);
                put_bytes(bytes, *off, n, *x).map_err(|e| mem_err(prog, inst, *buf, e))?;
                if same {
                    return Ok(());
                }
                return watch_scalar(prog, st, inst, *buf, *off, n, kind);
            }
            // As above: storing the bytes already there races with nothing.
            let same = kind == Kind::Write
                && st.watch
                && read_buf(prog.ir, bytes, p.ty, *off, *vstride, *mat).is_ok_and(|old| old == *v);
            let undef_ok = prog.bufs.get(*buf as usize) == Some(&BufKey::Workgroup);
            write_buf(prog.ir, bytes, p.ty, *off, *vstride, *mat, v, undef_ok)
                .map_err(|e| mem_err(prog, inst, *buf, e))?;
            if same {
                return Ok(());
            }
            watch_buf(prog, st, inst, *buf, p, kind)
        }
        Loc::Unsupported(kind) => Err(RunError::of(Some(inst.idx), (**kind).clone())),
        Loc::Image { .. } | Loc::Sampler { .. } | Loc::Descs(_) => Err(RunError::of(Some(inst.idx), RunErrorKind::StoreToDescriptor)),
    }
}

/// Index `k` of an access chain, clamped into the composite `p` points to
/// ([`super::Options::robust_access`]): struct member numbers are left alone.
fn clamp_index(prog: &Program, st: &State, inst: &Inst, k: usize, p: &Ptr, i: u64) -> u64 {
    let ir = prog.ir;
    let Some(t) = ir.ty(p.ty) else { return i };
    let n = match &t.ty {
        Type::Vector { count, .. } => *count as u64,
        Type::Matrix { columns, .. } => *columns as u64,
        Type::Array { len: Some(n), .. } => *n,
        Type::RuntimeArray { .. } => match (&p.loc, t.array_stride) {
            (Loc::Buf { buf, off, .. }, Some(stride)) if stride > 0 => {
                let size = st.bufs.get(*buf as usize).and_then(|b| b.as_ref()).map_or(0, |b| b.len() as u64);
                size.saturating_sub(*off) / stride as u64
            }
            _ => return i,
        },
        _ => return i,
    };
    let last = n.saturating_sub(1);
    // The index's type: the operand after the result type, result id and base.
    let id = ir.operand_words(inst.idx as usize, 3 + k).first().copied().unwrap_or(0);
    match ir.type_of(id).and_then(|t| ir.ty(t)).map(|t| &t.ty) {
        Some(&Type::Int { width, signed: true }) => sext(i, width).clamp(0, last as i64) as u64,
        _ => i.min(last),
    }
}

/// Record an access to Workgroup variable `var` at `path`; a data race is an error.
fn watch_shared(prog: &Program, st: &mut State, inst: &Inst, var: u32, path: &[u32], kind: Kind) -> Result<(), RunError> {
    if !st.watch {
        return Ok(());
    }
    st.races.shared(var, path, inst.idx, kind).map_err(|f| {
        let id = prog.shared_ids.get(var as usize).copied().unwrap_or(0);
        let site = RaceSite::Variable { id, name: prog.ir.name(id).map(String::from), path: f.path.clone() };
        race_error(st, inst, kind, f, site)
    })
}

/// Whether an access of `kind` to buffer `buf` is recorded: races are
/// watched, and a read only of a buffer that something writes (reads of a
/// buffer that nothing writes are free).
#[inline(always)]
fn watched(st: &State, buf: u32, kind: Kind) -> bool {
    let reads = matches!(kind, Kind::Read | Kind::AtomicRead | Kind::AtomicUpdate);
    st.watch && (!reads || st.written.get(buf as usize).copied().unwrap_or(true))
}

/// Record an access (the scalars, after it succeeded) to buffer `buf` through `p`.
fn watch_buf(prog: &Program, st: &mut State, inst: &Inst, buf: u32, p: &Ptr, kind: Kind) -> Result<(), RunError> {
    let Loc::Buf { off, vstride, mat, .. } = &p.loc else { return Ok(()) };
    if let Some(n) = prog.ir.ty(p.ty).and_then(|t| scalar_bytes(&t.ty)) {
        return watch_scalar(prog, st, inst, buf, *off, n, kind);
    }
    if !watched(st, buf, kind) {
        return Ok(());
    }
    let len = st.bufs.get(buf as usize).and_then(|b| b.as_ref()).map_or(0, |b| b.len());
    let races = &mut st.races;
    let mut found = None;
    let r = spans(prog.ir, p.ty, *off, *vstride, *mat, &mut |o, n| {
        if let Err(f) = races.buffer(buf, len, o, n, inst.idx, kind) {
            found = Some(f);
            return Err(MemErr::Fault(RunErrorKind::Killed));
        }
        Ok(())
    });
    match found {
        Some(f) => Err(buf_race(prog, st, inst, buf, kind, f)),
        None => r.map_err(|e| mem_err(prog, inst, buf, e)),
    }
}

/// Record an access to the `n` bytes of a scalar at `off` in buffer `buf`.
#[inline(always)]
fn watch_scalar(prog: &Program, st: &mut State, inst: &Inst, buf: u32, off: u64, n: u64, kind: Kind) -> Result<(), RunError> {
    if !watched(st, buf, kind) {
        return Ok(());
    }
    let len = st.bufs.get(buf as usize).and_then(|b| b.as_ref()).map_or(0, |b| b.len());
    match st.races.buffer(buf, len, off, n, inst.idx, kind) {
        Ok(()) => Ok(()),
        Err(f) => Err(buf_race(prog, st, inst, buf, kind, f)),
    }
}

/// The error for race `f` on buffer `buf` (out of line: the hot path above
/// stays small).
#[cold]
#[inline(never)]
fn buf_race(prog: &Program, st: &State, inst: &Inst, buf: u32, kind: Kind, f: Found) -> RunError {
    let site = RaceSite::Buffer { buffer: buffer_ref(prog, buf), byte: f.byte as u64 };
    race_error(st, inst, kind, f, site)
}

/// The global invocation id of the invocation with index `lin` in the run.
fn gid_of(st: &State, lin: u32) -> [u32; 3] {
    let [lx, ly, lz] = st.local_size;
    let [nx, ny, _] = st.groups;
    let per = (lx * ly * lz).max(1);
    let (w, k) = (lin / per, lin % per);
    let (wx, wy, wz) = (w % nx.max(1), (w / nx.max(1)) % ny.max(1), w / (nx.max(1) * ny.max(1)));
    let (x, y, z) = (k % lx, (k / lx) % ly, k / (lx * ly));
    [wx * lx + x, wy * ly + y, wz * lz + z]
}

fn race_error(st: &State, inst: &Inst, kind: Kind, f: Found, site: RaceSite) -> RunError {
    let first = RaceAccess {
        invocation: gid_of(st, f.first.inv),
        inst: f.first.inst,
        wrote: f.first_wrote,
        atomic: f.first.atomic(),
    };
    let second = RaceAccess {
        invocation: gid_of(st, st.races.inv),
        inst: inst.idx,
        wrote: matches!(kind, Kind::Write | Kind::AtomicWrite),
        atomic: matches!(kind, Kind::AtomicRead | Kind::AtomicWrite | Kind::AtomicUpdate),
    };
    let mut e = RunError::of(Some(inst.idx), RunErrorKind::DataRace { site, first, second });
    e.invocation = Some(second.invocation);
    e.related = vec![f.first.inst, inst.idx];
    e
}

fn no_buffer(prog: &Program, inst: &Inst, buf: u32) -> RunError {
    RunError::of(Some(inst.idx), RunErrorKind::NoBuffer { buffer: buffer_ref(prog, buf) })
}

fn pointer<'v>(v: &'v Val, inst: &Inst) -> Result<&'v Ptr, RunError> {
    match v {
        Val::Pointer(p) => Ok(p),
        _ => Err(RunError::of(Some(inst.idx), RunErrorKind::PointerExpected)),
    }
}

fn new_frame(prog: &Program, f: u32, ret: u32, mem_base: u32) -> Frame {
    let func = &prog.funcs[f as usize];
    Frame {
        f,
        pc: func.blocks.first().map_or(0, |b| b.body),
        block: 0,
        regs: vec![Val::Scalar(0); func.nlocals as usize],
        ret,
        mem_base,
    }
}

/// Set `fr` up as [`new_frame`] does, keeping its registers' allocation.
fn reset_frame(prog: &Program, fr: &mut Frame, f: u32, ret: u32, mem_base: u32) {
    let func = &prog.funcs[f as usize];
    fr.f = f;
    fr.pc = func.blocks.first().map_or(0, |b| b.body);
    fr.block = 0;
    // One pass over the registers when their number is the same (a scalar
    // written over needs no drop), else a refill; none when every register
    // is written before it is read (`Func::defined`: what they hold now is
    // never read, and their vectors' allocations are reused), the entry
    // point's parameters all given.
    let n = func.nlocals as usize;
    let keep = func.defined && (f != prog.entry || prog.entry_args.len() >= func.params.len());
    if fr.regs.len() == n {
        if !keep {
            for r in &mut fr.regs {
                put(r, Val::Scalar(0));
            }
        }
    } else {
        fr.regs.clear();
        fr.regs.resize(n, Val::Scalar(0));
    }
    fr.ret = ret;
    fr.mem_base = mem_base;
}

/// Branch to block `b`: run its phis (all read before any is written).
#[inline(always)]
fn goto(prog: &Program, func: &Func, fr: &mut Frame, b: u32, inst: &Inst) -> Result<(), RunError> {
    if try_goto(prog, func, fr, b) {
        Ok(())
    } else {
        Err(goto_error(prog, func, fr, b, inst))
    }
}

/// [`goto`], or `false` when it cannot be taken (a block outside the
/// function, an OpPhi without a value for the block control came from);
/// then nothing changed.
#[inline(always)]
fn try_goto(prog: &Program, func: &Func, fr: &mut Frame, b: u32) -> bool {
    let Some(blk) = func.blocks.get(b as usize) else { return false };
    if blk.phis < blk.body && !run_phis(prog, func, fr, blk) {
        return false;
    }
    fr.block = b;
    fr.pc = blk.body;
    true
}

/// The value each OpPhi takes from the block control came from.
fn phi_value<'v>(prog: &'v Program, func: &Func, regs: &'v [Val], from: u32, phi: &Inst) -> Option<&'v Val> {
    let args = func.args.get(phi.a as usize..phi.a as usize + phi.n as usize)?;
    args.chunks_exact(2).find(|p| p[1] == from).map(|p| get(prog, regs, p[0]))
}

/// The phis of block `blk`, all read before any is written (an OpPhi may
/// read another of the block's); `false` (nothing written) when one has no
/// value for the block control came from.
fn run_phis(prog: &Program, func: &Func, fr: &mut Frame, blk: &Block) -> bool {
    let Some(phis) = func.insts.get(blk.phis as usize..blk.body as usize) else { return false };
    // Up to 4 defined scalars on the stack (the common case), else a Vec.
    const FEW: usize = 4;
    if phis.len() <= FEW {
        let mut bits = [0u64; FEW];
        let mut all = true;
        for (k, phi) in phis.iter().enumerate() {
            match phi_value(prog, func, &fr.regs, fr.block, phi) {
                Some(Val::Scalar(x)) => bits[k] = *x,
                Some(_) => {
                    all = false;
                    break;
                }
                None => return false,
            }
        }
        if all {
            for (phi, x) in phis.iter().zip(bits) {
                if let Some(slot) = fr.regs.get_mut(phi.res as usize) {
                    put_s(slot, x);
                }
            }
            return true;
        }
    }
    let mut vals = Vec::with_capacity(phis.len());
    for phi in phis {
        match phi_value(prog, func, &fr.regs, fr.block, phi) {
            Some(v) => vals.push((phi.res, v.clone())),
            None => return false,
        }
    }
    for (r, v) in vals {
        if let Some(slot) = fr.regs.get_mut(r as usize) {
            put(slot, v);
        }
    }
    true
}

/// The error of a [`goto`] that [`try_goto`] could not take.
#[cold]
#[inline(never)]
fn goto_error(prog: &Program, func: &Func, fr: &Frame, b: u32, inst: &Inst) -> RunError {
    let Some(blk) = func.blocks.get(b as usize) else {
        return RunError::of(Some(inst.idx), RunErrorKind::BranchOutside);
    };
    let phis = func.insts.get(blk.phis as usize..blk.body as usize).unwrap_or(&[]);
    let idx = phis
        .iter()
        .find(|phi| phi_value(prog, func, &fr.regs, fr.block, phi).is_none())
        .map_or(inst.idx, |phi| phi.idx);
    RunError::of(Some(idx), RunErrorKind::PhiWithoutValue)
}

/// Run one invocation until it returns (`Done`), waits at an OpControlBarrier
/// or a group instruction, or has run `stop` instructions in all (`Running`,
/// the end of a turn in a seeded order; `stop` is at most the step budget).
#[allow(clippy::too_many_arguments)]
fn invoke<const SPECIALIZE: bool>(
    prog: &Program,
    opts: &Options,
    st: &mut State,
    frames: &mut Vec<Frame>,
    steps: &mut u64,
    stop: u64,
    mut rec: Option<&mut Rec>,
) -> Result<Status, RunError> {
    loop {
        let depth = frames.len();
        let Some(fr) = frames.last_mut() else {
            return Ok(Status::Done);
        };
        let func = &prog.funcs[fr.f as usize];
        // The frame's instructions, until one leaves it (a call, a return,
        // a wait, the end of the turn, an error).
        let flow = loop {
            let Some(inst) = func.insts.get(fr.pc as usize) else {
                return Err(RunError::of(None, RunErrorKind::PastEnd));
            };
            if *steps >= stop {
                if *steps < opts.max_steps {
                    // The end of a turn (a seeded order): go on later.
                    return Ok(Status::Running);
                }
                let label = func.blocks.get(fr.block as usize).map_or(0, |b| b.label);
                let kind = RunErrorKind::NoTermination {
                    steps: opts.max_steps,
                    block: label,
                    block_name: prog.ir.name(label).map(String::from),
                };
                let mut e = RunError::of(Some(inst.idx), kind);
                e.block = Some(label);
                return Err(e);
            }
            *steps += 1;
            fr.pc += 1;
            let fast = if SPECIALIZE { fast(prog, st, func, fr, inst) } else { Fast::Slow };
            let from = match fast {
                Fast::Next => continue,
                Fast::Jump(from) => from,
                Fast::Return if depth <= 1 => {
                    // The entry point returned (as below, without a value to drop).
                    if st.mem.len() > fr.mem_base as usize {
                        st.mem.truncate(fr.mem_base as usize);
                    }
                    return Ok(Status::Done);
                }
                Fast::Return => break Flow::Return(None),
                Fast::Fail(mut e) => {
                    if e.inst.is_none() {
                        e.inst = Some(inst.idx);
                    }
                    return Err(*e);
                }
                Fast::Slow => {
                    if super::ops::group::waits(inst.op) {
                        // The scheduler runs it for the subgroup's active
                        // invocations (a general instruction: it is here
                        // before anything ran it).
                        *steps -= 1;
                        fr.pc -= 1;
                        return Ok(Status::Group(inst.idx));
                    }
                    let flow = exec(prog, st, func, fr, inst, depth).map_err(|mut e| {
                        if e.inst.is_none() {
                            e.inst = Some(inst.idx);
                        }
                        e
                    })?;
                    match flow {
                        Flow::Next => continue,
                        Flow::Jump(from) => from,
                        Flow::Barrier => return Ok(Status::Barrier(inst.idx)),
                        flow => break flow,
                    }
                }
            };
            if let Some(r) = rec.as_deref_mut() {
                r.jump(fr.f, from, fr.block);
            }
        };
        match flow {
            Flow::Call(f) => {
                if let Some(r) = rec.as_deref_mut() {
                    r.enter(f.f, 0);
                }
                frames.push(f)
            }
            Flow::Return(v) => {
                if depth <= 1 {
                    // The entry point returned. Its frame stays, for the
                    // next invocation set up in this one's place.
                    if let Some(done) = frames.first() {
                        st.mem.truncate(done.mem_base as usize);
                    }
                    return Ok(Status::Done);
                }
                let Some(done) = frames.pop() else {
                    return Ok(Status::Done);
                };
                st.mem.truncate(done.mem_base as usize);
                if let (Some(v), Some(caller)) = (v, frames.last_mut())
                    && let Some(slot) = caller.regs.get_mut(done.ret as usize)
                {
                    *slot = v;
                }
                st.pool.push(done);
            }
            Flow::Next | Flow::Jump(_) | Flow::Barrier => {}
        }
    }
}

/// What [`fast`] did with an instruction.
enum Fast {
    /// Nothing: [`exec`] runs it.
    Slow,
    Next,
    /// A branch taken from the block with this index (as [`Flow::Jump`]).
    Jump(u32),
    /// OpReturn (as [`Flow::Return`] without a value).
    Return,
    /// The error the general handler's function gave (the same as [`exec`]
    /// gives: it calls that function).
    Fail(Box<RunError>),
}

/// The specialised handlers (the instruction's [`Handler`], picked when
/// decoding), without [`exec`]'s dispatch: each reads its operands where they
/// are what it takes (defined scalars, small vectors of them) and computes
/// the result with the same function as `exec`. Anything else is `Slow`,
/// and `exec` gives it the same result, or the same error.
#[inline(always)]
fn fast(prog: &Program, st: &mut State, func: &Func, fr: &mut Frame, inst: &Inst) -> Fast {
    let o = inst.op;
    // The end in usize: no overflow test on every step.
    let Some(args) = func.args.get(inst.a as usize..inst.a as usize + inst.n as usize) else {
        return Fast::Slow;
    };
    let r = match inst.handler {
        Handler::General => return Fast::Slow,
        // Scalars or small vectors of them (each component as `map2` gives
        // it, into the vector the register holds).
        Handler::Binary => {
            let [x, y, ..] = *args else { return Fast::Slow };
            match (get(prog, &fr.regs, x), get(prog, &fr.regs, y)) {
                (&Val::Scalar(x), &Val::Scalar(y)) => match arith::scalar_binary(o, x, y, inst.sk, inst.ak) {
                    Ok(r) => r,
                    Err(_) => return Fast::Slow,
                },
                (Val::Composite(a), Val::Composite(b)) if a.len() == b.len() && (2..=4).contains(&a.len()) => {
                    let mut out = [0u64; 4];
                    for (k, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                        let (&Val::Scalar(x), &Val::Scalar(y)) = (x, y) else { return Fast::Slow };
                        let Ok(r) = arith::scalar_binary(o, x, y, inst.sk, inst.ak) else { return Fast::Slow };
                        out[k] = r;
                    }
                    let n = a.len();
                    let Some(slot) = fr.regs.get_mut(inst.res as usize) else { return Fast::Slow };
                    super::ops::image::put_comps(slot, &out[..n]);
                    return Fast::Next;
                }
                _ => return Fast::Slow,
            }
        }
        Handler::Unary => {
            let [x, ..] = *args else { return Fast::Slow };
            let &Val::Scalar(x) = get(prog, &fr.regs, x) else { return Fast::Slow };
            match arith::scalar_unary(o, x, inst.sk) {
                Ok(r) => r,
                Err(_) => return Fast::Slow,
            }
        }
        Handler::Select => {
            let [c, x, y, ..] = *args else { return Fast::Slow };
            let (&Val::Scalar(c), &Val::Scalar(x), &Val::Scalar(y)) =
                (get(prog, &fr.regs, c), get(prog, &fr.regs, x), get(prog, &fr.regs, y))
            else {
                return Fast::Slow;
            };
            arith::select(c, x, y)
        }
        // Component to component, scalars or vectors of defined scalars.
        Handler::Bitcast => {
            let [x, ..] = *args else { return Fast::Slow };
            let Some(w) = arith::bitcast_width(inst.ak, inst.sk) else { return Fast::Slow };
            let count = match prog.ir.ty(inst.ty).map(|t| &t.ty) {
                Some(Type::Vector { count, .. }) => Some(*count as usize),
                _ => None,
            };
            match (get(prog, &fr.regs, x), count) {
                (&Val::Scalar(x), None) => arith::bitcast_bits(x, w),
                (Val::Composite(a), Some(n)) if n == a.len() && (2..=4).contains(&n) => {
                    let mut out = [0u64; 4];
                    for (d, x) in out.iter_mut().zip(a.iter()) {
                        let &Val::Scalar(x) = x else { return Fast::Slow };
                        *d = arith::bitcast_bits(x, w);
                    }
                    let Some(slot) = fr.regs.get_mut(inst.res as usize) else { return Fast::Slow };
                    super::ops::image::put_comps(slot, &out[..n]);
                    return Fast::Next;
                }
                _ => return Fast::Slow,
            }
        }
        // Texel reads and writes, texel pointers: `image::exec` as `exec`
        // calls it (an error is `exec`'s to give: nothing was written).
        Handler::Image => {
            if st.helper && inst.op == op::OpImageWrite {
                return Fast::Next;
            }
            let regs = &fr.regs;
            let out = match super::ops::image::exec(prog, st.bufs, inst, args, &|s| get(prog, regs, s)) {
                Ok(out) => out,
                Err(_) => return Fast::Slow,
            };
            let Some(slot) = fr.regs.get_mut(inst.res as usize) else { return Fast::Next };
            match out {
                super::ops::image::Out::Val(v) => put(slot, v),
                super::ops::image::Out::None => {}
                super::ops::image::Out::Comps(c, n) => super::ops::image::put_comps(slot, &c[..n]),
            }
            return Fast::Next;
        }
        Handler::Branch => {
            let [b, ..] = *args else { return Fast::Slow };
            let from = fr.block;
            // One that cannot be taken: `exec` gives the error.
            return if try_goto(prog, func, fr, b) { Fast::Jump(from) } else { Fast::Slow };
        }
        Handler::BranchConditional => {
            let [c, t, f, ..] = *args else { return Fast::Slow };
            // An undefined condition reads as 0, as in `exec`.
            let c = match get(prog, &fr.regs, c) {
                Val::Scalar(c) => *c,
                Val::Undef => 0,
                _ => return Fast::Slow,
            };
            let from = fr.block;
            let b = if c != 0 { t } else { f };
            return if try_goto(prog, func, fr, b) { Fast::Jump(from) } else { Fast::Slow };
        }
        Handler::Memory => return fast_mem(prog, st, fr, inst, args),
        Handler::AtomicRmw => {
            if st.helper {
                return done(atomic_op(prog, st, fr, inst, args));
            }
            return match buf_rmw(prog, st, fr, inst, args) {
                Fast::Slow => done(atomic_op(prog, st, fr, inst, args)),
                f => f,
            };
        }
        Handler::AtomicLoad | Handler::AtomicStore => {
            return done(atomic_op(prog, st, fr, inst, args));
        }
        Handler::Return => return Fast::Return,
        Handler::BufChain => return buf_chain(prog, fr, inst),
        // A constant pointer copied into its register (see `decode`).
        Handler::ConstPtr => {
            let [x, ..] = *args else { return Fast::Slow };
            if x & G == 0 {
                return Fast::Slow;
            }
            let Some(src) = prog.globals.get((x & !G) as usize) else { return Fast::Slow };
            if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
                match (&mut *slot, src) {
                    (Val::Pointer(d), Val::Pointer(s)) if d == s => {}
                    (slot, src) => put(slot, src.clone()),
                }
            }
            return Fast::Next;
        }
    };
    if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
        put_s(slot, r);
    }
    Fast::Next
}

/// A general handler's outcome as [`fast`]'s.
#[inline(always)]
fn done(r: Result<(), RunError>) -> Fast {
    match r {
        Ok(()) => Fast::Next,
        Err(e) => Fast::Fail(Box::new(e)),
    }
}

/// [`fast`]'s memory and composite instructions (out of line: the
/// arithmetic stays small): the general handler's functions, on a typed
/// pointer.
#[inline(never)]
fn fast_mem(prog: &Program, st: &mut State, fr: &mut Frame, inst: &Inst, args: &[u32]) -> Fast {
    match inst.op {
        op::OpLoad => {
            let [p, ..] = *args else { return Fast::Slow };
            let Val::Pointer(q) = get(prog, &fr.regs, p) else { return Fast::Slow };
            if q.ty != inst.ty {
                return Fast::Slow;
            }
            match load(prog, st, inst, q, Kind::Read) {
                Ok(v) => {
                    if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
                        v.put(slot);
                    }
                    Fast::Next
                }
                Err(e) => Fast::Fail(Box::new(e)),
            }
        }
        op::OpStore => {
            let [p, v, ..] = *args else { return Fast::Slow };
            let Val::Pointer(q) = get(prog, &fr.regs, p) else { return Fast::Slow };
            if inst.ty != 0 && q.ty != inst.ty {
                return Fast::Slow;
            }
            done(store(prog, st, inst, q, get(prog, &fr.regs, v), Kind::Write))
        }
        op::OpAccessChain | op::OpInBoundsAccessChain => done(access_chain(prog, st, inst, &mut fr.regs, args)),
        op::OpCompositeExtract => done(composite_extract(prog, inst, &mut fr.regs, args)),
        op::OpCompositeConstruct => done(composite_construct(prog, inst, &mut fr.regs, args)),
        _ => Fast::Slow,
    }
}

/// The atomic instructions on memory: OpAtomicLoad, OpAtomicStore and the
/// read-modify-writes. Invocations take turns, so each is a load, an
/// operation and a store.
fn atomic_op(prog: &Program, st: &mut State, fr: &mut Frame, inst: &Inst, args: &[u32]) -> Result<(), RunError> {
    let regs = &fr.regs;
    let operand = |k: usize| -> Result<&Val, RunError> {
        let s = args.get(k).ok_or_else(|| RunError::of(Some(inst.idx), RunErrorKind::MissingOperand))?;
        Ok(get(prog, regs, *s))
    };
    let p = pointer(operand(0)?, inst)?;
    let r = match inst.op {
        op::OpAtomicLoad => load(prog, st, inst, p, Kind::AtomicRead)?.into_val(),
        op::OpAtomicStore => return store(prog, st, inst, p, operand(3)?, Kind::AtomicWrite),
        _ => {
            // The read is only checked for races: the write records the access.
            let old = scalar(&load(prog, st, inst, p, Kind::AtomicUpdate)?.into_val()).map_err(located(inst))?;
            let mut value = |k: usize| -> Result<u64, RunErrorKind> {
                let s = args.get(k).ok_or_else(|| RunErrorKind::MissingOperand)?;
                scalar(get(prog, regs, *s))
            };
            let new = rmw_value(inst, old, &mut value).map_err(located(inst))?;
            store(prog, st, inst, p, &Val::Scalar(new), Kind::AtomicWrite)?;
            Val::Scalar(old)
        }
    };
    if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
        put(slot, r);
    }
    Ok(())
}

/// The value a read-modify-write stores over `old` (masked to its width).
#[inline(always)]
fn rmw_value(inst: &Inst, old: u64, value: &mut impl FnMut(usize) -> Result<u64, RunErrorKind>) -> Result<u64, RunErrorKind> {
    Ok(mask(atomic::rmw(inst.op, old, inst.sk, value)?, inst.sk.w))
}

/// An integer read-modify-write of an integer in a buffer, with one look
/// at its bytes: the bytes `load` reads, the value [`rmw_value`] gives,
/// written as `store` writes a scalar. The write's race check holds the
/// read's (both atomic, against the same last write), so it alone tells
/// whether `atomic_op`'s two find a race. Anything else, or an access that
/// would fail or race, is `Slow` before anything changed: `atomic_op` then
/// gives the same result, or the error.
#[inline(never)]
fn buf_rmw(prog: &Program, st: &mut State, fr: &mut Frame, inst: &Inst, args: &[u32]) -> Fast {
    let Some(&p) = args.first() else { return Fast::Slow };
    let Val::Pointer(Ptr { ty, loc: Loc::Buf { buf, off, .. } }) = get(prog, &fr.regs, p) else {
        return Fast::Slow;
    };
    let (buf, off) = (*buf, *off);
    let n = match prog.ir.ty(*ty).map(|t| &t.ty) {
        Some(t @ Type::Int { .. }) => match scalar_bytes(t) {
            Some(n) => n,
            None => return Fast::Slow,
        },
        _ => return Fast::Slow,
    };
    let Some(Some(bytes)) = st.bufs.get_mut(buf as usize) else { return Fast::Slow };
    let Ok(old) = bytes_at(bytes, off, n) else { return Fast::Slow };
    let regs = &fr.regs;
    let mut value = |k: usize| -> Result<u64, RunErrorKind> {
        let s = args.get(k).ok_or(RunErrorKind::MissingOperand)?;
        scalar(get(prog, regs, *s))
    };
    let Ok(new) = rmw_value(inst, old, &mut value) else { return Fast::Slow };
    let len = bytes.len();
    if st.watch && st.races.buffer(buf, len, off, n, inst.idx, Kind::AtomicWrite).is_err() {
        return Fast::Slow;
    }
    if put_bytes(bytes, off, n, new).is_err() {
        return Fast::Slow;
    }
    if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
        put_s(slot, old);
    }
    Fast::Next
}

/// An access chain into a buffer by its plan (see [`super::program::BufChain`]): the
/// pointer [`access_chain`] makes, its offset moved by each index read
/// when running times its stride. An index that is not a defined scalar,
/// or is at or past its bound, is `Slow`: `access_chain` gives the error.
/// (Out of line: the run loop's registers stay as they are.)
#[inline(never)]
fn buf_chain(prog: &Program, fr: &mut Frame, inst: &Inst) -> Fast {
    // The instruction's position: the run loop moved past it.
    let at = fr.pc.wrapping_sub(1);
    let at = prog.chain_of.get(fr.f as usize).and_then(|of| of.get(at as usize));
    let Some(c) = at.and_then(|&k| prog.chains.get(k as usize)) else { return Fast::Slow };
    let mut off = c.off;
    for ix in c.indices.iter().take(c.count as usize) {
        let &Val::Scalar(i) = get(prog, &fr.regs, ix.slot) else { return Fast::Slow };
        if i >= ix.bound {
            return Fast::Slow;
        }
        off = off.wrapping_add(i.wrapping_mul(ix.stride));
    }
    let p = Ptr { ty: c.ty, loc: Loc::Buf { buf: c.buf, off, vstride: c.vstride, mat: c.mat } };
    match fr.regs.get_mut(inst.res as usize) {
        Some(Val::Pointer(d)) if matches!(d.loc, Loc::Buf { .. }) => *d = p,
        Some(slot) => put(slot, Val::Pointer(p)),
        None => {}
    }
    Fast::Next
}

/// OpAccessChain and OpInBoundsAccessChain: the base pointer stepped by each
/// index (clamped with [`super::Options::robust_access`]). A location in a
/// buffer is plain data, written over the pointer the result's register
/// holds; a path is built in the allocation of the pointer the register
/// held before (when no operand reads that register).
fn access_chain(prog: &Program, st: &State, inst: &Inst, regs: &mut [Val], args: &[u32]) -> Result<(), RunError> {
    let res = inst.res as usize;
    let Some((&base, indices)) = args.split_first() else {
        return Err(RunError::of(Some(inst.idx), RunErrorKind::MissingOperand));
    };
    if let Val::Pointer(Ptr { ty, loc: Loc::Buf { buf, off, vstride, mat } }) = get(prog, regs, base) {
        let mut p = Ptr { ty: *ty, loc: Loc::Buf { buf: *buf, off: *off, vstride: *vstride, mat: *mat } };
        chain_steps(prog, st, inst, regs, indices, &mut p)?;
        match regs.get_mut(res) {
            Some(Val::Pointer(d)) if matches!(d.loc, Loc::Buf { .. }) => *d = p,
            Some(slot) => put(slot, Val::Pointer(p)),
            None => {}
        }
        return Ok(());
    }
    let mut spare = match regs.get_mut(res) {
        Some(slot) if !args.contains(&inst.res) => match core::mem::replace(slot, Val::Scalar(0)) {
            Val::Pointer(Ptr { loc: Loc::Var { path, .. } | Loc::Shared { path, .. }, .. }) => path,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let base = pointer(get(prog, regs, base), inst)?;
    let loc = match &base.loc {
        Loc::Var { var, path } | Loc::Shared { var, path } => {
            spare.clear();
            spare.extend_from_slice(path);
            if matches!(base.loc, Loc::Var { .. }) {
                Loc::Var { var: *var, path: spare }
            } else {
                Loc::Shared { var: *var, path: spare }
            }
        }
        loc => loc.clone(),
    };
    let mut p = Ptr { ty: base.ty, loc };
    chain_steps(prog, st, inst, regs, indices, &mut p)?;
    if let Some(slot) = regs.get_mut(res) {
        put(slot, Val::Pointer(p));
    }
    Ok(())
}

/// An access chain's steps from `p` by the indices in the slots `indices`.
#[inline(always)]
fn chain_steps(prog: &Program, st: &State, inst: &Inst, regs: &[Val], indices: &[u32], p: &mut Ptr) -> Result<(), RunError> {
    for (k, &s) in indices.iter().enumerate() {
        let mut i = scalar(get(prog, regs, s)).map_err(located(inst))?;
        if prog.robust {
            i = clamp_index(prog, st, inst, k, p, i);
        }
        p.ty = step(prog.ir, p.ty, &mut p.loc, i).map_err(located(inst))?;
    }
    Ok(())
}

/// OpCompositeExtract: the part of the composite at the literal path.
fn composite_extract(prog: &Program, inst: &Inst, regs: &mut [Val], args: &[u32]) -> Result<(), RunError> {
    let Some((&c, path)) = args.split_first() else {
        return Err(RunError::of(Some(inst.idx), RunErrorKind::MissingOperand));
    };
    let v = literal_path(get(prog, regs, c), path).map_err(located(inst))?;
    let v = match v {
        &Val::Scalar(x) => {
            if let Some(slot) = regs.get_mut(inst.res as usize) {
                put_s(slot, x);
            }
            return Ok(());
        }
        v => v.clone(),
    };
    if let Some(slot) = regs.get_mut(inst.res as usize) {
        put(slot, v);
    }
    Ok(())
}

/// OpCompositeConstruct: the parts in order (a vector's vector parts
/// flattened into its components), in the allocation the result's register
/// held before (when no operand reads that register).
fn composite_construct(prog: &Program, inst: &Inst, regs: &mut [Val], args: &[u32]) -> Result<(), RunError> {
    let res = inst.res as usize;
    let mut items = match regs.get_mut(res) {
        Some(slot) if !args.contains(&inst.res) => match core::mem::replace(slot, Val::Scalar(0)) {
            Val::Composite(mut items) => {
                items.clear();
                items
            }
            _ => Vec::with_capacity(args.len()),
        },
        _ => Vec::with_capacity(args.len()),
    };
    let scalars = args.iter().all(|&s| matches!(get(prog, regs, s), Val::Scalar(_)));
    if !scalars && matches!(prog.ir.ty(inst.ty).map(|t| &t.ty), Some(Type::Vector { .. })) {
        items.extend(args.iter().flat_map(|&s| comps(get(prog, regs, s))));
    } else {
        items.extend(args.iter().map(|&s| get(prog, regs, s).clone()));
    }
    if let Some(slot) = regs.get_mut(res) {
        put(slot, Val::Composite(items));
    }
    Ok(())
}

fn exec(
    prog: &Program,
    st: &mut State,
    func: &Func,
    fr: &mut Frame,
    inst: &Inst,
    depth: usize,
) -> Result<Flow, RunError> {
    let args = &func.args[inst.a as usize..(inst.a + inst.n) as usize];
    let loc = located(inst);
    let arg = |k: usize| -> Result<u32, RunError> {
        args.get(k)
            .copied()
            .ok_or_else(|| RunError::of(Some(inst.idx), RunErrorKind::MissingOperand))
    };
    macro_rules! val {
        ($k:expr) => {
            get(prog, &fr.regs, arg($k)?)
        };
    }
    let o = inst.op;
    let result: Val = match o {
        OP_BAD_CONST => {
            return Err(RunError::unsupported(
                Some(inst.idx),
                Feature::SpecConstantOp,
            ));
        }
        // Vectors and composites.
        op::OpDot => {
            check_float(inst.sk).map_err(&loc)?;
            let w = inst.sk.w;
            let (a, b) = (comps(val!(0)), comps(val!(1)));
            let mut s = 0f64;
            for (x, y) in a.iter().zip(&b) {
                let p = fget(
                    fput(
                        fget(scalar(x).map_err(&loc)?, w) * fget(scalar(y).map_err(&loc)?, w),
                        w,
                    ),
                    w,
                );
                s = fget(fput(s + p, w), w);
            }
            Val::Scalar(fput(s, w))
        }
        op::OpVectorTimesScalar => {
            check_float(inst.sk).map_err(&loc)?;
            let w = inst.sk.w;
            let s = fget(scalar(val!(1)).map_err(&loc)?, w);
            map1(val!(0), &mut |a| Ok(fput(fget(a, w) * s, w))).map_err(&loc)?
        }
        op::OpCompositeConstruct => {
            composite_construct(prog, inst, &mut fr.regs, args)?;
            return Ok(Flow::Next);
        }
        op::OpCompositeExtract => {
            composite_extract(prog, inst, &mut fr.regs, args)?;
            return Ok(Flow::Next);
        }
        op::OpCompositeInsert => {
            let obj = val!(0).clone();
            let mut c = val!(1).clone();
            let slot = at_mut(&mut c, &args[2..])
                .ok_or_else(|| loc(RunErrorKind::IndexOutOfBounds { into: Indexed::Literal, index: None, len: None }))?;
            *slot = obj;
            c
        }
        op::OpVectorShuffle => {
            let mut all = comps(val!(0));
            all.extend(comps(val!(1)));
            let mut out = Vec::with_capacity(args.len().saturating_sub(2));
            for &k in &args[2..] {
                out.push(if k == u32::MAX {
                    Val::Scalar(0)
                } else {
                    all.get(k as usize)
                        .cloned()
                        .ok_or_else(|| loc(RunErrorKind::IndexOutOfBounds { into: Indexed::Shuffle, index: None, len: None }))?
                });
            }
            Val::Composite(out)
        }
        op::OpVectorExtractDynamic => {
            let i = scalar(val!(1)).map_err(&loc)?;
            let v = comps(val!(0));
            v.get(i as usize).cloned().ok_or_else(|| {
                loc(RunErrorKind::IndexOutOfBounds { into: Indexed::Vector, index: Some(i), len: Some(v.len() as u64) })
            })?
        }
        op::OpVectorInsertDynamic => {
            let i = scalar(val!(2)).map_err(&loc)?;
            let mut v = comps(val!(0));
            let n = v.len();
            let slot = v
                .get_mut(i as usize)
                .ok_or_else(|| loc(RunErrorKind::IndexOutOfBounds { into: Indexed::Vector, index: Some(i), len: Some(n as u64) }))?;
            *slot = val!(1).clone();
            Val::Composite(v)
        }
        op::OpExtInst => {
            let set = arg(0)?;
            if set & 0xff != 1 {
                return Err(RunError::unsupported(
                    Some(inst.idx),
                    Feature::ExtInstSet,
                ));
            }
            let e = arg(1)?;
            let vals: Vec<&Val> = args[2..].iter().map(|&s| get(prog, &fr.regs, s)).collect();
            if super::ops::glsl::has_out_pointer(e) {
                // Modf and Frexp: the whole part or exponent goes through the pointer.
                let (Some(x), Some(p)) = (vals.first(), vals.get(1)) else {
                    return Err(loc(RunErrorKind::MissingOperand));
                };
                let p = pointer(p, inst)?.clone();
                let (r, out) = super::ops::glsl::split(e, x, inst.ak.w).map_err(&loc)?;
                store(prog, st, inst, &p, &out, Kind::Write)?;
                r
            } else {
                super::ops::glsl::run(e, inst, set >> 8, &vals).map_err(&loc)?
            }
        }
        op::OpUMulExtended | op::OpSMulExtended | op::OpIAddCarry | op::OpISubBorrow => {
            // A struct of two members: the low and high words of a product,
            // a sum and its carry (0 or 1), a difference and its borrow.
            let w = inst.ak.w;
            let (mut lo, mut hi) = (Vec::new(), Vec::new());
            let (a, b) = (comps(val!(0)), comps(val!(1)));
            for (x, y) in a.iter().zip(&b) {
                let (x, y) = (scalar(x).map_err(&loc)?, scalar(y).map_err(&loc)?);
                let (l, h) = match o {
                    op::OpSMulExtended => {
                        let p = (sext(x, w) as i128).wrapping_mul(sext(y, w) as i128) as u128;
                        (p as u64, (p >> w) as u64)
                    }
                    op::OpUMulExtended => {
                        let p = (mask(x, w) as u128) * (mask(y, w) as u128);
                        (p as u64, (p >> w) as u64)
                    }
                    op::OpIAddCarry => {
                        let s = mask(x, w) as u128 + mask(y, w) as u128;
                        (s as u64, (s >> w) as u64)
                    }
                    _ => (mask(x, w).wrapping_sub(mask(y, w)), u64::from(mask(x, w) < mask(y, w))),
                };
                lo.push(Val::Scalar(mask(l, w)));
                hi.push(Val::Scalar(mask(h, w)));
            }
            if matches!(val!(0), Val::Scalar(_)) {
                Val::Composite(vec![lo.swap_remove(0), hi.swap_remove(0)])
            } else {
                Val::Composite(vec![Val::Composite(lo), Val::Composite(hi)])
            }
        }
        op::OpTranspose
        | op::OpMatrixTimesScalar
        | op::OpVectorTimesMatrix
        | op::OpMatrixTimesVector
        | op::OpMatrixTimesMatrix
        | op::OpOuterProduct => {
            check_float(inst.sk).map_err(&loc)?;
            let w = inst.sk.w;
            let fl = |v: &Val| -> Result<Vec<f64>, RunError> {
                comps(v)
                    .iter()
                    .map(|x| scalar(x).map(|b| fget(b, w)).map_err(&loc))
                    .collect()
            };
            let mat =
                |v: &Val| -> Result<Vec<Vec<f64>>, RunError> { comps(v).iter().map(fl).collect() };
            let vecv = |xs: &[f64]| Val::Composite(xs.iter().map(|x| Val::Scalar(fput(*x, w))).collect());
            let matv = |m: &[Vec<f64>]| Val::Composite(m.iter().map(|c| vecv(c)).collect());
            let dotp = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
            match o {
                op::OpTranspose => {
                    let m = mat(val!(0))?;
                    let rows = m.first().map_or(0, |c| c.len());
                    let t: Vec<Vec<f64>> = (0..rows)
                        .map(|r| m.iter().map(|c| c[r]).collect())
                        .collect();
                    matv(&t)
                }
                op::OpMatrixTimesScalar => {
                    let m = mat(val!(0))?;
                    let s = fget(scalar(val!(1)).map_err(&loc)?, w);
                    let r: Vec<Vec<f64>> = m
                        .iter()
                        .map(|c| c.iter().map(|x| x * s).collect())
                        .collect();
                    matv(&r)
                }
                op::OpVectorTimesMatrix => {
                    let v = fl(val!(0))?;
                    let m = mat(val!(1))?;
                    vecv(&m.iter().map(|c| dotp(&v, c)).collect::<Vec<_>>())
                }
                op::OpMatrixTimesVector => {
                    let m = mat(val!(0))?;
                    let v = fl(val!(1))?;
                    let rows = m.first().map_or(0, |c| c.len());
                    vecv(
                        &(0..rows)
                            .map(|r| m.iter().zip(&v).map(|(c, x)| c[r] * x).sum())
                            .collect::<Vec<f64>>(),
                    )
                }
                op::OpMatrixTimesMatrix => {
                    let (a, b) = (mat(val!(0))?, mat(val!(1))?);
                    let rows = a.first().map_or(0, |c| c.len());
                    let r: Vec<Vec<f64>> = b
                        .iter()
                        .map(|bc| {
                            (0..rows)
                                .map(|r| a.iter().zip(bc).map(|(ac, x)| ac[r] * x).sum())
                                .collect()
                        })
                        .collect();
                    matv(&r)
                }
                _ => {
                    let (a, b) = (fl(val!(0))?, fl(val!(1))?);
                    let r: Vec<Vec<f64>> = b
                        .iter()
                        .map(|y| a.iter().map(|x| x * y).collect())
                        .collect();
                    matv(&r)
                }
            }
        }
        // Atomics (see `atomic_op`).
        op::OpAtomicLoad
        | op::OpAtomicStore
        | op::OpAtomicExchange
        | op::OpAtomicCompareExchange
        | op::OpAtomicCompareExchangeWeak
        | op::OpAtomicIIncrement
        | op::OpAtomicIDecrement
        | op::OpAtomicIAdd
        | op::OpAtomicISub
        | op::OpAtomicSMin
        | op::OpAtomicUMin
        | op::OpAtomicSMax
        | op::OpAtomicUMax
        | op::OpAtomicAnd
        | op::OpAtomicOr
        | op::OpAtomicXor
        | op::OpAtomicFAddEXT
        | op::OpAtomicFMinEXT
        | op::OpAtomicFMaxEXT => {
            atomic_op(prog, st, fr, inst, args)?;
            return Ok(Flow::Next);
        }
        op::OpSampledImage
        | op::OpImage
        | op::OpImageRead
        | op::OpImageFetch
        | op::OpImageWrite
        | op::OpImageQuerySize
        | op::OpImageQuerySizeLod
        | op::OpImageQueryLevels
        | op::OpImageQuerySamples
        | op::OpImageTexelPointer
        | op::OpImageSampleExplicitLod
        | op::OpImageSampleImplicitLod => {
            if st.helper && o == op::OpImageWrite {
                return Ok(Flow::Next);
            }
            let regs = &fr.regs;
            match super::ops::image::exec(prog, st.bufs, inst, args, &|s| get(prog, regs, s))? {
                super::ops::image::Out::Val(v) => v,
                super::ops::image::Out::None => return Ok(Flow::Next),
                // A texel read: written into the register's vector in place.
                super::ops::image::Out::Comps(c, n) => {
                    if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
                        super::ops::image::put_comps(slot, &c[..n]);
                    }
                    return Ok(Flow::Next);
                }
            }
        }
        op::OpCopyObject | op::OpCopyLogical | OP_CONST_PTR => val!(0).clone(),
        op::OpUndef => undef(prog.ir, inst.ty),
        // Memory.
        op::OpVariable => {
            // A scalar: one component, undefined until written (what
            // `value_count` and `undef` give it, without the walk).
            let scalar = prog.ir.ty(inst.ty).is_some_and(|t| scalar_bytes(&t.ty).is_some());
            st.hold(if scalar { 1 } else { value_count(prog.ir, inst.ty) }, Some(inst.idx))?;
            let init = match args.get(1) {
                Some(&s) => get(prog, &fr.regs, s).clone(),
                None if scalar => Val::Undef,
                None => undef(prog.ir, inst.ty),
            };
            let var = st.mem.len() as u32;
            st.mem.push(init);
            Val::Pointer(Ptr {
                ty: inst.ty,
                loc: Loc::Var {
                    var,
                    path: Vec::new(),
                },
            })
        }
        op::OpAccessChain | op::OpInBoundsAccessChain => {
            access_chain(prog, st, inst, &mut fr.regs, args)?;
            return Ok(Flow::Next);
        }
        op::OpLoad => {
            let p = pointer(val!(0), inst)?;
            if p.ty != inst.ty {
                // Through an untyped pointer: the load's type reads the memory.
                ext::load_as(prog, st, inst, p)?
            } else {
                let v = load(prog, st, inst, p, Kind::Read)?;
                if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
                    v.put(slot);
                }
                return Ok(Flow::Next);
            }
        }
        op::OpStore => {
            let p = pointer(val!(0), inst)?;
            let v = val!(1);
            if inst.ty != 0 && p.ty != inst.ty {
                ext::store_as(prog, st, inst, p, v.clone())?;
            } else {
                store(prog, st, inst, p, v, Kind::Write)?;
            }
            return Ok(Flow::Next);
        }
        // The extensions (see `ext`).
        op::OpVariableLengthArrayINTEL
        | op::OpSaveMemoryINTEL
        | op::OpUntypedVariableKHR
        | op::OpPtrAccessChain
        | op::OpInBoundsPtrAccessChain
        | op::OpUntypedAccessChainKHR
        | op::OpUntypedInBoundsAccessChainKHR
        | op::OpUntypedPtrAccessChainKHR
        | op::OpUntypedInBoundsPtrAccessChainKHR => ext::exec(prog, st, fr, inst, args)?,
        op::OpRestoreMemoryINTEL => {
            ext::restore(prog, st, fr, inst, args)?;
            return Ok(Flow::Next);
        }
        op::OpCopyMemory => {
            let t = pointer(val!(0), inst)?;
            let s = pointer(val!(1), inst)?;
            let v = load(prog, st, inst, s, Kind::Read)?.into_val();
            store(prog, st, inst, t, &v, Kind::Write)?;
            return Ok(Flow::Next);
        }
        op::OpArrayLength => {
            // The number of elements of the runtime array that ends the
            // block: (buffer size - the member's Offset) / ArrayStride.
            let p = pointer(val!(0), inst)?;
            let member = arg(1)?;
            let Loc::Buf { buf, off, .. } = &p.loc else {
                return Err(loc(RunErrorKind::ArrayLength { in_buffer: false }));
            };
            let len = st
                .bufs
                .get(*buf as usize)
                .and_then(|b| b.as_ref())
                .ok_or_else(|| no_buffer(prog, inst, *buf))?
                .len() as u64;
            let t = prog.ir.ty(p.ty);
            let m = t.and_then(|t| t.members().get(member as usize));
            let stride = m
                .and_then(|m| prog.ir.ty(m.ty))
                .and_then(|a| a.array_stride);
            match (m.and_then(|m| m.offset), stride) {
                (Some(o), Some(s)) if s > 0 => Val::Scalar(mask(
                    len.saturating_sub(off + o as u64) / s as u64,
                    inst.sk.w,
                )),
                _ => {
                    return Err(loc(RunErrorKind::ArrayLength { in_buffer: true }));
                }
            }
        }
        // Control flow.
        op::OpBranch => {
            let b = arg(0)?;
            let from = fr.block;
            goto(prog, func, fr, b, inst)?;
            return Ok(Flow::Jump(from));
        }
        op::OpBranchConditional => {
            // An undefined condition is some arbitrary value (SPIR-V's
            // OpUndef), not undefined behaviour: it reads as 0 (false), as
            // undefined values do where they are not followed.
            let c = scalar(val!(0)).map_err(&loc)?;
            let b = if c != 0 { arg(1)? } else { arg(2)? };
            let from = fr.block;
            goto(prog, func, fr, b, inst)?;
            return Ok(Flow::Jump(from));
        }
        op::OpSwitch => {
            // An undefined selector reads as 0, as above.
            let w = inst.ak.w;
            let sel = mask(scalar(val!(0)).map_err(&loc)?, w);
            let lw = if w > 32 { 2 } else { 1 };
            let mut target = arg(1)?;
            for case in args[2..].chunks(lw + 1) {
                if case.len() != lw + 1 {
                    return Err(loc(RunErrorKind::TruncatedSwitch));
                }
                let lit = if lw == 2 {
                    case[0] as u64 | (case[1] as u64) << 32
                } else {
                    case[0] as u64
                };
                if mask(lit, w) == sel {
                    target = case[lw];
                    break;
                }
            }
            let from = fr.block;
            goto(prog, func, fr, target, inst)?;
            return Ok(Flow::Jump(from));
        }
        op::OpReturn => return Ok(Flow::Return(None)),
        op::OpReturnValue => return Ok(Flow::Return(Some(val!(0).clone()))),
        op::OpFunctionCall => {
            if depth >= MAX_DEPTH {
                return Err(loc(RunErrorKind::CallTooDeep { limit: MAX_DEPTH as u32 }));
            }
            let f = arg(0)?;
            let callee = prog
                .funcs
                .get(f as usize)
                .ok_or_else(|| loc(RunErrorKind::BadCall { defined: false }))?;
            if callee.blocks.is_empty() {
                return Err(loc(RunErrorKind::BadCall { defined: true }));
            }
            let base = st.mem.len() as u32;
            let mut nf = match st.pool.pop() {
                Some(mut nf) => {
                    reset_frame(prog, &mut nf, f, inst.res, base);
                    nf
                }
                None => new_frame(prog, f, inst.res, base),
            };
            for (k, &p) in callee.params.iter().enumerate() {
                let v = val!(k + 1).clone();
                if let Some(slot) = nf.regs.get_mut(p as usize) {
                    *slot = v;
                }
            }
            return Ok(Flow::Call(nf));
        }
        op::OpUnreachable => return Err(loc(RunErrorKind::Unreachable)),
        op::OpKill | op::OpTerminateInvocation => {
            return Err(RunError::of(Some(inst.idx), RunErrorKind::Killed));
        }
        op::OpControlBarrier => return Ok(Flow::Barrier),
        // Invocations run one at a time: every write is already visible.
        op::OpMemoryBarrier => return Ok(Flow::Next),
        // The operators on values (see `ops::arith`).
        _ => {
            let operand = |k: usize| -> Result<&Val, RunErrorKind> {
                let s = args.get(k).ok_or_else(|| RunErrorKind::MissingOperand)?;
                Ok(get(prog, &fr.regs, *s))
            };
            match arith::value(o, inst, prog.ir, &operand) {
                Some(r) => r.map_err(&loc)?,
                None => return Err(RunError::of(Some(inst.idx), RunErrorKind::NotSupported { opcode: o })),
            }
        }
    };
    if let Some(slot) = fr.regs.get_mut(inst.res as usize) {
        put(slot, result);
    }
    Ok(Flow::Next)
}

/// `*slot = Val::Scalar(x)`: a scalar written over a scalar in place.
#[inline(always)]
fn put_s(slot: &mut Val, x: u64) {
    if let Val::Scalar(y) = slot {
        *y = x;
    } else {
        put(slot, Val::Scalar(x));
    }
}

/// `*slot = v`, without a call to drop the old value when it is a scalar
/// (the common case in a loop: a register written again).
#[inline(always)]
fn put(slot: &mut Val, v: Val) {
    let old = core::mem::replace(slot, v);
    if matches!(old, Val::Scalar(_) | Val::Undef) {
        core::mem::forget(old);
    } else {
        drop(old);
    }
}
