//! Instructions as WGSL expressions and statements. [`ModuleWriter::inst`]
//! sends each instruction to the function of its family, each in its own
//! file: `memory`, `composite`, `arithmetic`, `comparison`, `conversion`,
//! `control` (calls and barriers), `atomic`, `subgroup`, `glsl`
//! (GLSL.std.450), `image`, `sample`; `emulate` writes helper functions for what WGSL
//! lacks, `value` reads operands and binds results. A family gives the
//! result's expression, which is bound to a `let` (or a hoisted `var`), or
//! `None` when it wrote its own statements.

mod arithmetic;
mod atomic;
mod comparison;
mod composite;
mod control;
mod conversion;
mod emulate;
mod glsl;
mod image;
mod memory;
mod sample;
mod subgroup;
mod value;

use super::ModuleWriter;
use super::function::FunctionContext;
use crate::grammar::class::{self, Family, OpClass};
use crate::grammar::op;
use crate::ir::Ir;
use crate::wgsl::plan::is_atomic;
use crate::wgsl::refuse::Refusal;

/// Vector components by index.
const XYZW: [&str; 4] = ["x", "y", "z", "w"];

/// The instruction being written.
#[derive(Clone, Copy)]
pub(super) struct Instruction<'a> {
    /// Its index in the module.
    pub index: usize,
    pub opcode: u16,
    /// Its operand words (result type and result id first, where it has them).
    pub words: &'a [u32],
    /// Its result type, 0 for none.
    pub result_type: u32,
    /// Its result id, 0 for none.
    pub result: u32,
}

impl Instruction<'_> {
    /// That WGSL has no counterpart of the instruction.
    pub fn unsupported(&self, ir: &Ir) -> Refusal {
        Refusal::unsupported(self.index, ir.desc(self.index).map_or("this instruction", |d| d.name))
    }
}

impl ModuleWriter<'_> {
    /// Write instruction `i` of a block. An operation on constants only is
    /// given them as run-time values: WGSL evaluates constant expressions when
    /// the shader is created and rejects what overflows, divides by zero,
    /// shifts too far or indexes out of bounds, where SPIR-V only leaves the
    /// result undefined (and the code may never run).
    pub(super) fn inst(&mut self, f: &mut FunctionContext, i: usize) -> Result<(), Refusal> {
        let data = matches!(
            self.ir.opcode(i),
            op::OpCompositeConstruct
                | op::OpCompositeExtract
                | op::OpCompositeInsert
                | op::OpCopyObject
                | op::OpVectorShuffle
                | op::OpStore
                | op::OpLoad
                | op::OpAccessChain
                | op::OpInBoundsAccessChain
                | op::OpFunctionCall
                | op::OpSelect
                | op::OpUndef
        );
        let ext = if self.ir.opcode(i) == op::OpExtInst { self.ir.words(i).get(2).copied() } else { None };
        let mut ids = self
            .ir
            .operands(i)
            .filter(|o| o.kind == crate::grammar::OperandKind::IdRef)
            .filter_map(|o| o.id())
            .filter(|&x| Some(x) != ext)
            .peekable();
        f.opaque = !data && ids.peek().is_some() && ids.all(|x| self.ir.constant(x).is_some());
        let r = self.dispatch(f, i);
        f.opaque = false;
        r
    }

    /// Instruction `i` by its family.
    fn dispatch(&mut self, f: &mut FunctionContext, i: usize) -> Result<(), Refusal> {
        let ir = self.ir;
        let opcode = ir.opcode(i);
        let words: &[u32] = ir.words(i);
        let has_result = ir.desc(i).is_some_and(|d| d.has_result_type());
        let (result_type, result) = if has_result { (words[0], words[1]) } else { (0, 0) };
        let inst = Instruction { index: i, opcode, words, result_type, result };
        let value = match opcode {
            op::OpLoad
            | op::OpStore
            | op::OpCopyMemory
            | op::OpAccessChain
            | op::OpInBoundsAccessChain
            | op::OpCopyObject
            | op::OpPtrAccessChain
            | op::OpInBoundsPtrAccessChain
            | op::OpConvertPtrToU
            | op::OpConvertUToPtr
            | op::OpVariableLengthArrayINTEL
            | op::OpSaveMemoryINTEL
            | op::OpRestoreMemoryINTEL
            | op::OpArrayLength => self.memory(f, &inst)?,
            op::OpFunctionCall | op::OpControlBarrier | op::OpMemoryBarrier | op::OpDemoteToHelperInvocation => {
                self.control(f, &inst)?
            }
            op::OpUndef
            | op::OpSelect
            | op::OpCompositeExtract
            | op::OpCompositeInsert
            | op::OpVectorInsertDynamic
            | op::OpCompositeConstruct
            | op::OpVectorShuffle
            | op::OpVectorExtractDynamic => self.composite(f, &inst)?,
            // Matrix transposition (grammar class Composite), with the
            // products it sits beside.
            op::OpTranspose => self.arithmetic(f, &inst)?,
            x if matches!(
                class::of(x),
                OpClass::Arith(_)
                    | OpClass::ArithExtended(_)
                    | OpClass::LinearAlgebra
                    | OpClass::Shift(_)
                    | OpClass::Bitwise { .. }
                    | OpClass::BitField(_)
                    | OpClass::BitScan
            ) =>
            {
                self.arithmetic(f, &inst)?
            }
            x if matches!(class::family(x), Family::Derivative) => self.arithmetic(f, &inst)?,
            x if matches!(
                class::of(x),
                OpClass::Compare { relation: Some(_), .. } | OpClass::Logical { .. } | OpClass::BoolReduce
            ) || x == op::OpIsNan
                || x == op::OpIsInf =>
            {
                self.comparison(f, &inst)?
            }
            x if matches!(class::of(x), OpClass::Convert { .. } | OpClass::Bitcast) || x == op::OpQuantizeToF16 => {
                self.conversion(f, &inst)?
            }
            x if is_atomic(x) => return self.atomic(f, i, words),
            op::OpGroupNonUniformElect..=op::OpGroupNonUniformQuadSwap => Some(self.subgroup(f, i, words)?),
            op::OpExtInst => {
                let set = ir.ext_import(words.get(2).copied().unwrap_or(0)).unwrap_or("");
                if set.starts_with("NonSemantic.") {
                    return Ok(());
                }
                if set != "GLSL.std.450" {
                    return Err(Refusal::unsupported(i, "an extended instruction outside GLSL.std.450"));
                }
                self.glsl(f, i, words)?
            }
            op::OpImageSampleImplicitLod..=op::OpImageWrite
            | op::OpSampledImage
            | op::OpImage
            | op::OpImageQuerySizeLod
            | op::OpImageQuerySize
            | op::OpImageQueryLod
            | op::OpImageQueryLevels
            | op::OpImageQuerySamples => self.image_inst(f, i, words)?,
            _ => return Err(inst.unsupported(ir)),
        };
        match value {
            Some(e) if has_result => self.bind(f, i, result, result_type, e),
            _ => Ok(()),
        }
    }
}
