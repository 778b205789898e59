//! Decoding: the module's functions into a compact form (opcode, result
//! slot, operands resolved), constants into values, global variables into
//! pointers, the entry point and its workgroup size.

use crate::interp::error::Feature;
use super::mem::{BufKey, Loc, Ptr, Val, check_size, index_bound, step, undef, zero};
use super::num::{OTHER, scalar_kind};
use super::program::{
    BufChain, BuiltIn, Block, ChainIndex, Func, G, Handler, Inst, MAX_CHAIN_INDICES, NONE, NO_VALUE, OP_BAD_CONST, OP_CONST_PTR,
    Program,
};
use super::error::{Malformed, RunErrorKind};
use super::{Options, RunError};
use crate::grammar::{self, OperandKind, op};
use crate::ir::{ConstValue, Ir, Type};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// How an id resolves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Resolved {
    None,
    Global(u32),
    Local(u32),
    Block(u32),
    Func(u32),
}

/// The start of the buffer `key` (added to `bufs` the first time).
fn buffer_start(bufs: &mut Vec<BufKey>, key: BufKey) -> Loc {
    let buf = match bufs.iter().position(|k| *k == key) {
        Some(k) => k,
        None => {
            bufs.push(key);
            bufs.len() - 1
        }
    } as u32;
    Loc::Buf {
        buf,
        off: 0,
        vstride: 0,
        mat: None,
    }
}

/// The most bytes of explicitly laid out workgroup memory the interpreter holds.
const MAX_WG_BYTES: u64 = 1 << 26;

/// The built-ins the interpreter gives values to.
fn supported_builtin(b: u32) -> bool {
    use grammar::built_in as bi;
    matches!(
        b,
        bi::GlobalInvocationId
            | bi::LocalInvocationId
            | bi::WorkgroupId
            | bi::NumWorkgroups
            | bi::WorkgroupSize
            | bi::LocalInvocationIndex
            | bi::SubgroupSize
            | bi::SubgroupLocalInvocationId
            | bi::SubgroupId
            | bi::NumSubgroups
            // OpenCL (see `kernel`).
            | bi::GlobalSize
            | bi::GlobalOffset
            | bi::EnqueuedWorkgroupSize
            | bi::GlobalLinearId
    )
}

fn err(inst: usize, kind: RunErrorKind) -> RunError {
    RunError::of(Some(inst as u32), kind)
}

/// A pointer to memory the interpreter does not hold: an access through it
/// is the error `kind`.
fn unsupported_loc(kind: RunErrorKind) -> Loc {
    Loc::Unsupported(alloc::boxed::Box::new(kind))
}

