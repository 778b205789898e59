//! The EXPECT comparisons of images and of two buffers, with Amber's
//! semantics (its `Verifier::Probe` and `Buffer::CompareRMSE` /
//! `CompareHistogramEMD`):
//!
//! * `EQ_RGBA r g b a` / `EQ_RGB r g b`: each texel of the rectangle, each
//!   component its format has (R, G, B, A by name, so B8G8R8A8 compares its
//!   R with r), read as a number: UNORM `v / (2^n - 1)`, SNORM `v / (2^(n-1)
//!   - 1)`, floats as they are, integers not scaled; the expected value is
//!   `r / 255` (an `f32`, as Amber keeps it). The tolerance is 0.002 when
//!   none is given, else one value for every component or four (R, G, B,
//!   A); a percentage is of the texel's value, as Amber computes it. So
//!   an 8-bit UNORM texel must be exact by default, and a float attachment
//!   holds `r / 255` within 0.002.
//! * `RMSE_BUFFER`: the root mean square of the values' differences (raw
//!   values, UNORM bytes as integers) over every component.
//! * `EQ_HISTOGRAM_EMD_BUFFER`: both images 8-bit with four channels; per
//!   channel a 256-bin histogram of the bytes, normalized by the texel
//!   count; the earth mover's distance is the sum over the bins of the
//!   absolute cumulative difference, over 256; the largest of the four
//!   channels' is compared with the tolerance.

use super::{AmberError, Buffer, BufferCmp, DataType, Layout, Tolerance, error, image};
use crate::interp::image::{Comp, NumKind, read_texel};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Amber's tolerance of a texel component when the EXPECT gives none.
pub const DEFAULT_TEXEL_TOLERANCE: f64 = 0.002;

/// What `EQ_RGBA` / `EQ_RGB` expects.
pub struct Rgba<'a> {
    /// 0 to 255 each (the alpha unread when `alpha` is false).
    pub rgba: [u32; 4],
    pub alpha: bool,
    pub tolerance: &'a [Tolerance],
}

/// Amber's `IsEqualWithTolerance(texel, expected)`: a NaN matches only a
/// NaN; a percentage is of the texel's value.
fn within(texel: f64, expected: f64, t: Tolerance) -> bool {
    if texel.is_nan() || expected.is_nan() {
        return texel.is_nan() == expected.is_nan();
    }
    let d = libm::fabs(texel - expected);
    if t.percent {
        d <= t.value / 100.0 * libm::fabs(texel)
    } else {
        d <= t.value
    }
}

/// The failure of `EXPECT image IDX x y SIZE w h EQ_RGBA ...` on image
/// buffer `b` with bytes `data`, if it fails (one error, naming the first
/// texel that differs and how many do).
pub(super) fn expect_rgba(b: &Buffer, data: &[u8], rect: [u32; 4], want: &Rgba, line: u32) -> Option<AmberError> {
    let Some(f) = image::format_of(b) else {
        return Some(error(line, format!("`{}` is not an image", b.name)));
    };
    let tb = f.texel_bytes().max(1);
    let width = match b.image {
        Some((s, _)) => s[0] as usize,
        None => data.len() / tb,
    }
    .max(1);
    let height = data.len() / tb / width;
    let [x0, y0, w, h] = rect.map(|v| v as usize);
    if x0 + w > width || y0 + h > height {
        return Some(error(
            line,
            format!(
                "the rectangle ({x0},{y0}) {w}x{h} is outside `{}` ({width}x{height})",
                b.name
            ),
        ));
    }
    let tol: [Tolerance; 4] = match want.tolerance {
        [] => [Tolerance { value: DEFAULT_TEXEL_TOLERANCE, percent: false }; 4],
        [a, b, c, d] => [*a, *b, *c, *d],
        t => [t[0]; 4],
    };
    let expected: [f64; 4] = want.rgba.map(|v| (v as f32 / 255.0) as f64);
    let normalized = matches!(f.kind, NumKind::Unorm | NumKind::Snorm);
    let value = |c: Comp, width: u8| -> f64 {
        match c {
            Comp::F(x) => x,
            Comp::I(bits) if f.kind == NumKind::Sint && width < 64 => {
                let s = 64 - width as u32;
                ((bits << s) as i64 >> s) as f64
            }
            Comp::I(bits) if f.kind == NumKind::Sint => bits as i64 as f64,
            Comp::I(bits) => bits as f64,
        }
    };
    let mut bad = 0usize;
    let mut first: Option<(usize, usize, [f64; 4])> = None;
    // The last texel's bytes that matched: a texel with the same bytes
    // matches too, without converting it again (most rectangles are one
    // colour).
    let mut same: Option<&[u8]> = None;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let at = (y * width + x) * tb;
            let bytes = &data[at..at + tb];
            if same == Some(bytes) {
                continue;
            }
            let c = read_texel(&f, bytes);
            let mut got = [0.0f64; 4];
            let mut ok = true;
            for &(ch, bits) in &f.comps {
                let ch = ch as usize;
                got[ch] = value(c[ch], bits);
                if ch == 3 && !want.alpha {
                    continue;
                }
                ok &= within(got[ch], expected[ch], tol[ch]);
            }
            if ok {
                same = Some(bytes);
            } else {
                bad += 1;
                first.get_or_insert((x, y, got));
            }
        }
    }
    let (x, y, got) = first?;
    let scale = if normalized { 255.0 } else { 1.0 };
    let show = |v: &[f64]| -> String {
        let parts: Vec<String> = v.iter().map(|x| format!("{}", libm::round(x * 1000.0) / 1000.0)).collect();
        parts.join(" ")
    };
    let n = if want.alpha { 4 } else { 3 };
    let exp: Vec<f64> = want.rgba[..n].iter().map(|v| *v as f64 * if normalized { 1.0 } else { 1.0 / 255.0 }).collect();
    let got: Vec<f64> = got[..n].iter().map(|v| v * scale).collect();
    Some(error(
        line,
        format!(
            "{} at texel ({x},{y}): expected {} {}, got {} ({bad} of {} texels differ)",
            b.name,
            if want.alpha { "RGBA" } else { "RGB" },
            show(&exp),
            show(&got),
            w * h
        ),
    ))
}

