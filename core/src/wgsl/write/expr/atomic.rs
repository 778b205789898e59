//! Atomics as WGSL's atomic built-ins: compare-exchange, and a min or max
//! of the other signedness, as compare-exchange loops.

use crate::grammar::{op, storage_class as sc};
use crate::ir::Type;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;

impl ModuleWriter<'_> {
    pub(in crate::wgsl::write) fn atomic(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<(), Refusal> {
        let o = self.ir.opcode(i);
        let at = Some(i as u32);
        let ptr = if o == op::OpAtomicStore { words[0] } else { words[2] };
        let storage = match self.ir.type_of(ptr).and_then(|t| self.ir.ty(t)).map(|t| &t.ty) {
            Some(Type::Pointer { storage, .. }) => *storage,
            _ => 0,
        };
        if !matches!(storage, sc::StorageBuffer | sc::Workgroup | sc::Uniform) {
            return Err(Refusal::new(RefusalCode::Atomic, "an atomic outside storage and workgroup memory", at));
        }
        let Some(k) = self.num(self.pointee(ptr)).filter(|n| n.kind.is_int() && n.n == 1) else {
            return Err(Refusal::new(RefusalCode::Atomic, "an atomic on a type other than i32 or u32", at));
        };
        let p = self.reference(f, ptr)?;
        if o == op::OpAtomicStore {
            let v = self.val_as(f, words[3], k)?;
            self.out.line_fmt(f.indent, format_args!("atomicStore(&{p}, {v});"), Some(i as u32));
            return Ok(());
        }
        let (rt, id) = (words[0], words[1]);
        let r = self.num(rt).unwrap_or(k);
        let one = if k.kind == Kind::I32 { "1i" } else { "1u" };
        let e = match o {
            op::OpAtomicLoad => format!("atomicLoad(&{p})"),
            op::OpAtomicIIncrement => format!("atomicAdd(&{p}, {one})"),
            op::OpAtomicIDecrement => format!("atomicSub(&{p}, {one})"),
            op::OpAtomicCompareExchange | op::OpAtomicCompareExchangeWeak => {
                let v = self.val_as(f, words[6], k)?;
                let c = self.val_as(f, words[7], k)?;
                let tmp = f.scope.fresh_under(Some(&self.globals_scope), None, format_args!("cmpxchg{id}"));
                let n = f.indent;
                self.out.line(n, &format!("var {tmp}: {};", k.text()), at);
                self.out.line(n, "loop {", at);
                self.out.line_fmt(n + 1, format_args!("let r = atomicCompareExchangeWeak(&{p}, {c}, {v});"), at);
                self.out.line_fmt(n + 1, format_args!("if r.exchanged || r.old_value != {c} {{ {tmp} = r.old_value; break; }}"), at);
                self.out.line(n, "}", at);
                tmp
            }
            _ => {
                let (name, sign) = match o {
                    op::OpAtomicExchange => ("atomicExchange", None),
                    op::OpAtomicIAdd => ("atomicAdd", None),
                    op::OpAtomicISub => ("atomicSub", None),
                    op::OpAtomicSMin => ("atomicMin", Some(Kind::I32)),
                    op::OpAtomicUMin => ("atomicMin", Some(Kind::U32)),
                    op::OpAtomicSMax => ("atomicMax", Some(Kind::I32)),
                    op::OpAtomicUMax => ("atomicMax", Some(Kind::U32)),
                    op::OpAtomicAnd => ("atomicAnd", None),
                    op::OpAtomicOr => ("atomicOr", None),
                    _ => ("atomicXor", None),
                };
                if let Some(s) = sign.filter(|&s| s != k.kind) {
                    // A signed min/max on an unsigned atomic, or the reverse
                    // (WGSL's follows the atomic's type): a compare-exchange
                    // loop computing it in the instruction's signedness.
                    let sn = k.with(s);
                    let v = self.val_as(f, words[5], sn)?;
                    let tmp = f.scope.fresh_under(Some(&self.globals_scope), None, format_args!("atomic{id}"));
                    let n = f.indent;
                    self.out.line(n, &format!("var {tmp}: {} = atomicLoad(&{p});", k.text()), at);
                    self.out.line(n, "loop {", at);
                    let mm = if name == "atomicMin" { "min" } else { "max" };
                    let m = cast(format!("{mm}({}, {v})", cast(tmp.clone(), k, sn)), sn, k);
                    self.out.line_fmt(n + 1, format_args!("let r = atomicCompareExchangeWeak(&{p}, {tmp}, {m});"), at);
                    self.out.line(n + 1, "if r.exchanged { break; }", at);
                    self.out.line_fmt(n + 1, format_args!("{tmp} = r.old_value;"), at);
                    self.out.line(n, "}", at);
                    return self.bind(f, i, id, rt, cast(tmp, k, r));
                }
                let v = self.val_as(f, words[5], k)?;
                format!("{name}(&{p}, {v})")
            }
        };
        self.bind(f, i, id, rt, cast(e, k, r))
    }
}
