//! Why a run did not finish, as data ([`RunErrorKind`]), and its rendering
//! into text ([`RunErrorKind::render`], which [`super::RunError`] uses).

use crate::grammar::{self, OperandKind};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// A buffer, as errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum BufferRef {
    /// The buffer at (set, binding).
    Binding { set: u32, binding: u32 },
    /// The memory of a Block-decorated Workgroup variable.
    Workgroup,
    PushConstants,
}

impl fmt::Display for BufferRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferRef::Binding { set, binding } => write!(f, "the buffer at set {set}, binding {binding}"),
            BufferRef::Workgroup => f.write_str("the workgroup memory"),
            BufferRef::PushConstants => f.write_str("the push constants"),
        }
    }
}

/// Where a data race happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum RaceSite {
    /// A Workgroup variable (its id and OpName), at `path` (indices into it).
    Variable { id: u32, name: Option<String>, path: Vec<u32> },
    /// A byte of a buffer.
    Buffer { buffer: BufferRef, byte: u64 },
}

/// One of the two accesses of a data race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct RaceAccess {
    /// The global invocation id of the invocation that made it.
    pub invocation: [u32; 3],
    /// The index of its instruction.
    pub inst: u32,
    pub wrote: bool,
    pub atomic: bool,
}

/// A feature the interpreter does not implement
/// ([`RunErrorKind::NotSupportedFeature`]); ids are result ids of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "feature", rename_all = "camelCase"))]
pub enum Feature {
    /// Floats of `bits` bits (16, 32 and 64 run).
    FloatWidth { bits: u32 },
    /// OpBitcast of a pointer.
    PointerBitcast,
    /// A `GroupOperation` other than Reduce, InclusiveScan, ExclusiveScan
    /// (and the clustered and partitioned forms the instruction allows).
    GroupOperation { operation: u32 },
    /// A GLSL.std.450 instruction.
    GlslInstruction { instruction: u32 },
    /// An untyped variable of a buffer storage class.
    UntypedVariables,
    /// An Input variable without BuiltIn.
    InputWithoutBuiltIn,
    /// A Block-decorated Workgroup variable without a known size of at most 64 MiB.
    UnsizedWorkgroupBlock,
    /// A variable-length array of `elements` elements, past the `limit`
    /// values one variable holds.
    LongArray { elements: u64, limit: u64 },
    /// An untyped variable in a function outside Function memory.
    UntypedVariableOutsideFunction,
    /// An untyped access chain whose Base Type is not the type of the memory it points into.
    UntypedChainBase,
    /// A pointer access chain on a pointer type without ArrayStride.
    PointerChainWithoutStride,
    /// A pointer access chain on an image, a sampler or an array of descriptors.
    PointerChainOnDescriptor,
    /// Reinterpreting a value of type `ty` as bytes.
    ValueAsBytes { ty: u32 },
    /// A load of type `ty` from `bytes` bytes of type `of`.
    LoadPastMemory { ty: u32, bytes: u64, of: u32 },
    /// A store of `bytes` bytes to `to` bytes of type `of`.
    StorePastMemory { bytes: u64, to: u64, of: u32 },
    /// Reading bytes as type `ty`.
    BytesAsValue { ty: u32 },
    /// An OpSpecConstantOp the interpreter cannot evaluate.
    SpecConstantOp,
    /// An extended instruction set other than GLSL.std.450.
    ExtInstSet,
    /// An image (at `binding`, as (set, binding)) without a format and size.
    ImageWithoutFormat { binding: Option<(u32, u32)> },
    /// A level of detail other than 0.
    LevelOfDetail,
    /// OpImageTexelPointer on an image whose format is not one 32- or 64-bit
    /// integer of the pointer's width.
    TexelPointerFormat,
    /// Sampling a value that is neither an OpSampledImage nor a combined
    /// image sampler descriptor.
    SampledImageValue,
    /// A sampler without its state.
    SamplerWithoutState,
    /// Linear filtering.
    LinearFiltering,
    /// Sampling with an offset (ConstOffset, Offset, ConstOffsets) or other
    /// image operands than the level of detail's.
    SampleOffset,
    /// A sampler address mode other than those that run.
    SamplerAddressMode,
    /// Kernel parameter `index`: a pointer to memory other than
    /// CrossWorkgroup or UniformConstant (`pointer`), or neither a pointer
    /// nor a scalar.
    KernelParameter { index: u32, pointer: bool },
    /// A graphics stage's Input or Output variable of type `ty`: not of
    /// 32-bit scalars (vectors, matrices, arrays and structs of them), or
    /// past the Locations held.
    InterfaceType { ty: u32 },
}