/// One side of a buffer comparison: the buffer, its type and layout now
/// (COPY may have changed them) and its bytes.
pub(super) struct Side<'a> {
    pub buffer: &'a Buffer,
    pub ty: DataType,
    pub layout: Layout,
    pub data: &'a [u8],
}

impl Side<'_> {
    fn count(&self) -> usize {
        self.data.len() / self.ty.stride(self.layout).max(1) * self.ty.comps()
    }

    /// Value `k`'s bits.
    fn bits(&self, k: usize) -> u64 {
        let at = self.ty.at(self.layout, k);
        let s = self.ty.scalar.size();
        self.data
            .get(at..at + s)
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, x)| acc | (*x as u64) << (8 * i))
    }
}

/// The failure of `EXPECT a EQ_BUFFER | RMSE_BUFFER | EQ_HISTOGRAM_EMD_BUFFER
/// b`, if it fails.
pub(super) fn compare_buffers(a: Side, b: Side, cmp: BufferCmp, line: u32) -> Option<AmberError> {
    let (na, nb) = (a.buffer.name.as_str(), b.buffer.name.as_str());
    let n = a.count();
    if a.ty.scalar != b.ty.scalar || n != b.count() {
        return Some(error(line, format!("{na} and {nb} differ in type or size")));
    }
    match cmp {
        BufferCmp::Eq => {
            for k in 0..n {
                let (x, y) = (a.bits(k), b.bits(k));
                if x != y {
                    return Some(error(
                        line,
                        format!(
                            "{na} and {nb} differ at value {k}: {} and {}",
                            a.ty.scalar.show(x),
                            b.ty.scalar.show(y)
                        ),
                    ));
                }
            }
            None
        }
        BufferCmp::Rmse(t) => {
            let e = rmse((0..n).map(|k| a.ty.scalar.num(a.bits(k)).f() - b.ty.scalar.num(b.bits(k)).f()));
            (e > t).then(|| error(line, format!("{na} and {nb}: root mean square error {e} is over {t}")))
        }
        BufferCmp::HistogramEmd(t) => {
            let eight = |s: &Side| {
                s.ty.rows == 4
                    && s.ty.cols == 1
                    && matches!(s.ty.scalar, super::Scalar::Int { width: 8, .. })
                    && s.buffer.format.is_some()
            };
            if !eight(&a) || !eight(&b) || a.buffer.format != b.buffer.format {
                return Some(error(
                    line,
                    format!("{na} and {nb}: EQ_HISTOGRAM_EMD_BUFFER needs two images of one 8-bit format with four channels"),
                ));
            }
            let e = histogram_emd(a.data, b.data);
            (e > t).then(|| error(line, format!("{na} and {nb}: histogram earth mover's distance {e} is over {t}")))
        }
    }
}

/// The root mean square of `diffs` (0 for none).
pub fn rmse(diffs: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for d in diffs {
        sum += d * d;
        n += 1;
    }
    if n == 0 { 0.0 } else { libm::sqrt(sum / n as f64) }
}

/// The largest over the four channels of the earth mover's distance
/// between the 256-bin histograms of two images of 4-byte texels (each
/// histogram divided by its image's texel count), in [0, 1].
pub fn histogram_emd(a: &[u8], b: &[u8]) -> f64 {
    let hist = |d: &[u8], c: usize| {
        let mut h = [0u64; 256];
        for t in d.chunks_exact(4) {
            h[t[c] as usize] += 1;
        }
        h
    };
    let (ta, tb) = ((a.len() / 4).max(1) as f64, (b.len() / 4).max(1) as f64);
    let mut max: f64 = 0.0;
    for c in 0..4 {
        let (ha, hb) = (hist(a, c), hist(b, c));
        let (mut total, mut accum) = (0.0, 0.0);
        for i in 0..256 {
            accum += ha[i] as f64 / ta - hb[i] as f64 / tb;
            total += libm::fabs(accum);
        }
        max = max.max(total / 256.0);
    }
    max
}
