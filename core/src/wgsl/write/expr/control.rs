//! Function calls (pointer arguments only to whole variables) and barriers
//! (workgroup-scope control barriers; a memory barrier only where a control
//! barrier follows).

use super::Instruction;
use crate::grammar::op;
use crate::ir::Type;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// Calls and barriers.
    pub(in crate::wgsl::write) fn control(&mut self, f: &mut FunctionContext, inst: &Instruction) -> Result<Option<String>, Refusal> {
        let Instruction { index: i, opcode: o, words, result_type: rt, .. } = *inst;
        let ir = self.ir;
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        let e: String = match o {
            op::OpFunctionCall => {
                let callee = self.global_names.get(&arg(2)).cloned().unwrap_or_default();
                let mut args = Vec::new();
                for &a in &words[3..] {
                    if ir.type_of(a).is_some_and(|t| self.is_pointer(t)) {
                        let whole = matches!(ir.def_opcode(a), Some(op::OpVariable | op::OpFunctionParameter));
                        if !whole {
                            return Err(Refusal::new(
                                RefusalCode::PointerParameter,
                                "a pointer argument into part of a variable (WGSL passes whole variables)",
                                Some(i as u32),
                            ));
                        }
                        args.push(format!("&{}", self.reference(f, a)?));
                    } else if matches!(ir.type_of(a).and_then(|t| ir.ty(t)).map(|t| &t.ty), Some(Type::SampledImage { .. })) {
                        // Its texture and its sampler (the callee's two parameters).
                        let (t, s) = self.sampled_texts(f, a, Some(i as u32))?;
                        args.push(format!("{t}, {s}"));
                    } else {
                        args.push(self.val(f, a)?);
                    }
                }
                let call = format!("{callee}({})", args.join(", "));
                if matches!(ir.ty(rt).map(|t| &t.ty), Some(Type::Void)) {
                    self.out.line_fmt(f.indent, format_args!("{call};"), Some(i as u32));
                    return Ok(None);
                }
                call
            }
            op::OpControlBarrier => {
                let exec = ir.const_u64(arg(0)).unwrap_or(0);
                let sem = ir.const_u64(arg(2)).unwrap_or(0);
                if exec != crate::grammar::scope::Workgroup as u64 {
                    return Err(Refusal::new(RefusalCode::Barrier, "a control barrier of a scope other than Workgroup", Some(i as u32)));
                }
                use crate::grammar::memory_semantics as ms;
                if sem & (ms::UniformMemory | ms::ImageMemory) as u64 != 0 {
                    self.stmt_line(f, i, String::from("storageBarrier();"));
                }
                self.stmt_line(f, i, String::from("workgroupBarrier();"));
                return Ok(None);
            }
            op::OpMemoryBarrier => {
                // Kept only where a control barrier follows, which carries it.
                let mut j = i + 1;
                while matches!(ir.opcode(j), op::OpLine | op::OpNoLine | op::OpNop | op::OpMemoryBarrier) {
                    j += 1;
                }
                if ir.opcode(j) == op::OpControlBarrier {
                    return Ok(None);
                }
                return Err(Refusal::new(RefusalCode::Barrier, "a memory barrier without a control barrier", Some(i as u32)));
            }
            // WGSL's discard makes the invocation a helper invocation, which
            // goes on running: OpDemoteToHelperInvocation.
            op::OpDemoteToHelperInvocation => {
                self.stmt_line(f, i, String::from("discard;"));
                return Ok(None);
            }
            _ => return Err(inst.unsupported(self.ir)),
        };
        Ok(Some(e))
    }
}