impl fmt::Display for Feature {
    fn fmt(&self, m: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Feature::FloatWidth { bits } => write!(m, "{bits}-bit floats"),
            Feature::PointerBitcast => m.write_str("OpBitcast of pointers"),
            Feature::GroupOperation { operation } => write!(m, "group operation {operation}"),
            Feature::GlslInstruction { instruction } => m.write_str(&glsl_name(instruction)),
            Feature::UntypedVariables => m.write_str("untyped variables"),
            Feature::InputWithoutBuiltIn => m.write_str("an Input variable without BuiltIn"),
            Feature::UnsizedWorkgroupBlock => {
                m.write_str("a Block-decorated Workgroup variable without a known size of at most 64 MiB")
            }
            Feature::LongArray { elements, limit } => write!(
                m,
                "a variable-length array of {elements} elements (the interpreter holds at most {limit} values in one variable)"
            ),
            Feature::UntypedVariableOutsideFunction => m.write_str("an untyped variable in a function outside Function memory"),
            Feature::UntypedChainBase => m.write_str(
                "an untyped access chain whose Base Type is not the type of the Function, Private or Workgroup memory it points into",
            ),
            Feature::PointerChainWithoutStride => m.write_str("a pointer access chain on a pointer type without ArrayStride"),
            Feature::PointerChainOnDescriptor => {
                m.write_str("a pointer access chain on an image, a sampler or an array of descriptors")
            }
            Feature::ValueAsBytes { ty } => write!(m, "reinterpreting a value of type %{ty} as bytes"),
            Feature::LoadPastMemory { ty, bytes, of } => {
                write!(m, "a load of type %{ty} from {bytes} bytes of type %{of} (past the memory the pointer points to)")
            }
            Feature::StorePastMemory { bytes, to, of } => {
                write!(m, "a store of {bytes} bytes to {to} bytes of type %{of} (past the memory the pointer points to)")
            }
            Feature::BytesAsValue { ty } => write!(m, "reading bytes as type %{ty}"),
            Feature::SpecConstantOp => m.write_str("a constant the interpreter cannot evaluate (OpSpecConstantOp)"),
            Feature::ExtInstSet => m.write_str("an extended instruction set other than GLSL.std.450"),
            Feature::ImageWithoutFormat { binding } => {
                m.write_str("an image")?;
                if let Some((s, b)) = binding {
                    write!(m, " at set {s}, binding {b}")?;
                }
                m.write_str(" without a format and size (give them in the run's options)")
            }
            Feature::LevelOfDetail => m.write_str("a level of detail other than 0 (images have one level)"),
            Feature::TexelPointerFormat => m.write_str(
                "OpImageTexelPointer on an image whose format is not one 32- or 64-bit integer of the pointer's width",
            ),
            Feature::SampledImageValue => {
                m.write_str("sampling a value that is neither an OpSampledImage nor a combined image sampler descriptor")
            }
            Feature::SamplerWithoutState => m.write_str("a sampler without its state (give it in the run's options)"),
            Feature::LinearFiltering => m.write_str("linear filtering"),
            Feature::InterfaceType { ty } => write!(m, "the interface variable type %{ty} (32-bit scalars, vectors, matrices, arrays and structs of them, at Locations below 64, run)"),
            Feature::SampleOffset => m.write_str("sampling with an offset or image operands other than Lod, Grad, Bias and MinLod"),
            Feature::SamplerAddressMode => m.write_str("this sampler address mode"),
            Feature::KernelParameter { index, pointer } => write!(
                m,
                "kernel parameter {index} ({})",
                if pointer { "a pointer to memory other than CrossWorkgroup or UniformConstant" } else { "not a pointer or a scalar" }
            ),
        }
    }
}

