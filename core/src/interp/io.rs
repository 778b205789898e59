//! A graphics stage's interface: each scalar of its Input and Output
//! variables with where it goes. A scalar with a Location takes one
//! component word of that Location (`Location * 4 + Component`); a matrix
//! or array takes consecutive Locations (a column or element each), a
//! struct's members follow one another unless they carry their own
//! Location; a built-in (on the variable or on a member of a Block struct,
//! as `gl_PerVertex`) is named with its component or element number.

use super::error::{Feature, RunErrorKind};
use crate::grammar::decoration as dec;
use crate::ir::{Ir, Type};
use crate::raster::Interpolation;
use alloc::vec::Vec;

/// The most Locations an interface uses (words `0 .. MAX_LOCATIONS * 4`).
pub(super) const MAX_LOCATIONS: u32 = 64;

/// Where one scalar of an interface variable goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// The word `Location * 4 + Component`.
    Word(u32),
    /// Component (or element) `k` of a built-in.
    BuiltIn(u32, u32),
}

/// One scalar of an interface variable.
#[derive(Clone, Debug)]
pub(super) struct Leaf {
    /// The variable's per-invocation memory slot.
    pub var: u32,
    /// The scalar's component path in the variable.
    pub path: Vec<u32>,
    pub slot: Slot,
    /// A float (else an integer or a boolean).
    pub float: bool,
    pub interp: Interpolation,
}

fn interp_of(ir: &Ir, target: u32, member: Option<u32>, outer: Interpolation) -> Interpolation {
    let has = |d: u32| match member {
        Some(m) => ir.member_decoration(target, m, d).is_some(),
        None => ir.has_decoration(target, d),
    };
    if has(dec::Flat) {
        Interpolation::Flat
    } else if has(dec::NoPerspective) {
        Interpolation::NoPerspective
    } else {
        outer
    }
}

struct Walk<'a> {
    ir: &'a Ir,
    var: u32,
    out: Vec<Leaf>,
}

impl Walk<'_> {
    /// The scalars of type `ty` at `path`: built-in `b` (counting its
    /// scalars from `*k`), else Locations from `*loc`, components from `comp`.
    fn go(
        &mut self,
        ty: u32,
        path: &mut Vec<u32>,
        b: Option<u32>,
        k: &mut u32,
        loc: &mut u32,
        comp: u32,
        interp: Interpolation,
    ) -> Result<(), RunErrorKind> {
        let Some(t) = self.ir.ty(ty) else { return Err(RunErrorKind::NotSupportedFeature { feature: Feature::InterfaceType { ty } }) };
        match &t.ty {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                let (float, width) = match t.ty {
                    Type::Float { width, .. } => (true, width),
                    Type::Int { width, .. } => (false, width),
                    _ => (false, 32),
                };
                if width != 32 {
                    return Err(RunErrorKind::NotSupportedFeature { feature: Feature::InterfaceType { ty } });
                }
                let slot = match b {
                    Some(b) => {
                        *k += 1;
                        Slot::BuiltIn(b, *k - 1)
                    }
                    None => {
                        if *loc >= MAX_LOCATIONS || comp >= 4 {
                            return Err(RunErrorKind::NotSupportedFeature { feature: Feature::InterfaceType { ty } });
                        }
                        Slot::Word(*loc * 4 + comp)
                    }
                };
                self.out.push(Leaf { var: self.var, path: path.clone(), slot, float, interp });
                if b.is_none() {
                    *loc += 1;
                }
                Ok(())
            }
            &Type::Vector { component, count } => {
                let start = *loc;
                for c in 0..count {
                    path.push(c);
                    let mut l = start;
                    self.go(component, path, b, k, &mut l, comp + c, interp)?;
                    path.pop();
                }
                if b.is_none() {
                    *loc = start + 1;
                }
                Ok(())
            }
            &Type::Matrix { column, columns } => {
                for c in 0..columns {
                    path.push(c);
                    self.go(column, path, b, k, loc, comp, interp)?;
                    path.pop();
                }
                Ok(())
            }
            &Type::Array { element, len: Some(n), .. } if n <= MAX_LOCATIONS as u64 * 4 => {
                for e in 0..n as u32 {
                    path.push(e);
                    self.go(element, path, b, k, loc, comp, interp)?;
                    path.pop();
                }
                Ok(())
            }
            Type::Struct { members } => {
                for (m, mem) in members.iter().enumerate() {
                    let m = m as u32;
                    path.push(m);
                    let mb = mem.builtin.or(b);
                    if let Some(l) = self.ir.member_decoration(ty, m, dec::Location).and_then(|d| d.arg(self.ir)) {
                        *loc = l;
                    }
                    let mc = self.ir.member_decoration(ty, m, dec::Component).and_then(|d| d.arg(self.ir)).unwrap_or(0);
                    let mi = interp_of(self.ir, ty, Some(m), interp);
                    let mut mk = 0;
                    let kk = if mem.builtin.is_some() { &mut mk } else { &mut *k };
                    self.go(mem.ty, path, mb, kk, loc, mc, mi)?;
                    path.pop();
                }
                Ok(())
            }
            _ => Err(RunErrorKind::NotSupportedFeature { feature: Feature::InterfaceType { ty } }),
        }
    }
}

/// The scalars of interface variable `id` (of type `ty`, in memory slot
/// `var`).
pub(super) fn leaves(ir: &Ir, id: u32, ty: u32, var: u32) -> Result<Vec<Leaf>, RunErrorKind> {
    let mut w = Walk { ir, var, out: Vec::new() };
    let b = ir.decoration_arg(id, dec::BuiltIn);
    let mut loc = ir.decoration_arg(id, dec::Location).unwrap_or(0);
    let comp = ir.decoration_arg(id, dec::Component).unwrap_or(0);
    let interp = interp_of(ir, id, None, Interpolation::Smooth);
    let mut k = 0;
    w.go(ty, &mut Vec::new(), b, &mut k, &mut loc, comp, interp)?;
    Ok(w.out)
}
