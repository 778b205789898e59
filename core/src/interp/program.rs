//! The decoded program: per function its instructions in a compact form
//! (opcode, result slot, operands resolved to slots), the constants and
//! global variables as values, and what the run binds. [`super::decode`]
//! builds it; the operations and the run loop read it.

use super::image::{Desc, Sampler};
use super::io::Leaf;
use super::kernel::Param;
use super::mem::{BufKey, Val};
use super::num::ScalarType;
use crate::ir::Ir;
use alloc::vec::Vec;

/// A global slot (constants, undefs, global variables) has this bit set.
pub(super) const G: u32 = 0x8000_0000;
/// No result.
pub(super) const NONE: u32 = u32::MAX;
/// An operand id that names no value, block or function.
pub(super) const NO_VALUE: u32 = u32::MAX;
/// An instruction that reads a constant the IR could not evaluate.
pub(super) const OP_BAD_CONST: u16 = u16::MAX;
/// An access chain whose base is a global variable and whose indices are
/// constants, resolved when decoding (see `decode::fold_access_chains`): it copies
/// its one operand, the pointer.
pub(super) const OP_CONST_PTR: u16 = u16::MAX - 1;

/// One decoded instruction.
#[derive(Clone, Debug)]
pub(super) struct Inst {
    pub op: u16,
    /// The index of the instruction in the module.
    pub idx: u32,
    /// The local slot of the result, or [`NONE`].
    pub res: u32,
    /// The result type id (for OpVariable: the pointee type).
    pub ty: u32,
    /// The result's (component) scalar kind.
    pub sk: ScalarType,
    /// The first value operand's (component) scalar kind.
    pub ak: ScalarType,
    /// The operands: `Func::args[a..a + n]`.
    pub a: u32,
    pub n: u32,
    /// The handler the run loop gives it (picked when decoding).
    pub handler: Handler,
}

/// Which handler runs an instruction, picked once when decoding (see
/// `decode::pick_handlers`). A specialised handler reads its operands in a
/// faster way where they are what it takes (defined scalars, a pointer to
/// memory held as values, a scalar in a buffer) and computes the result
/// with the same function as the general handler; otherwise the general
/// handler runs the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Handler {
    /// The general handler only.
    General,
    /// `ops::arith::scalar_binary` on defined scalars or small vectors of them.
    Binary,
    /// `ops::arith::scalar_unary` on a defined scalar.
    Unary,
    /// OpSelect on defined scalars (`ops::arith::select`).
    Select,
    /// OpBitcast component to component (`ops::arith::bitcast_bits`).
    Bitcast,
    /// OpImageRead, OpImageWrite, OpImageFetch, OpImageTexelPointer.
    Image,
    Branch,
    BranchConditional,
    /// OpLoad, OpStore, OpAccessChain, OpInBoundsAccessChain,
    /// OpCompositeExtract, OpCompositeConstruct.
    Memory,
    /// The integer atomic read-modify-writes.
    AtomicRmw,
    AtomicLoad,
    AtomicStore,
    Return,
    /// A constant pointer copied into its register.
    ConstPtr,
    /// An access chain into a buffer, resolved when decoding: its plan is
    /// `Program::chains[Program::chain_of[f][k]]` for the instruction at
    /// position `k` of function `f`.
    BufChain,
}

/// An access chain (OpAccessChain, OpInBoundsAccessChain) whose base is a
/// pointer into a buffer in a global slot and whose indices are not all
/// constants, resolved when decoding by the steps `mem::step` takes (see
/// `decode::plan_buf_chains`): the pointer it makes when every index that is
/// not a constant is 0, and for each of those indices the byte distance
/// between two neighbouring parts. An index at or past its bound, or one that
/// is not a defined scalar, is the general handler's.
#[derive(Clone, Debug)]
pub(super) struct BufChain {
    /// The pointee type of the result.
    pub ty: u32,
    pub buf: u32,
    pub off: u64,
    pub vstride: u32,
    pub mat: Option<(u32, bool)>,
    /// The indices read when running: the first `count`.
    pub indices: [ChainIndex; MAX_CHAIN_INDICES],
    pub count: u8,
}

/// The most indices read when running that a [`BufChain`] takes.
pub(super) const MAX_CHAIN_INDICES: usize = 4;

/// An index of a [`BufChain`] read when running.
#[derive(Clone, Copy, Debug)]
pub(super) struct ChainIndex {
    /// The operand's slot.
    pub slot: u32,
    /// The bytes one more moves the pointer by.
    pub stride: u64,
    /// The number of parts (`u64::MAX`: a runtime array).
    pub bound: u64,
}

/// One block: its phis are `insts[phis..body]`, its other instructions from `body`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    pub label: u32,
    pub phis: u32,
    pub body: u32,
}

#[derive(Clone, Debug)]
pub(super) struct Func {
    pub insts: Vec<Inst>,
    pub args: Vec<u32>,
    pub blocks: Vec<Block>,
    pub nlocals: u32,
    /// The local slots of the parameters.
    pub params: Vec<u32>,
    /// Every register is written before any read of it on every path (a
    /// valid module's dominance, parameters written at the call): a frame
    /// set up again for this function needs no reset of its registers (see
    /// [`defined_before_use`]).
    pub defined: bool,
}

/// A built-in input: the per-invocation variable, the BuiltIn, its type.
#[derive(Clone, Copy, Debug)]
pub(super) struct BuiltIn {
    pub var: u32,
    pub builtin: u32,
    pub ty: u32,
}

pub(super) struct Program<'a> {
    pub ir: &'a Ir,
    /// Access chain indices are clamped ([`super::Options::robust_access`]).
    pub robust: bool,
    pub funcs: Vec<Func>,
    pub entry: u32,
    /// The entry point's EarlyFragmentTests: a fragment's depth test (and
    /// write) runs before its shader, which does not run where it fails.
    pub early_tests: bool,
    pub local_size: [u32; 3],
    /// Constants, undefs and global variable pointers.
    pub globals: Vec<Val>,
    /// The initial values of the per-invocation global variables.
    pub private_init: Vec<Val>,
    /// The initial values of the Workgroup variables (zero unless initialised).
    pub shared_init: Vec<Val>,
    /// The ids of the Workgroup variables held as values (by index).
    pub shared_ids: Vec<u32>,
    pub builtins: Vec<BuiltIn>,
    pub bufs: Vec<BufKey>,
    /// A Kernel entry point (see [`super::kernel`]).
    pub kernel: bool,
    /// A kernel's parameters, and their values once bound.
    pub params: Vec<Param>,
    pub entry_args: Vec<Val>,
    /// The images' descriptions, by `Loc::Image::img` (`None`: not given).
    pub images: Vec<Option<Desc>>,
    /// The samplers' states, by `Loc::Sampler::smp` (`None`: not given).
    pub samplers: Vec<Option<Sampler>>,
    /// The plans of the access chains with [`Handler::BufChain`].
    pub chains: Vec<BufChain>,
    /// Per function, per instruction position, the index of its plan in
    /// `chains` (for the instructions with [`Handler::BufChain`]; empty for a
    /// function that has none).
    pub chain_of: Vec<Vec<u32>>,
    /// The byte size of the explicitly laid out workgroup memory (the
    /// biggest Block-decorated Workgroup variable), if the module has any.
    pub wg_bytes: u64,
    /// A graphics stage's Input and Output variables, scalar by scalar
    /// (see [`super::io`]; empty for compute).
    pub inputs: Vec<Leaf>,
    pub outputs: Vec<Leaf>,
}