/// What went wrong in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum RunErrorKind {
    /// No GLCompute or Kernel entry point (named `name`, when one was asked
    /// for).
    NoEntryPoint { name: Option<String> },
    /// An invocation ran out of its step budget (`steps` instructions) in
    /// the block with label `block` (its OpName `block_name`, if any).
    NoTermination { steps: u64, block: u32, block_name: Option<String> },
    /// An instruction the interpreter does not run.
    NotSupported { opcode: u16 },
    /// Something else the interpreter does not do.
    NotSupportedFeature { feature: Feature },
    /// The run needs more than `limit` values of memory at once.
    TooMuchMemory { limit: u64 },
    /// Two invocations of a workgroup accessed the same memory, one of them
    /// writing, with no barrier between them.
    DataRace { site: RaceSite, first: RaceAccess, second: RaceAccess },
    /// Invocation `waiting` waits at a barrier that invocation `other`
    /// returned without reaching (`other_returned`), or waits at another.
    DivergentBarrier { waiting: [u32; 3], other: [u32; 3], other_returned: bool },
    /// `bytes` bytes at byte `offset` of `buffer` are outside it.
    OutOfBounds { buffer: BufferRef, offset: u64, bytes: u64 },
    /// An undefined value is stored to `buffer` at byte `byte`.
    UndefinedStore { buffer: BufferRef, byte: u64 },
    /// No buffer (or no push constants) is given for `buffer`.
    NoBuffer { buffer: BufferRef },
    /// A kernel's scalar parameter `param` has no bytes (binding (0, param))
    /// or fewer than it `needs` (`has`).
    KernelScalar { param: u32, needs: u64, has: Option<u64> },
    /// OpKill or OpTerminateInvocation was executed.
    Killed,
    /// A fragment shader's output at `location` (component `component`)
    /// written to a colour attachment (or its FragDepth, `location`
    /// `None`) holds an undefined value.
    UndefinedOutput { location: Option<u32>, component: u32 },
    /// OpGroupNonUniformBroadcast from the inactive invocation `id` of the
    /// subgroup.
    InactiveBroadcast { id: u32 },
    /// An operand the instruction needs is missing.
    MissingOperand,
    /// A scalar was expected (a composite or a pointer was given).
    ScalarExpected,
    /// A pointer was expected.
    PointerExpected,
    /// A pointer used as a number.
    PointerAsNumber,
    /// Values of different shapes where one shape is needed: the operands
    /// of an operator or of OpSelect, or a value and the memory it is
    /// stored to.
    ShapeMismatch { of: Shapes },
    /// An index out of bounds: `index` into `len` elements (of a vector, a
    /// composite, an array of descriptors), or a literal index (`index` and
    /// `len` not known).
    IndexOutOfBounds { into: Indexed, index: Option<u64>, len: Option<u64> },
    /// An element out of bounds of an array in Function memory: element
    /// `element` from element `from` of an array of `len`.
    ElementOutOfBounds { element: i64, from: i64, len: i64 },
    /// Integer division (or remainder) by zero.
    DivisionByZero,
    /// A shift by `shift` bits, not less than the width `width`. Its result
    /// is an undefined value (the spec's word), so an operation meeting it
    /// gives a value (0) instead, and the error is only ever the reason
    /// inside the interpreter.
    ShiftTooFar { shift: u64, width: u32 },
    /// A bit field of `count` bits at `offset`, past the width `width`: an
    /// undefined value too, 0 as for [`RunErrorKind::ShiftTooFar`].
    BitFieldTooWide { offset: u64, count: u64, width: u32 },
    /// A float operation on a type that is not a float.
    NotFloat,
    /// OpBitcast between types of different sizes.
    BitcastSizes,
    /// OpSelect with a pointer as its condition.
    SelectOnPointer,
    /// Type `ty` is not one the operation can read, lay out or index into.
    BadType { ty: u32, problem: TypeProblem },
    /// A load or a store (`store`) through a pointer to memory that is gone.
    MemoryGone { store: bool },
    /// A store to an image or sampler descriptor.
    StoreToDescriptor,
    /// A branch to a block outside the function.
    BranchOutside,
    /// An OpPhi has no value for the block control came from.
    PhiWithoutValue,
    /// Control ran past the end of a function.
    PastEnd,
    /// An OpSwitch case is cut short.
    TruncatedSwitch,
    /// The call stack is deeper than `limit`.
    CallTooDeep { limit: u32 },
    /// A call to a function that is not defined (`defined` false) or has no
    /// body.
    BadCall { defined: bool },
    /// OpUnreachable was reached.
    Unreachable,
    /// OpRestoreMemoryINTEL with a state that this function call did not
    /// save, or that was already freed.
    BadRestore,
    /// OpArrayLength on a pointer that is not into a buffer (`in_buffer`
    /// false), or on a member without Offset or ArrayStride.
    ArrayLength { in_buffer: bool },
    /// The module is not one the interpreter can read.
    Malformed { problem: Malformed },
    /// Extended instruction `inst` of GLSL.std.450 with the wrong number of
    /// operands (it takes `takes`).
    ExtOperands { inst: u32, takes: u32 },
    /// GLSL.std.450 Cross of vectors that do not have 3 components.
    CrossShape,
    /// GLSL.std.450 instruction `inst` (Determinant, MatrixInverse) of a
    /// matrix that is not square.
    NotSquare { inst: u32 },
    /// A ballot (a vector of four uints) was expected.
    BallotExpected,
    /// A group operation with no active invocation.
    NoActiveInvocation,
    /// A group operation's cluster size `size` is not a power of two.
    ClusterSize { size: u64 },
    /// An image instruction that cannot run.
    Image { problem: ImageProblem },
    /// An access chain indexes into an image or a sampler.
    IndexIntoHandle,
    /// The entry point named `entry` has no workgroup size the interpreter
    /// can read.
    NoWorkgroupSize { entry: String },
    /// A variable of storage class `storage_class` without DescriptorSet
    /// and Binding.
    NoDescriptor { storage_class: u32 },
    /// Memory of a storage class the interpreter does not hold.
    UnsupportedStorage { storage_class: u32 },
    /// A built-in variable the interpreter does not give.
    UnsupportedBuiltIn { built_in: u32 },
    /// A value of `components` scalar components, more than the `limit`
    /// the interpreter holds in one variable.
    ValueTooBig { components: u64, limit: u64 },
}

