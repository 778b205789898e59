//! GLSL.std.450 instructions as WGSL built-ins (integer ones computed in
//! their signedness; scalar forms of the geometric ones written out).

use crate::grammar::ext_inst::glsl_std_450 as g;
use crate::wgsl::refuse::Refusal;
use crate::wgsl::types::{Kind, Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// A GLSL.std.450 instruction: its value, or `None` when it was written
    /// as statements with no value left.
    pub(in crate::wgsl::write) fn glsl(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<Option<String>, Refusal> {
        let rt = words[0];
        let r = self.num(rt);
        let inst = words[3];
        let args = &words[4..];
        let a = |k: usize| args.get(k).copied().unwrap_or(0);
        let plain = |name: &str| -> Option<&'static str> {
            let _ = name;
            None
        };
        let _ = plain;
        let simple: Option<&str> = match inst {
            g::Round | g::RoundEven => Some("round"),
            g::Trunc => Some("trunc"),
            g::FAbs => Some("abs"),
            g::FSign => Some("sign"),
            g::Floor => Some("floor"),
            g::Ceil => Some("ceil"),
            g::Fract => Some("fract"),
            g::Radians => Some("radians"),
            g::Degrees => Some("degrees"),
            g::Sin => Some("sin"),
            g::Cos => Some("cos"),
            g::Tan => Some("tan"),
            g::Asin => Some("asin"),
            g::Acos => Some("acos"),
            g::Atan => Some("atan"),
            g::Sinh => Some("sinh"),
            g::Cosh => Some("cosh"),
            g::Tanh => Some("tanh"),
            g::Asinh => Some("asinh"),
            g::Acosh => Some("acosh"),
            g::Atanh => Some("atanh"),
            g::Atan2 => Some("atan2"),
            g::Pow => Some("pow"),
            g::Exp => Some("exp"),
            g::Log => Some("log"),
            g::Exp2 => Some("exp2"),
            g::Log2 => Some("log2"),
            g::Sqrt => Some("sqrt"),
            g::InverseSqrt => Some("inverseSqrt"),
            g::Determinant => Some("determinant"),
            g::FMin | g::NMin => Some("min"),
            g::FMax | g::NMax => Some("max"),
            g::FClamp | g::NClamp => Some("clamp"),
            g::FMix => Some("mix"),
            g::Step => Some("step"),
            g::SmoothStep => Some("smoothstep"),
            g::Fma => Some("fma"),
            g::Length => Some("length"),
            g::Distance => Some("distance"),
            g::Cross => Some("cross"),
            g::Normalize => Some("normalize"),
            g::FaceForward => Some("faceForward"),
            g::Reflect => Some("reflect"),
            g::Refract => Some("refract"),
            g::PackSnorm4x8 => Some("pack4x8snorm"),
            g::PackUnorm4x8 => Some("pack4x8unorm"),
            g::PackSnorm2x16 => Some("pack2x16snorm"),
            g::PackUnorm2x16 => Some("pack2x16unorm"),
            g::PackHalf2x16 => Some("pack2x16float"),
            g::UnpackSnorm4x8 => Some("unpack4x8snorm"),
            g::UnpackUnorm4x8 => Some("unpack4x8unorm"),
            g::UnpackSnorm2x16 => Some("unpack2x16snorm"),
            g::UnpackUnorm2x16 => Some("unpack2x16unorm"),
            g::UnpackHalf2x16 => Some("unpack2x16float"),
            _ => None,
        };
        let scalar = r.is_some_and(|n| n.n == 1);
        if scalar && matches!(inst, g::Normalize | g::Reflect | g::Refract | g::FaceForward) {
            let mut xs = Vec::new();
            for &x in args {
                xs.push(self.val(f, x)?);
            }
            let x = |k: usize| xs.get(k).cloned().unwrap_or_default();
            let t = r.map(|n| n.text()).unwrap_or_default();
            return Ok(Some(match inst {
                g::Normalize => format!("sign({})", x(0)),
                g::Reflect => format!("({i} - 2.0 * {n} * {n} * {i})", i = x(0), n = x(1)),
                g::FaceForward => format!("select(-{n}, {n}, {r} * {i} < {t}(0))", n = x(0), i = x(1), r = x(2)),
                _ => {
                    let (i, n, e) = (x(0), x(1), x(2));
                    let k = format!("(1.0 - {e} * {e} * (1.0 - {n} * {i} * {n} * {i}))");
                    format!("select({e} * {i} - ({e} * {n} * {i} + sqrt({k})) * {n}, {t}(0), {k} < {t}(0))")
                }
            }));
        }
        if let Some(name) = simple {
            let mut xs = Vec::new();
            for &x in args {
                xs.push(self.val(f, x)?);
            }
            // The packing built-ins take and give u32.
            let e = format!("{name}({})", xs.join(", "));
            return Ok(Some(match (r, inst) {
                (Some(rn), g::PackSnorm4x8 | g::PackUnorm4x8 | g::PackSnorm2x16 | g::PackUnorm2x16 | g::PackHalf2x16) => {
                    cast(e, Num { kind: Kind::U32, n: 1 }, rn)
                }
                _ => e,
            }));
        }
        // Integer built-ins: computed in their signedness.
        let int: Option<(&str, Kind)> = match inst {
            g::SAbs => Some(("abs", Kind::I32)),
            g::SSign => Some(("sign", Kind::I32)),
            g::SMin => Some(("min", Kind::I32)),
            g::UMin => Some(("min", Kind::U32)),
            g::SMax => Some(("max", Kind::I32)),
            g::UMax => Some(("max", Kind::U32)),
            g::SClamp => Some(("clamp", Kind::I32)),
            g::UClamp => Some(("clamp", Kind::U32)),
            g::FindSMsb => Some(("firstLeadingBit", Kind::I32)),
            g::FindUMsb => Some(("firstLeadingBit", Kind::U32)),
            g::FindILsb => Some(("firstTrailingBit", Kind::U32)),
            _ => None,
        };
        if let Some((name, k)) = int {
            let Some(rn) = r else { return Err(Refusal::unsupported(i, "this GLSL.std.450 instruction on this type")) };
            let an = self.num_of(a(0)).unwrap_or(rn).with(k);
            let mut xs = Vec::new();
            for &x in args {
                xs.push(self.val_as(f, x, an)?);
            }
            return Ok(Some(cast(format!("{name}({})", xs.join(", ")), an, rn)));
        }
        match inst {
            g::Ldexp => {
                let x = self.val(f, a(0))?;
                let n = self.num_of(a(1)).map_or(Num { kind: Kind::I32, n: 1 }, |n| n.with(Kind::I32));
                let e = self.val_as(f, a(1), n)?;
                Ok(Some(format!("ldexp({x}, {e})")))
            }
            g::ModfStruct | g::FrexpStruct => {
                let t = self.ty(rt, i as u32)?;
                let x = self.val(f, a(0))?;
                let (fun, second) = if inst == g::ModfStruct { ("modf", "whole") } else { ("frexp", "exp") };
                let mut s = format!("{fun}({x}).{second}");
                if inst == g::FrexpStruct {
                    let members: Vec<u32> = self.ir.ty(rt).map(|t| t.members().iter().map(|m| m.ty).collect()).unwrap_or_default();
                    if let Some(en) = members.get(1).and_then(|&m| self.num(m)) {
                        s = cast(s, en.with(Kind::I32), en);
                    }
                }
                Ok(Some(format!("{t}({fun}({x}).fract, {s})")))
            }
            g::Modf | g::Frexp => {
                let x = self.val(f, a(0))?;
                let p = self.reference(f, a(1))?;
                let (fun, second) = if inst == g::Modf { ("modf", "whole") } else { ("frexp", "exp") };
                let mut s = format!("{fun}({x}).{second}");
                if inst == g::Frexp
                    && let Some(en) = self.num(self.pointee(a(1)))
                {
                    s = cast(s, en.with(Kind::I32), en);
                }
                self.out.line_fmt(f.indent, format_args!("{p} = {s};"), Some(i as u32));
                Ok(Some(format!("{fun}({x}).fract")))
            }
            g::MatrixInverse => Ok(Some(self.matrix_inverse(f, i, words)?)),
            _ => Err(Refusal::unsupported(i, "this GLSL.std.450 instruction")),
        }
    }
}