impl<'a> Program<'a> {
    pub fn new(ir: &'a Ir, opts: &Options) -> Result<Program<'a>, RunError> {
        Program::build(ir, opts, None, opts.entry.as_deref())
    }

    /// A graphics stage: the entry point of execution model `model` named
    /// `entry` (else the first of that model). Its Input and Output
    /// variables are per-invocation memory, listed scalar by scalar in
    /// `inputs` and `outputs` for the draw to fill and read.
    pub fn for_stage(ir: &'a Ir, opts: &Options, model: u32, entry: Option<&str>) -> Result<Program<'a>, RunError> {
        Program::build(ir, opts, Some(model), entry)
    }

    fn build(ir: &'a Ir, opts: &Options, stage: Option<u32>, entry: Option<&str>) -> Result<Program<'a>, RunError> {
        let glcompute = grammar::execution_model::GLCompute;
        let kernel_model = grammar::execution_model::Kernel;
        let runs = |m: u32| match stage {
            Some(s) => m == s,
            None => m == glcompute || m == kernel_model,
        };
        let ep = match entry {
            Some(name) => ir
                .entry_points
                .iter()
                .find(|e| e.name == name && runs(e.model))
                .ok_or_else(|| RunError::of(None, RunErrorKind::NoEntryPoint { name: Some(String::from(name)) }))?,
            None => ir
                .entry_points
                .iter()
                .find(|e| runs(e.model))
                .ok_or_else(|| RunError::of(None, RunErrorKind::NoEntryPoint { name: None }))?,
        };
        let ws = crate::reflect::workgroup_size(ir, ep);
        let local_size = match ws {
            Some(crate::reflect::WorkgroupSize {
                x: Some(x),
                y: Some(y),
                z: Some(z),
                ..
            }) if x > 0 && y > 0 && z > 0 => [x, y, z],
            // A kernel without LocalSize: one invocation per workgroup.
            None if ep.model == kernel_model => [1, 1, 1],
            // A graphics stage: invocations one by one (a fragment quad's
            // four run together, see `exec::stage`).
            _ if stage.is_some() => [1, 1, 1],
            _ => {
                return Err(RunError::of(Some(ep.inst), RunErrorKind::NoWorkgroupSize { entry: ep.name.clone() }));
            }
        };

        // Ids index a table: size it by the largest id defined, not the header's bound.
        let bound = (0..ir.len())
            .filter_map(|i| ir.result_id(i))
            .max()
            .map_or(0, |m| m as usize + 1);
        let mut res = vec![Resolved::None; bound];
        let set = |res: &mut Vec<Resolved>, id: u32, r: Resolved| {
            if let Some(x) = res.get_mut(id as usize) {
                *x = r;
            }
        };
        let mut globals: Vec<Val> = Vec::new();
        let mut bad_globals: Vec<bool> = Vec::new();
        let get = |res: &Vec<Resolved>, globals: &Vec<Val>, id: u32| -> Val {
            match res.get(id as usize) {
                Some(Resolved::Global(g)) => globals[*g as usize].clone(),
                _ => Val::Scalar(0),
            }
        };

        // Undefs outside functions (first: a constant composite may hold one).
        for i in 0..ir.len() {
            if ir.opcode(i) == op::OpUndef
                && ir.function_at(i).is_none()
                && let (Some(id), Some(ty)) = (ir.result_id(i), ir.result_type(i))
            {
                set(&mut res, id, Resolved::Global(globals.len() as u32));
                let fits = check_size(ir, ty).is_ok();
                globals.push(if fits { undef(ir, ty) } else { Val::Scalar(0) });
                bad_globals.push(!fits);
            }
        }
        // SPV_KHR_constant_data: arrays of integers given as words (they
        // hold no other constant, so they go first).
        for i in 0..ir.len() {
            if matches!(
                ir.opcode(i),
                op::OpConstantDataKHR | op::OpSpecConstantDataKHR
            ) && ir.function_at(i).is_none()
                && ir.constant(ir.result_id(i).unwrap_or(0)).is_none()
                && let (Some(id), Some(ty)) = (ir.result_id(i), ir.result_type(i))
            {
                let v = super::kernel::constant_data(ir, i, ty);
                set(&mut res, id, Resolved::Global(globals.len() as u32));
                bad_globals.push(v.is_none());
                globals.push(v.unwrap_or(Val::Scalar(0)));
            }
        }
        // Constants, in order (a composite's parts come first).
        for c in &ir.constants {
            let (v, bad) = match &c.value {
                ConstValue::Bool(b) => (Val::Scalar(*b as u64), false),
                ConstValue::Scalar(bits) => (Val::Scalar(*bits), false),
                ConstValue::Composite(ids) => {
                    let bad = ids.iter().any(|&id| match res.get(id as usize) {
                        Some(Resolved::Global(g)) => bad_globals[*g as usize],
                        _ => true,
                    });
                    (
                        Val::Composite(ids.iter().map(|&id| get(&res, &globals, id)).collect()),
                        bad,
                    )
                }
                ConstValue::Null => match check_size(ir, c.ty) {
                    Ok(()) => (zero(ir, c.ty), false),
                    Err(_) => (Val::Scalar(0), true),
                },
                ConstValue::NotEvaluated => (Val::Scalar(0), true),
            };
            set(&mut res, c.id, Resolved::Global(globals.len() as u32));
            globals.push(v);
            bad_globals.push(bad);
        }
        // Global variables.
        let mut private_init = Vec::new();
        let mut shared_init = Vec::new();
        let mut shared_ids = Vec::new();
        let mut builtins = Vec::new();
        let mut bufs: Vec<BufKey> = Vec::new();
        let mut images = Vec::new();
        let mut samplers = Vec::new();
        let mut wg_bytes = 0u64;
        let scn = grammar::storage_class::Input;
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        for v in &ir.globals {
            let Some(pointee) = v.pointee.or_else(|| {
                // An untyped buffer variable without a data type: its bytes,
                // read by the types that the accesses name.
                let buffer = [
                    grammar::storage_class::StorageBuffer,
                    grammar::storage_class::Uniform,
                    grammar::storage_class::PushConstant,
                ];
                (ir.opcode(v.inst as usize) == op::OpUntypedVariableKHR
                    && buffer.contains(&v.storage))
                .then_some(0)
            }) else {
                set(&mut res, v.id, Resolved::Global(globals.len() as u32));
                globals.push(Val::Pointer(Ptr {
                    ty: 0,
                    loc: unsupported_loc(RunErrorKind::NotSupportedFeature { feature: Feature::UntypedVariables }),
                }));
                bad_globals.push(false);
                continue;
            };
            let descriptor = match (v.set, v.binding) {
                (Some(a), Some(b))
                    if v.storage == grammar::storage_class::UniformConstant
                        || v.storage == grammar::storage_class::StorageBuffer
                        || v.storage == grammar::storage_class::Uniform =>
                {
                    super::image::descriptor_loc(
                        ir,
                        opts,
                        pointee,
                        (a, b),
                        &mut bufs,
                        &mut images,
                        &mut samplers,
                    )
                }
                _ => None,
            };
            let loc = match v.storage {
                // (The default is never taken: `descriptor` is `Some`.)
                _ if descriptor.is_some() => descriptor.unwrap_or(Loc::Sampler { smp: 0 }),
                s if stage.is_some() && (s == scn || s == grammar::storage_class::Output) => {
                    if let Err(kind) = check_size(ir, pointee) {
                        unsupported_loc(kind)
                    } else {
                        let init = match v.initializer {
                            Some(id) => get(&res, &globals, id),
                            None => undef(ir, pointee),
                        };
                        let var = private_init.len() as u32;
                        private_init.push(init);
                        if ep.interface.contains(&v.id) {
                            let leaves = super::io::leaves(ir, v.id, pointee, var).map_err(|kind| err(v.inst as usize, kind))?;
                            if s == scn { inputs.extend(leaves) } else { outputs.extend(leaves) }
                        }
                        Loc::Var { var, path: Vec::new() }
                    }
                }
                s if s == grammar::storage_class::Private || s == scn => {
                    let builtin = ir.decoration_arg(v.id, grammar::decoration::BuiltIn);
                    if s == scn && builtin.is_none() {
                        unsupported_loc(RunErrorKind::NotSupportedFeature { feature: Feature::InputWithoutBuiltIn })
                    } else if let Some(b) = builtin.filter(|b| !supported_builtin(*b)) {
                        unsupported_loc(RunErrorKind::UnsupportedBuiltIn { built_in: b })
                    } else if let Err(kind) = check_size(ir, pointee) {
                        unsupported_loc(kind)
                    } else {
                        let init = match v.initializer {
                            Some(id) => get(&res, &globals, id),
                            None => undef(ir, pointee),
                        };
                        let var = private_init.len() as u32;
                        private_init.push(init);
                        if let Some(b) = builtin {
                            builtins.push(BuiltIn {
                                var,
                                builtin: b,
                                ty: pointee,
                            });
                        }
                        Loc::Var {
                            var,
                            path: Vec::new(),
                        }
                    }
                }
                s if s == grammar::storage_class::StorageBuffer
                    || s == grammar::storage_class::Uniform
                    || s == grammar::storage_class::PushConstant =>
                {
                    let key = if s == grammar::storage_class::PushConstant {
                        Some(BufKey::PushConstant)
                    } else {
                        match (v.set, v.binding) {
                            // A binding that aliases another shares its memory.
                            (Some(a), Some(b)) => Some(match opts.aliases.get(&(a, b)) {
                                Some(&(a2, b2)) => BufKey::Binding(a2, b2),
                                None => BufKey::Binding(a, b),
                            }),
                            _ => None,
                        }
                    };
                    match key {
                        Some(key) => buffer_start(&mut bufs, key),
                        None => unsupported_loc(RunErrorKind::NoDescriptor { storage_class: s }),
                    }
                }
                s if s == grammar::storage_class::Workgroup
                    && ir.ty(pointee).is_some_and(|t| t.is_block()) =>
                {
                    // Explicit layout: every such variable starts at byte 0
                    // of the one workgroup memory.
                    match ir.size_of(pointee) {
                        Some(n) if n <= MAX_WG_BYTES => {
                            wg_bytes = wg_bytes.max(n);
                            buffer_start(&mut bufs, BufKey::Workgroup)
                        }
                        _ => unsupported_loc(RunErrorKind::NotSupportedFeature { feature: Feature::UnsizedWorkgroupBlock }),
                    }
                }
                s if s == grammar::storage_class::Workgroup => {
                    if let Err(kind) = check_size(ir, pointee) {
                        unsupported_loc(kind)
                    } else {
                    let init = match v.initializer {
                        Some(id) => get(&res, &globals, id),
                        None => undef(ir, pointee),
                    };
                    shared_init.push(init);
                    shared_ids.push(v.id);
                    Loc::Shared {
                        var: shared_init.len() as u32 - 1,
                        path: Vec::new(),
                    }
                    }
                }
                s => unsupported_loc(RunErrorKind::UnsupportedStorage { storage_class: s }),
            };
            set(&mut res, v.id, Resolved::Global(globals.len() as u32));
            globals.push(Val::Pointer(Ptr { ty: pointee, loc }));
            bad_globals.push(false);
        }

        // Functions, blocks and local slots.
        for (fi, f) in ir.functions.iter().enumerate() {
            set(&mut res, f.id, Resolved::Func(fi as u32));
            for (bi, b) in ir.blocks_of(f).iter().enumerate() {
                set(&mut res, b.label, Resolved::Block(bi as u32));
            }
        }
        let mut funcs = Vec::with_capacity(ir.functions.len());
        // Per function, each operand that reads a local: its position in
        // `args` and its instruction's index (see `fold_access_chains`).
        let mut uses: Vec<Vec<(u32, u32)>> = Vec::with_capacity(ir.functions.len());
        for f in &ir.functions {
            let mut local_uses = Vec::new();
            let mut nlocals = 0u32;
            let mut params = Vec::new();
            for i in f.inst as usize + 1..(f.end as usize).min(ir.len()) {
                let o = ir.opcode(i);
                if o == op::OpLabel {
                    continue;
                }
                if let Some(id) = ir.result_id(i) {
                    set(&mut res, id, Resolved::Local(nlocals));
                    if o == op::OpFunctionParameter {
                        params.push(nlocals);
                    }
                    nlocals += 1;
                }
            }
            let mut func = Func {
                insts: Vec::new(),
                args: Vec::new(),
                blocks: Vec::new(),
                nlocals,
                params,
                defined: false,
            };
            for b in ir.blocks_of(f) {
                let phis = func.insts.len() as u32;
                let mut body = None;
                for i in b.body() {
                    let o = ir.opcode(i);
                    if matches!(
                        o,
                        op::OpLine
                            | op::OpNoLine
                            | op::OpNop
                            | op::OpSelectionMerge
                            | op::OpLoopMerge
                            // SPV_INTEL_unstructured_loop_controls: a hint.
                            | op::OpLoopControlINTEL
                    ) {
                        continue;
                    }
                    if o != op::OpPhi && body.is_none() {
                        body = Some(func.insts.len() as u32);
                    }
                    let mut inst = Inst {
                        op: o,
                        idx: i as u32,
                        res: NONE,
                        ty: 0,
                        sk: OTHER,
                        ak: OTHER,
                        a: func.args.len() as u32,
                        n: 0,
                        handler: Handler::General,
                    };
                    let mut first_value = true;
                    let mut bad = false;
                    for operand in ir.operands(i) {
                        match operand.kind {
                            OperandKind::IdResultType => {
                                let t = operand.word().unwrap_or(0);
                                inst.ty = t;
                                inst.sk = scalar_kind(ir, t);
                            }
                            OperandKind::IdResult => {
                                if let Some(Resolved::Local(l)) =
                                    res.get(operand.word().unwrap_or(0) as usize)
                                {
                                    inst.res = *l;
                                }
                            }
                            k if k.is_id() => {
                                for &w in operand.words {
                                    let r = res.get(w as usize).copied().unwrap_or(Resolved::None);
                                    if first_value && matches!(r, Resolved::Global(_) | Resolved::Local(_)) {
                                        first_value = false;
                                        inst.ak =
                                            ir.type_of(w).map_or(OTHER, |t| scalar_kind(ir, t));
                                    }
                                    if let Resolved::Local(_) = r {
                                        local_uses.push((func.args.len() as u32, func.insts.len() as u32));
                                    }
                                    func.args.push(match r {
                                        Resolved::Global(g) => {
                                            bad |= bad_globals[g as usize];
                                            G | g
                                        }
                                        Resolved::Local(l) => l,
                                        Resolved::Block(b) => b,
                                        Resolved::Func(f) => f,
                                        // A type, an extended instruction set, or an id
                                        // with no definition: nothing the supported
                                        // instructions read as a value.
                                        Resolved::None => NO_VALUE,
                                    });
                                }
                            }
                            _ => func.args.extend_from_slice(operand.words),
                        }
                    }
                    if o == op::OpExtInst
                        && let Some(set) = func.args.get_mut(inst.a as usize)
                    {
                        // The set operand: 1 for GLSL.std.450, 0 for any other;
                        // above bit 8, the component width of the last operand
                        // (Ldexp's exponent, MatrixInverse's matrix).
                        let id = ir.operand_words(i, 2).first().copied().unwrap_or(0);
                        let glsl = ir
                            .ext_imports
                            .iter()
                            .any(|(x, n)| *x == id && n == "GLSL.std.450");
                        let last = ir.words(i).last().copied().unwrap_or(0);
                        let mut t = ir.type_of(last).unwrap_or(0);
                        if let Some(Type::Matrix { column, .. }) = ir.ty(t).map(|d| &d.ty) {
                            t = *column;
                        }
                        *set = glsl as u32 | scalar_kind(ir, t).w << 8;
                    }
                    if !ir.parsed_ok(i) {
                        return Err(err(
                            i,
                            RunErrorKind::Malformed { problem: Malformed::Operands },
                        ));
                    }
                    super::exec::ext::decode_hook(ir, i, &mut inst);
                    // The image instructions read the scalar kinds of their
                    // coordinate (and texel) operands: resolved here, once (see
                    // `image::exec`): `ak` the coordinate's, `sk` OpImageWrite's texel's.
                    let kind_at = |k: usize| {
                        ir.words(i)
                            .get(k)
                            .and_then(|id| ir.type_of(*id))
                            .map_or(OTHER, |t| scalar_kind(ir, t))
                    };
                    match o {
                        op::OpImageRead
                        | op::OpImageFetch
                        | op::OpImageTexelPointer
                        | op::OpImageSampleExplicitLod
                        | op::OpImageSampleImplicitLod => inst.ak = kind_at(3),
                        op::OpImageWrite => {
                            inst.ak = kind_at(1);
                            inst.sk = kind_at(2);
                        }
                        _ => {}
                    }
                    if o == op::OpVariable {
                        inst.ty = match ir.ty(inst.ty).map(|t| &t.ty) {
                            Some(Type::Pointer {
                                pointee: Some(p), ..
                            }) => *p,
                            _ => {
                                return Err(err(
                                    i,
                                    RunErrorKind::Malformed { problem: Malformed::UntypedVariable },
                                ));
                            }
                        };
                    }
                    if matches!(o, op::OpVariable | op::OpUndef | op::OpConstantNull) {
                        check_size(ir, inst.ty).map_err(|kind| err(i, kind))?;
                    }
                    if bad {
                        inst.op = OP_BAD_CONST;
                    }
                    inst.n = func.args.len() as u32 - inst.a;
                    func.insts.push(inst);
                }
                let body = body.unwrap_or(func.insts.len() as u32);
                func.blocks.push(Block {
                    label: b.label,
                    phis,
                    body,
                });
            }
            funcs.push(func);
            uses.push(local_uses);
        }
        let entry = match res.get(ep.function as usize) {
            Some(Resolved::Func(f)) => *f,
            _ => {
                return Err(err(ep.inst as usize, RunErrorKind::Malformed { problem: Malformed::NoEntryFunction }));
            }
        };
        if funcs[entry as usize].blocks.is_empty() {
            return Err(err(ep.inst as usize, RunErrorKind::Malformed { problem: Malformed::EmptyEntryFunction }));
        }
        if !opts.robust_access {
            fold_access_chains(ir, &mut funcs, &uses, &mut globals);
        }
        let mut chains = Vec::new();
        let mut chain_of = Vec::with_capacity(funcs.len());
        for (func, uses) in funcs.iter_mut().zip(&uses) {
            func.defined = defined_before_use(func, uses);
            for inst in &mut func.insts {
                inst.handler = handler(inst);
            }
            chain_of.push(if opts.robust_access { Vec::new() } else { plan_buf_chains(ir, func, &globals, &mut chains) });
        }
        let kernel = ep.model == kernel_model;
        let params = if kernel {
            super::kernel::params(ir, ep.function, ep.inst, &mut bufs)?
        } else {
            Vec::new()
        };
        Ok(Program {
            early_tests: ep.modes.iter().any(|m| m.mode == crate::grammar::execution_mode::EarlyFragmentTests),
            robust: opts.robust_access,
            kernel,
            params,
            entry_args: Vec::new(),
            ir,
            funcs,
            entry,
            local_size,
            globals,
            private_init,
            shared_init,
            shared_ids,
            builtins,
            bufs,
            images,
            samplers,
            chains,
            chain_of,
            wg_bytes,
            inputs,
            outputs,
        })
    }
}

/// The handler the run loop gives `inst` (see [`Handler`]): the
/// specialised one for its opcode, if it has one.
fn handler(inst: &Inst) -> Handler {
    use super::ops::{arith, atomic};
    match inst.op {
        o if arith::has_scalar_binary(o) => Handler::Binary,
        o if arith::has_scalar_unary(o) => Handler::Unary,
        op::OpSelect => Handler::Select,
        op::OpBitcast if arith::bitcast_width(inst.ak, inst.sk).is_some() => Handler::Bitcast,
        op::OpImageRead | op::OpImageWrite | op::OpImageFetch | op::OpImageTexelPointer => Handler::Image,
        op::OpBranch => Handler::Branch,
        op::OpBranchConditional => Handler::BranchConditional,
        op::OpLoad
        | op::OpStore
        | op::OpAccessChain
        | op::OpInBoundsAccessChain
        | op::OpCompositeExtract
        | op::OpCompositeConstruct => Handler::Memory,
        o if atomic::is_int_rmw(o) => Handler::AtomicRmw,
        op::OpAtomicLoad => Handler::AtomicLoad,
        op::OpAtomicStore => Handler::AtomicStore,
        op::OpReturn => Handler::Return,
        OP_CONST_PTR => Handler::ConstPtr,
        _ => Handler::General,
    }
}

/// Resolve each OpAccessChain and OpInBoundsAccessChain whose base is a
/// global pointer and whose indices are constant scalars: the pointer it
/// makes is the same in every invocation, so it becomes a new global and the
/// instruction an [`OP_CONST_PTR`] that copies it (still one step). One that
/// fails (an index out of bounds, a missing layout) is left to fail when run,
/// with its message. Not with robust access: the clamp of a runtime array's
/// index depends on the buffer's size.
///
/// When such an instruction is in the function's first block, is its
/// result's only definition, and every operand that reads the result comes
/// after it (`uses`: each operand reading a local, by position in `args` and
/// instruction), those operands read the global instead, and the
/// instruction writes no register: every read it reaches would see the
/// same pointer (the first block runs first, once, before any other).
fn fold_access_chains(ir: &Ir, funcs: &mut [Func], uses: &[Vec<(u32, u32)>], globals: &mut Vec<Val>) {
    for (func, uses) in funcs.iter_mut().zip(uses) {
        // Per local: the folded instruction that defines it and its global.
        let mut folded: Vec<Option<(u32, u32)>> = vec![None; func.nlocals as usize];
        let first_block_end = func.blocks.get(1).map_or(func.insts.len() as u32, |b| b.phis);
        let mut defs = vec![0u8; func.nlocals as usize];
        for inst in &func.insts {
            if let Some(d) = defs.get_mut(inst.res as usize) {
                *d = d.saturating_add(1);
            }
        }
        for &p in &func.params {
            if let Some(d) = defs.get_mut(p as usize) {
                *d = d.saturating_add(1);
            }
        }
        for (k, inst) in func.insts.iter_mut().enumerate() {
            if !matches!(inst.op, op::OpAccessChain | op::OpInBoundsAccessChain) || inst.n == 0 {
                continue;
            }
            let args = &func.args[inst.a as usize..(inst.a + inst.n) as usize];
            if args.iter().any(|&s| s & G == 0) {
                continue;
            }
            let global = |s: u32| globals.get((s & !G) as usize);
            let Some(Val::Pointer(base)) = global(args[0]) else { continue };
            let mut p = base.clone();
            let mut ok = true;
            for &s in &args[1..] {
                let (Some(Val::Scalar(i)), true) = (global(s), matches!(p.loc, Loc::Buf { .. } | Loc::Var { .. } | Loc::Shared { .. })) else {
                    ok = false;
                    break;
                };
                match step(ir, p.ty, &mut p.loc, *i) {
                    Ok(t) => p.ty = t,
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            func.args[inst.a as usize] = G | globals.len() as u32;
            if (k as u32) < first_block_end && defs.get(inst.res as usize) == Some(&1) {
                folded[inst.res as usize] = Some((k as u32, G | globals.len() as u32));
            }
            globals.push(Val::Pointer(p));
            inst.op = OP_CONST_PTR;
            inst.n = 1;
        }
        // A read before the definition (an invalid module) keeps the register.
        for &(pos, at) in uses {
            let Some(&slot) = func.args.get(pos as usize) else { continue };
            if let Some(f) = folded.get_mut(slot as usize)
                && f.is_some_and(|(k, _)| at <= k)
            {
                *f = None;
            }
        }
        if folded.iter().all(Option::is_none) {
            continue;
        }
        for &(pos, _) in uses {
            if let Some(a) = func.args.get_mut(pos as usize)
                && let Some(Some((_, g))) = folded.get(*a as usize)
            {
                *a = *g;
            }
        }
        for inst in &mut func.insts {
            if inst.op == OP_CONST_PTR && folded.get(inst.res as usize).is_some_and(Option::is_some) {
                inst.res = NONE;
            }
        }
    }
}

/// Give each access chain whose base is a pointer into a buffer in a global
/// slot, and whose indices are not all constants, a [`BufChain`] and
/// [`Handler::BufChain`]. The plan is made by [`step`], the general
/// handler's function: a constant index is stepped with its value, an index
/// read when running with 0 and 1 (a step moves the offset by the index
/// times a distance that depends only on the type, and leaves the rest of
/// the location the same for every index; a chain where the two steps do
/// not show that keeps its handler). Not with robust access (the clamp of a
/// runtime array's index depends on the buffer's size).
///
/// Gives each instruction's index in `chains` (empty when there is none).
fn plan_buf_chains(ir: &Ir, func: &mut Func, globals: &[Val], chains: &mut Vec<BufChain>) -> Vec<u32> {
    let mut of = Vec::new();
    let n = func.insts.len();
    let global = |s: u32| if s & G != 0 { globals.get((s & !G) as usize) } else { None };
    for (pos, inst) in func.insts.iter_mut().enumerate() {
        if !matches!(inst.op, op::OpAccessChain | op::OpInBoundsAccessChain) || inst.n == 0 {
            continue;
        }
        let args = &func.args[inst.a as usize..(inst.a + inst.n) as usize];
        let Some(&Val::Pointer(Ptr { ty, loc: Loc::Buf { buf, off, vstride, mat } })) = global(args[0]) else { continue };
        // The chain so far: the pointee type and where in the buffer.
        let (mut ty, mut at) = (ty, (off, vstride, mat));
        let by = |ty: u32, (off, vstride, mat): (u64, u32, Option<(u32, bool)>), i: u64| {
            let mut loc = Loc::Buf { buf, off, vstride, mat };
            let next = step(ir, ty, &mut loc, i).ok()?;
            let Loc::Buf { off, vstride, mat, .. } = loc else { return None };
            Some((next, (off, vstride, mat)))
        };
        let mut plan = BufChain { ty, buf, off, vstride, mat, indices: [ChainIndex { slot: 0, stride: 0, bound: 0 }; MAX_CHAIN_INDICES], count: 0 };
        let planned = args[1..].iter().all(|&s| {
            if let Some(&Val::Scalar(i)) = global(s) {
                return by(ty, at, i).map(|(t, a)| (ty, at) = (t, a)).is_some();
            }
            if s & G != 0 || plan.count as usize >= MAX_CHAIN_INDICES {
                return false;
            }
            // A struct's member is picked by a constant.
            let Some(bound) = ir.ty(ty).filter(|t| !matches!(t.ty, Type::Struct { .. })).and_then(|t| index_bound(&t.ty))
            else {
                return false;
            };
            let bound = bound.unwrap_or(u64::MAX);
            let Some((next, at0)) = by(ty, at, 0) else { return false };
            let stride = if bound > 1 {
                match by(ty, at, 1) {
                    Some((t, at1)) if t == next && (at1.1, at1.2) == (at0.1, at0.2) => at1.0.wrapping_sub(at0.0),
                    _ => return false,
                }
            } else {
                0
            };
            plan.indices[plan.count as usize] = ChainIndex { slot: s, stride, bound };
            plan.count += 1;
            (ty, at) = (next, at0);
            true
        });
        if !planned || plan.count == 0 {
            continue;
        }
        (plan.ty, plan.off, plan.vstride, plan.mat) = (ty, at.0, at.1, at.2);
        inst.handler = Handler::BufChain;
        if of.is_empty() {
            of = vec![u32::MAX; n];
        }
        of[pos] = chains.len() as u32;
        chains.push(plan);
    }
    of
}

/// Whether every operand that reads a register of `func` (`uses`, as in
/// [`fold_access_chains`]) reads one written before on every path from the
/// function's start: each register has one definition (an instruction's
/// result or a parameter, written at the start), in a block that dominates
/// the reading one (in the same block, earlier), an OpPhi's operand read at
/// the end of its parent block. Reads in blocks never reached do not count.
/// When it holds, what a register held before the frame was set up is never
/// read (the reset value included). Conservative: a block that does not end
/// in a known terminator, or any operand it cannot place, gives `false`.
fn defined_before_use(func: &Func, uses: &[(u32, u32)]) -> bool {
    use crate::cfg::{Csr, DomTree};
    let nb = func.blocks.len();
    let ni = func.insts.len();
    if nb == 0 {
        return false;
    }
    let end_of = |b: usize| func.blocks.get(b + 1).map_or(ni, |n| n.phis as usize);
    // Block of each instruction, and the edges.
    let mut block_of = vec![0u32; ni];
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for b in 0..nb {
        let (start, end) = (func.blocks[b].phis as usize, end_of(b));
        if start >= end || end > ni {
            return false;
        }
        for x in &mut block_of[start..end] {
            *x = b as u32;
        }
        let t = &func.insts[end - 1];
        let Some(args) = func.args.get(t.a as usize..(t.a + t.n) as usize) else { return false };
        match t.op {
            op::OpBranch => edges.extend(args.first().map(|&x| (b as u32, x))),
            op::OpBranchConditional => edges.extend(args.iter().skip(1).take(2).map(|&x| (b as u32, x))),
            // Every operand that could name a block (the literals too:
            // more edges only make fewer blocks dominate).
            op::OpSwitch => edges.extend(args.iter().skip(1).map(|&x| (b as u32, x))),
            op::OpReturn
            | op::OpReturnValue
            | op::OpKill
            | op::OpTerminateInvocation
            | op::OpUnreachable => {}
            _ => return false,
        }
    }
    // (A target that is no block fails the branch when run; `Csr::from_pairs`
    // drops it.)
    let rev: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
    let dom = DomTree::build(nb, 0, &Csr::from_pairs(nb, &edges), &Csr::from_pairs(nb, &rev), false);
    // Where each register is written: (block, instruction); parameters at
    // the start.
    let n = func.nlocals as usize;
    let mut def: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut once = |r: u32, at: (u32, u32)| -> bool {
        match def.get_mut(r as usize) {
            Some(d @ None) => {
                *d = Some(at);
                true
            }
            _ => false,
        }
    };
    for &p in &func.params {
        if !once(p, (0, 0)) {
            return false;
        }
    }
    for (k, inst) in func.insts.iter().enumerate() {
        if inst.res != NONE && !once(inst.res, (block_of[k], k as u32)) {
            return false;
        }
    }
    let params = func.params.len();
    for &(pos, at) in uses {
        let Some(&r) = func.args.get(pos as usize) else { return false };
        if r & G != 0 {
            // Folded into a global (see `fold_access_chains`).
            continue;
        }
        let Some(inst) = func.insts.get(at as usize) else { return false };
        let ub = block_of[at as usize];
        if !dom.contains(ub) {
            continue;
        }
        let Some(Some((db, di))) = def.get(r as usize).copied() else { return false };
        let is_param = func.params.contains(&r) && params > 0;
        if inst.op == op::OpPhi {
            // (value, parent) pairs: the parent follows the value.
            let Some(&parent) = func.args.get(pos as usize + 1) else { return false };
            if (pos - inst.a) % 2 != 0 || parent as usize >= nb {
                return false;
            }
            if !(is_param || dom.dominates(db, parent)) {
                return false;
            }
        } else if !(is_param || (db == ub && di < at) || (db != ub && dom.dominates(db, ub))) {
            return false;
        }
    }
    true
}