/// What [`RunErrorKind::ShapeMismatch`] found of different shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub enum Shapes {
    /// An operator's operands.
    Operands,
    /// OpSelect's operands.
    Select,
    /// A composite stored as a scalar.
    CompositeAsScalar,
    /// A scalar stored as a composite.
    ScalarAsComposite,
    /// A composite of another number of parts stored.
    CompositeSize,
    /// A GLSL.std.450 instruction's vector operands of different sizes.
    Sizes,
    /// GLSL.std.450 PackDouble2x32 of fewer than two words.
    PackDouble,
}

/// What [`RunErrorKind::IndexOutOfBounds`] indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub enum Indexed {
    /// A composite, by a literal (OpCompositeExtract, OpCompositeInsert).
    Literal,
    /// OpVectorShuffle's components.
    Shuffle,
    /// A vector, by a dynamic index.
    Vector,
    /// A composite, by an access chain.
    Composite,
    /// An array of descriptors.
    Descriptors,
}

/// Why [`RunErrorKind::BadType`] cannot use a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum TypeProblem {
    /// The id is not a type.
    NotAType,
    /// It nests too deep.
    TooDeep,
    /// A matrix in a buffer without MatrixStride.
    NoMatrixStride,
    /// An array in a buffer without ArrayStride.
    NoArrayStride,
    /// An array without a known length.
    NoLength,
    /// Member `member` of a struct in a buffer has no Offset.
    NoOffset { member: u32 },
    /// Not a type that is read or written in a buffer.
    NotInBuffer,
    /// A runtime array outside a buffer.
    RuntimeArrayOutsideBuffer,
    /// An access chain indexes into it, and it is not a composite (or, for
    /// an array of descriptors, not an array: `array`).
    NotComposite { array: bool },
}

/// Why [`RunErrorKind::Malformed`]: the module is not one the interpreter
/// can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub enum Malformed {
    /// An instruction's operands do not parse.
    Operands,
    /// OpVariable without a typed pointer type.
    UntypedVariable,
    /// The entry point's function is missing.
    NoEntryFunction,
    /// The entry point's function has no blocks.
    EmptyEntryFunction,
    /// An untyped Function variable without a Data Type.
    UntypedFunctionVariable,
}

