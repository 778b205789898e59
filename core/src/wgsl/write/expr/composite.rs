//! Composites: construction (array elements in their stride wrappers),
//! extraction and insertion, vector shuffles and dynamic extraction, selects,
//! undefined values.

use super::{Instruction, XYZW};
use super::memory::Index;
use crate::grammar::op;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// Composites: construction, extraction, insertion, shuffles, selects, undefined values.
    pub(in crate::wgsl::write) fn composite(&mut self, f: &mut FunctionContext, inst: &Instruction) -> Result<Option<String>, Refusal> {
        let Instruction { index: i, opcode: o, words, result_type: rt, result: id } = *inst;
        let ir = self.ir;
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        let rnum = self.num(rt);
        let e: String = match o {
            op::OpUndef => format!("{}()", self.ty(rt, i as u32)?),
            op::OpSelect => {
                if self.is_pointer(rt) {
                    return Err(Refusal::new(RefusalCode::VariablePointer, "an OpSelect of pointers", Some(i as u32)));
                }
                if rnum.is_none() {
                    return Err(Refusal::unsupported(i, "OpSelect of a composite"));
                }
                let c = self.val(f, arg(2))?;
                let a = self.val(f, arg(3))?;
                let b = self.val(f, arg(4))?;
                format!("select({b}, {a}, {c})")
            }
            op::OpCompositeExtract => {
                let mut e = self.val(f, arg(2))?;
                let mut t = ir.type_of(arg(2)).unwrap_or(0);
                for &k in &words[3..] {
                    t = self.step(&mut e, t, Index::Lit(k))?;
                }
                e
            }
            op::OpCompositeInsert | op::OpVectorInsertDynamic => {
                let (obj, comp) = if o == op::OpCompositeInsert { (arg(2), arg(3)) } else { (arg(3), arg(2)) };
                let c = self.val(f, comp)?;
                let v = self.val(f, obj)?;
                let mut path = String::new();
                if o == op::OpCompositeInsert {
                    let mut t = rt;
                    for &k in &words[4..] {
                        t = self.step(&mut path, t, Index::Lit(k))?;
                    }
                } else {
                    path = format!("[{}]", self.val(f, arg(4))?);
                }
                let n = if f.hoisted.contains(&id) {
                    let n = f.names.get(&id).copied().unwrap_or_default();
                    self.out.line_fmt(f.indent, format_args!("{} = {c};", f.text_of(n)), Some(i as u32));
                    n
                } else {
                    let t = self.ty(rt, i as u32)?;
                    let n = f.scope.fresh_name(Some(&self.globals_scope), ir.name(id), "x", id);
                    self.out.line_fmt(f.indent, format_args!("var {}: {t} = {c};", f.scope.text_of(n)), Some(i as u32));
                    f.names.insert(id, n);
                    n
                };
                self.out.line_fmt(f.indent, format_args!("{}{path} = {v};", f.text_of(n)), Some(i as u32));
                return Ok(None);
            }
            op::OpCompositeConstruct => {
                let t = self.ty(rt, i as u32)?;
                let wrap = self.wrappers.get(&rt).cloned();
                let mut args = Vec::new();
                for &a in &words[2..] {
                    let e = self.val(f, a)?;
                    args.push(match &wrap {
                        Some(wrapper) => format!("{wrapper}({e})"),
                        None => e,
                    });
                }
                format!("{t}({})", args.join(", "))
            }
            op::OpVectorShuffle => {
                let t = self.ty(rt, i as u32)?;
                let a = self.val(f, arg(2))?;
                let b = self.val(f, arg(3))?;
                let na = self.num_of(arg(2)).map_or(0, |n| n.n);
                let mut args = Vec::new();
                for &c in &words[4..] {
                    let s = if c == u32::MAX {
                        format!("{a}.x")
                    } else if c < na {
                        format!("{a}.{}", XYZW[(c & 3) as usize])
                    } else {
                        format!("{b}.{}", XYZW[((c - na) & 3) as usize])
                    };
                    args.push(s);
                }
                format!("{t}({})", args.join(", "))
            }
            op::OpVectorExtractDynamic => {
                // WGSL rejects a constant index past the end, which SPIR-V
                // leaves undefined: clamp it (WGSL clamps at run time anyway).
                let v = self.val(f, arg(2))?;
                let n = self.num_of(arg(2)).map_or(1, |n| n.n);
                let u = Num { kind: Kind::U32, n: 1 };
                let k = self.val_as(f, arg(3), u)?;
                format!("{v}[min({k}, {}u)]", n - 1)
            }
            _ => return Err(inst.unsupported(self.ir)),
        };
        Ok(Some(e))
    }
}