/// Why [`RunErrorKind::Image`]: an image instruction that cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum ImageProblem {
    /// An image was expected.
    NotAnImage,
    /// No image is bound to the descriptor (`descriptor`) or at all.
    NotBound { descriptor: bool },
    /// OpImageTexelPointer without a pointer to an image.
    TexelPointerBase,
    /// OpImageTexelPointer's result is not a typed pointer.
    TexelPointerResult,
    /// Sampling coordinates are not floats.
    CoordinatesNotFloat,
    /// A sampling coordinate is not finite.
    CoordinateNotFinite,
    /// The sampled texel is outside the image.
    TexelOutside,
    /// The texel written (`written`) or the result is a float vector
    /// (`float`) where the image's format holds integers, or the reverse.
    FormatMismatch { written: bool, float: bool },
    /// Instruction `opcode` reads or writes a texel outside the image, at
    /// `coordinate` and `sample`.
    AccessOutside { opcode: u16, coordinate: Vec<i64>, sample: i64 },
    /// OpImageQuerySizeLod of a level the image does not have (it has one).
    MissingLevel,
    /// OpImageTexelPointer to a texel outside the image, at `coordinate`
    /// and `sample`.
    TexelPointerOutside { coordinate: Vec<i64>, sample: i64 },
}

/// The vertex or fragment of a draw at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawSite {
    /// The vertex shader run for vertex number `vertex` (VertexIndex) of
    /// instance `instance` (InstanceIndex).
    Vertex { vertex: u32, instance: u32 },
    /// The fragment shader run for the pixel (`x`, `y`) of primitive
    /// `primitive` (PrimitiveId).
    Fragment { x: u32, y: u32, primitive: u32 },
}

impl fmt::Display for DrawSite {
    fn fmt(&self, m: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DrawSite::Vertex { vertex, instance } => write!(m, "at vertex {vertex} of instance {instance}"),
            DrawSite::Fragment { x, y, primitive } => write!(m, "at fragment ({x}, {y}) of primitive {primitive}"),
        }
    }
}

impl RunErrorKind {
    /// Whether the message names the invocation at fault itself (so a front
    /// end need not add it).
    pub fn names_invocation(&self) -> bool {
        matches!(
            self,
            RunErrorKind::NoTermination { .. }
                | RunErrorKind::DataRace { .. }
                | RunErrorKind::DivergentBarrier { .. }
                | RunErrorKind::Killed
                | RunErrorKind::TooMuchMemory { .. }
                | RunErrorKind::InactiveBroadcast { .. }
        )
    }
}

/// `(x,y,z)`.
pub(crate) fn show(g: [u32; 3]) -> String {
    format!("({},{},{})", g[0], g[1], g[2])
}

/// The name of value `v` of operand kind `kind` (its number when the
/// grammar has none), for messages.
pub(crate) fn enumerant(kind: OperandKind, v: u32) -> String {
    match kind.enumerant(v) {
        Some(e) => String::from(e.name),
        None => format!("{v}"),
    }
}

/// The name of GLSL.std.450 instruction `e`, for messages.
pub(crate) fn glsl_name(e: u32) -> String {
    grammar::ext_inst_set("GLSL.std.450")
        .and_then(|s| s.instructions.iter().find(|i| i.opcode == e))
        .map_or(format!("GLSL.std.450 instruction {e}"), |i| format!("GLSL.std.450 {}", i.name))
}

/// The name of opcode `op`, for messages.
pub(crate) fn op_name(op: u16) -> String {
    match grammar::instruction(op) {
        Some(d) => String::from(d.name),
        None => format!("opcode {op}"),
    }
}

impl RunErrorKind {
    /// The message, the invocation at fault being `invocation`, with
    /// instructions named as `inst` gives them (else "instruction N") and
    /// blocks as `block` gives them (else `%` and their OpName or id).
    pub fn render(
        &self,
        invocation: Option<[u32; 3]>,
        inst: impl Fn(u32) -> Option<String>,
        block: impl Fn(u32) -> Option<String>,
    ) -> String {
        let inst_name = |i: u32| inst(i).unwrap_or_else(|| format!("instruction {i}"));
        let mut m = String::new();
        let _ = match self {
            RunErrorKind::NoEntryPoint { name: Some(name) } => {
                write!(m, "no GLCompute or Kernel entry point named \"{name}\"")
            }
            RunErrorKind::NoEntryPoint { name: None } => {
                write!(m, "the module has no GLCompute or Kernel entry point")
            }
            RunErrorKind::NoTermination { steps, block: label, block_name } => {
                let inv = invocation.map_or_else(|| String::from("it"), |g| format!("invocation {}", show(g)));
                let name = block(*label).unwrap_or_else(|| match block_name {
                    Some(n) => format!("%{n}"),
                    None => format!("%{label}"),
                });
                write!(m, "did not terminate after {steps} steps; {inv} was in block {name}")
            }
            RunErrorKind::NotSupported { opcode } => write!(m, "not supported: {}", op_name(*opcode)),
            RunErrorKind::NotSupportedFeature { feature } => write!(m, "not supported: {feature}"),
            RunErrorKind::TooMuchMemory { limit } => write!(
                m,
                "not supported: the run needs more than {limit} values of memory at once (Private, Function and Workgroup variables of all the workgroup's invocations)"
            ),
            RunErrorKind::DataRace { site, first, second } => {
                let _ = match site {
                    RaceSite::Variable { id, name, path } => {
                        let _ = match name {
                            Some(n) => write!(m, "data race on %{n}"),
                            None => write!(m, "data race on %{id}"),
                        };
                        for k in path {
                            let _ = write!(m, "[{k}]");
                        }
                        Ok(())
                    }
                    RaceSite::Buffer { buffer, byte } => write!(m, "data race on {buffer} at byte {byte}"),
                };
                let verb = |a: &RaceAccess| {
                    format!("{}{}", if a.wrote { "wrote" } else { "read" }, if a.atomic { " atomically" } else { "" })
                };
                write!(
                    m,
                    ": invocation {} {} at {}, invocation {} {} at {} (with no OpControlBarrier between them in one workgroup)",
                    show(first.invocation),
                    verb(first),
                    inst_name(first.inst),
                    show(second.invocation),
                    verb(second),
                    inst_name(second.inst),
                )
            }
            RunErrorKind::DivergentBarrier { waiting, other, other_returned: true } => write!(
                m,
                "invocation {} waits at an OpControlBarrier that invocation {} returned without reaching (a barrier in non-uniform control flow)",
                show(*waiting),
                show(*other)
            ),
            RunErrorKind::DivergentBarrier { waiting, other, other_returned: false } => write!(
                m,
                "invocations {} and {} wait at different OpControlBarriers (a barrier in non-uniform control flow)",
                show(*waiting),
                show(*other)
            ),
            RunErrorKind::OutOfBounds { buffer, offset, bytes } => {
                write!(m, "out-of-bounds access: {bytes} bytes at offset {offset} of {buffer}")
            }
            RunErrorKind::UndefinedStore { buffer, byte } => write!(
                m,
                "an undefined value is stored to {buffer} at byte {byte} (from OpUndef, or memory never written: a variable without initializer or Workgroup memory)"
            ),
            RunErrorKind::NoBuffer { buffer: BufferRef::Binding { set, binding } } => {
                write!(m, "no buffer is bound at set {set}, binding {binding}")
            }
            RunErrorKind::NoBuffer { .. } => write!(m, "no push constants were given"),
            RunErrorKind::KernelScalar { param: k, has: None, .. } => {
                write!(m, "kernel parameter {k} is a scalar: give its value as the bytes of binding (0, {k})")
            }
            RunErrorKind::KernelScalar { param: k, needs, has: Some(has) } => {
                write!(m, "kernel parameter {k} needs {needs} bytes at binding (0, {k}); it has {has}")
            }
            RunErrorKind::Killed => write!(m, "the invocation was killed (OpKill)"),
            RunErrorKind::UndefinedOutput { location: Some(l), component } => {
                write!(m, "an undefined value written to the colour attachment at Location {l} (component {component})")
            }
            RunErrorKind::UndefinedOutput { location: None, .. } => write!(m, "an undefined value written as FragDepth"),
            RunErrorKind::InactiveBroadcast { id } => {
                write!(m, "OpGroupNonUniformBroadcast from invocation {id}, which is not active")
            }
            RunErrorKind::MissingOperand => write!(m, "an operand is missing"),
            RunErrorKind::NoDescriptor { storage_class } => {
                write!(m, "a {} variable without DescriptorSet and Binding", enumerant(OperandKind::StorageClass, *storage_class))
            }
            RunErrorKind::UnsupportedStorage { storage_class } => {
                write!(m, "not supported: {} storage class", enumerant(OperandKind::StorageClass, *storage_class))
            }
            RunErrorKind::UnsupportedBuiltIn { built_in } => {
                write!(m, "not supported: built-in {}", enumerant(OperandKind::BuiltIn, *built_in))
            }
            RunErrorKind::NoWorkgroupSize { entry } => {
                write!(m, "entry point \"{entry}\" has no workgroup size the interpreter can read")
            }
            RunErrorKind::IndexIntoHandle => write!(m, "an access chain indexes into an image or sampler"),
            RunErrorKind::ValueTooBig { components, limit } => write!(
                m,
                "not supported: a value of {components} components (the interpreter holds at most {limit} in one variable)"
            ),
            RunErrorKind::ScalarExpected => write!(m, "a scalar was expected"),
            RunErrorKind::PointerExpected => write!(m, "a pointer was expected"),
            RunErrorKind::PointerAsNumber => write!(m, "a pointer used as a number"),
            RunErrorKind::ShapeMismatch { of } => m.write_str(match of {
                Shapes::Operands => "operands of different shapes",
                Shapes::Select => "OpSelect with operands of different shapes",
                Shapes::CompositeAsScalar => "a composite stored as a scalar",
                Shapes::ScalarAsComposite => "a scalar stored as a composite",
                Shapes::CompositeSize => "a composite of the wrong size stored",
                Shapes::Sizes => "operands of different sizes",
                Shapes::PackDouble => "PackDouble2x32 needs two words",
            }),
            RunErrorKind::IndexOutOfBounds { into, index, len } => {
                let (i, n) = (index.unwrap_or(0), len.unwrap_or(0));
                match into {
                    Indexed::Literal => write!(m, "a composite index is out of bounds"),
                    Indexed::Shuffle => write!(m, "a shuffle index is out of bounds"),
                    Indexed::Vector => write!(m, "index {i} is out of bounds of a vector of {n}"),
                    Indexed::Composite => write!(m, "index {i} is out of bounds of a composite of {n} elements"),
                    Indexed::Descriptors => write!(m, "index {i} is out of bounds of an array of {n} descriptors"),
                }
            }
            RunErrorKind::ElementOutOfBounds { element, from, len } => write!(
                m,
                "out-of-bounds access: element {element} from element {from} of an array of {len} in Function memory"
            ),
            RunErrorKind::DivisionByZero => write!(m, "integer division by zero"),
            RunErrorKind::ShiftTooFar { shift, width } => write!(m, "shift by {shift}, not less than the width {width}"),
            RunErrorKind::BitFieldTooWide { offset, count, width } => {
                write!(m, "bit field offset {offset} + count {count} exceeds the width {width}")
            }
            RunErrorKind::NotFloat => write!(m, "a float operation on a type that is not a float"),
            RunErrorKind::BitcastSizes => write!(m, "OpBitcast between types of different sizes"),
            RunErrorKind::SelectOnPointer => write!(m, "OpSelect on a pointer condition"),
            RunErrorKind::BadType { ty, problem } => match problem {
                TypeProblem::NotAType => write!(m, "%{ty} is not a type"),
                TypeProblem::TooDeep => write!(m, "type %{ty} nests too deep"),
                TypeProblem::NoMatrixStride => write!(m, "a matrix in a buffer without MatrixStride"),
                TypeProblem::NoArrayStride => write!(m, "array %{ty} in a buffer without ArrayStride"),
                TypeProblem::NoLength => write!(m, "array %{ty} has no known length"),
                TypeProblem::NoOffset { member } => write!(m, "member {member} of struct %{ty} has no Offset"),
                TypeProblem::NotInBuffer => write!(m, "cannot read or write type %{ty} in a buffer"),
                TypeProblem::RuntimeArrayOutsideBuffer => write!(m, "a runtime array outside a buffer"),
                TypeProblem::NotComposite { array: true } => {
                    write!(m, "an access chain indexes into %{ty}, which is not an array")
                }
                TypeProblem::NotComposite { array: false } => {
                    write!(m, "an access chain indexes into %{ty}, which is not a composite")
                }
            },
            RunErrorKind::MemoryGone { store } => {
                write!(m, "a {} through a pointer to memory that is gone", if *store { "store" } else { "load" })
            }
            RunErrorKind::StoreToDescriptor => write!(m, "a store to an image or sampler descriptor"),
            RunErrorKind::BranchOutside => write!(m, "a branch to a block outside the function"),
            RunErrorKind::PhiWithoutValue => write!(m, "OpPhi has no value for the block control came from"),
            RunErrorKind::PastEnd => write!(m, "control ran past the end of a function"),
            RunErrorKind::TruncatedSwitch => write!(m, "OpSwitch has a truncated case"),
            RunErrorKind::CallTooDeep { limit } => write!(m, "the call stack is deeper than {limit}"),
            RunErrorKind::BadCall { defined: false } => write!(m, "a call to a function that is not defined"),
            RunErrorKind::BadCall { defined: true } => write!(m, "a call to a function without a body"),
            RunErrorKind::Unreachable => write!(m, "OpUnreachable was reached"),
            RunErrorKind::BadRestore => write!(
                m,
                "OpRestoreMemoryINTEL with a state that this function call did not save, or that was already freed"
            ),
            RunErrorKind::ArrayLength { in_buffer: false } => {
                write!(m, "OpArrayLength on a pointer that is not into a buffer")
            }
            RunErrorKind::ArrayLength { in_buffer: true } => {
                write!(m, "OpArrayLength on a member without Offset or ArrayStride")
            }
            RunErrorKind::Malformed { problem } => m.write_str(match problem {
                Malformed::Operands => "the instruction's operands do not parse",
                Malformed::UntypedVariable => "OpVariable without a typed pointer type",
                Malformed::NoEntryFunction => "the entry point's function is missing",
                Malformed::EmptyEntryFunction => "the entry point's function has no blocks",
                Malformed::UntypedFunctionVariable => "an untyped Function variable without a Data Type",
            }),
            RunErrorKind::ExtOperands { inst, takes } => write!(m, "{} takes {takes} operands", glsl_name(*inst)),
            RunErrorKind::CrossShape => write!(m, "GLSL.std.450 Cross needs 3-component vectors"),
            RunErrorKind::NotSquare { inst } => write!(m, "{} needs a square matrix", glsl_name(*inst)),
            RunErrorKind::BallotExpected => write!(m, "a ballot (a vector of four uints) was expected"),
            RunErrorKind::NoActiveInvocation => write!(m, "no active invocation"),
            RunErrorKind::ClusterSize { size } => write!(m, "cluster size {size} is not a power of two"),
            RunErrorKind::Image { problem } => match problem {
                ImageProblem::NotAnImage => write!(m, "an image was expected"),
                ImageProblem::NotBound { descriptor: true } => write!(m, "no image is bound to the descriptor"),
                ImageProblem::NotBound { descriptor: false } => write!(m, "no image is bound"),
                ImageProblem::TexelPointerBase => write!(m, "OpImageTexelPointer needs a pointer to an image"),
                ImageProblem::TexelPointerResult => write!(m, "OpImageTexelPointer's result is not a typed pointer"),
                ImageProblem::CoordinatesNotFloat => write!(m, "sampling coordinates are not floats"),
                ImageProblem::CoordinateNotFinite => write!(m, "a sampling coordinate is not finite"),
                ImageProblem::TexelOutside => write!(m, "the sampled texel is outside the image"),
                ImageProblem::FormatMismatch { written, float } => {
                    let what = if *written { "the texel written" } else { "the result" };
                    let is = if *float { "a float vector" } else { "an integer vector" };
                    let holds = if *float { "integers" } else { "floats" };
                    write!(m, "{what} is {is} but the image's format holds {holds}")
                }
                ImageProblem::AccessOutside { opcode, coordinate, sample } => write!(
                    m,
                    "{} of a texel outside the image: coordinate {coordinate:?}, sample {sample} (undefined without robust image access)",
                    op_name(*opcode)
                ),
                ImageProblem::MissingLevel => {
                    write!(m, "OpImageQuerySizeLod of a level the image does not have (it has one)")
                }
                ImageProblem::TexelPointerOutside { coordinate, sample } => write!(
                    m,
                    "OpImageTexelPointer to a texel outside the image: coordinate {coordinate:?}, sample {sample} (undefined without robust image access)"
                ),
            },
        };
        m
    }
}
