//! Images in AmberScript: `IMAGE`, formats with normalized or packed
//! components (their EXPECT EQ_RGBA is in `probe.rs`).
//!
//! An image is a [`Buffer`] whose bytes are its texels (x fastest, then y,
//! z, then the sample, as `interp::image` lays them out), with its format's
//! name and its size; a buffer made with a format can be bound as a texel
//! buffer.

use super::{AmberError, Buffer, DataType, Reader, Scalar, Tok, Words, error, parse_buffer};
use crate::interp::image::{Address, Format, Image, NumKind, Sampler};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The element type of a format whose components are not plain integers or
/// floats of one width: its components' raw bits (UNORM and SNORM as
/// unsigned and signed integers, a packed format as one integer).
pub(super) fn raw_type(name: &str) -> Option<DataType> {
    let f = Format::parse(name)?;
    let w = f.comps[0].1 as u32;
    let packed = name.contains("_PACK");
    if packed {
        let bits = f.texel_bytes() as u32 * 8;
        return Some(DataType {
            scalar: Scalar::Int {
                width: bits,
                signed: false,
            },
            rows: 1,
            cols: 1,
        });
    }
    if f.comps.iter().any(|c| c.1 as u32 != w) || !matches!(w, 8 | 16 | 32 | 64) {
        return None;
    }
    Some(DataType {
        scalar: Scalar::Int {
            width: w,
            signed: matches!(f.kind, NumKind::Snorm | NumKind::Sint),
        },
        rows: f.comps.len() as u32,
        cols: 1,
    })
}

/// The Vulkan format of a buffer used as an image or texel buffer: the
/// format it was made with, or the one its DATA_TYPE names (`vec4<int32>`:
/// `R32G32B32A32_SINT`).
pub(super) fn format_of(b: &Buffer) -> Option<Format> {
    let name = format_name(b)?;
    // A depth attachment sampled: D16 is read as R16_UNORM, D32 as
    // R32_SFLOAT (their bytes are those formats').
    let name = match name.as_str() {
        "D16_UNORM" => "R16_UNORM",
        "D32_SFLOAT" => "R32_SFLOAT",
        n => n,
    };
    Format::parse(name)
}

/// The name of the Vulkan format [`format_of`] reads.
pub(super) fn format_name(b: &Buffer) -> Option<String> {
    if let Some(f) = &b.format {
        return Some(f.clone());
    }
    if b.ty.cols != 1 || b.ty.rows == 3 {
        return None;
    }
    let (w, kind) = match b.ty.scalar {
        Scalar::Int { width, signed } => (width, if signed { "SINT" } else { "UINT" }),
        Scalar::Float { width } => (width, "SFLOAT"),
    };
    let mut name = String::new();
    for c in "RGBA".chars().take(b.ty.rows as usize) {
        name.push(c);
        name.push_str(&w.to_string());
    }
    Some(format!("{name}_{kind}"))
}

/// The description of buffer `b` bound as an image or texel buffer with
/// bytes `data`.
pub(super) fn describe(b: &Buffer, data_len: usize, line: u32) -> Result<Image, AmberError> {
    let format = format_of(b).ok_or_else(|| {
        error(
            line,
            format!(
                "`{}` has no format an image or texel buffer can have",
                b.name
            ),
        )
    })?;
    let (size, samples) = match b.image {
        Some((size, samples)) => (size, samples),
        None => ([(data_len / format.texel_bytes().max(1)) as u32, 1, 1], 1),
    };
    Ok(Image {
        format,
        size,
        samples,
    })
}

/// `IMAGE name (FORMAT f | DATA_TYPE t) [DIM_1D|DIM_2D|DIM_3D] [WIDTH w]
/// [HEIGHT h] [DEPTH d] [SAMPLES n] [MIP_LEVELS 1] [FILL v | SERIES_FROM v
/// INC_BY d | DATA ... END]`.
pub(super) fn parse_image(w: &mut Words, r: &mut Reader, line: u32, load: super::FileLoader) -> Result<Buffer, AmberError> {
    let name_tok = w.toks.get(w.at).cloned();
    w.word("the image's name")?;
    let kind_tok = w.toks.get(w.at).cloned();
    let kind = w.word("FORMAT or DATA_TYPE")?;
    if kind != "FORMAT" && kind != "DATA_TYPE" {
        return Err(w.err(format!("expected `FORMAT` or `DATA_TYPE`, found `{kind}`")));
    }
    let ty_tok = w.toks.get(w.at).cloned();
    w.word("the format")?;
    let (mut size, mut samples) = ([1u32, 1, 1], 1u32);
    let mut dims = 2;
    while let Some(x) = w.peek() {
        match x {
            "DIM_1D" => dims = 1,
            "DIM_2D" => dims = 2,
            "DIM_3D" => dims = 3,
            "WIDTH" | "HEIGHT" | "DEPTH" | "SAMPLES" | "MIP_LEVELS" => {
                w.next();
                let n: u32 = w.num(x)?;
                if n == 0 || n > 1 << 16 {
                    return Err(w.err(format!("{x} {n} is out of range")));
                }
                match x {
                    "WIDTH" => size[0] = n,
                    "HEIGHT" => size[1] = n,
                    "DEPTH" => size[2] = n,
                    "SAMPLES" => samples = n,
                    _ if n != 1 => {
                        return Err(w.err("not supported: MIP_LEVELS other than 1"));
                    }
                    _ => {}
                }
                continue;
            }
            _ => break,
        }
        w.next();
    }
    if dims < 3 {
        size[2] = 1;
    }
    if dims < 2 {
        size[1] = 1;
    }
    let texels = size.iter().map(|x| *x as usize).product::<usize>() * samples as usize;
    if texels > 1 << 24 {
        return Err(w.err("the image is too large"));
    }
    // The rest is a buffer's contents: reuse BUFFER's parser.
    let tok = |text: &str| Tok {
        text: text.into(),
        line,
        col: 1,
    };
    let (Some(name_tok), Some(kind_tok), Some(ty_tok)) = (name_tok, kind_tok, ty_tok) else {
        return Err(w.err("IMAGE needs a name and a format"));
    };
    let mut toks: Vec<Tok> = Vec::from([name_tok, kind_tok, ty_tok]);
    match w.peek() {
        Some("DATA") => {}
        Some(_) => {
            toks.push(tok("SIZE"));
            toks.push(tok(&texels.to_string()));
        }
        None => {
            toks.extend([tok("SIZE"), tok(&texels.to_string()), tok("FILL"), tok("0")]);
        }
    }
    toks.extend(w.rest().iter().cloned());
    let mut w2 = Words::new(&toks, line);
    let mut b = parse_buffer(&mut w2, r, line, load)?;
    let format = format_of(&b).ok_or_else(|| error(line, "not supported: this image format"))?;
    b.data.resize(texels * format.texel_bytes(), 0);
    b.image = Some((size, samples));
    Ok(b)
}

/// `SAMPLER name [MAG_FILTER f] [MIN_FILTER f] [ADDRESS_MODE_U|V|W m]
/// [NORMALIZED_COORDS|UNNORMALIZED_COORDS] [MIN_LOD x] [MAX_LOD x]
/// [MIPMAP_MODE m] [BORDER_COLOR c]`: the state the interpreter samples
/// with (filters: nearest or linear; the levels of detail, mipmap mode and
/// border color do not matter with one level and no clamp to border).
pub(super) fn parse_sampler(w: &mut Words) -> Result<(String, Sampler), AmberError> {
    let name = w.word("the sampler's name")?;
    let mut s = Sampler {
        linear: false,
        address: [Address::Repeat; 3],
        normalized: true,
    };
    while let Some(x) = w.next() {
        match x {
            "MAG_FILTER" | "MIN_FILTER" => match w.word(x)? {
                "nearest" => {}
                "linear" => s.linear = true,
                f => return Err(w.err(format!("unknown filter `{f}`"))),
            },
            "ADDRESS_MODE_U" | "ADDRESS_MODE_V" | "ADDRESS_MODE_W" => {
                let k = match x {
                    "ADDRESS_MODE_U" => 0,
                    "ADDRESS_MODE_V" => 1,
                    _ => 2,
                };
                s.address[k] = match w.word(x)? {
                    "repeat" => Address::Repeat,
                    "mirrored_repeat" => Address::MirroredRepeat,
                    "clamp_to_edge" => Address::ClampToEdge,
                    "clamp_to_border" | "mirror_clamp_to_edge" => Address::Other,
                    m => return Err(w.err(format!("unknown address mode `{m}`"))),
                };
            }
            "NORMALIZED_COORDS" => s.normalized = true,
            "UNNORMALIZED_COORDS" => s.normalized = false,
            "MIN_LOD" | "MAX_LOD" | "MIPMAP_MODE" | "BORDER_COLOR" => {
                w.word(x)?;
            }
            x => return Err(w.err(format!("not supported: SAMPLER ... {x}"))),
        }
    }
    Ok((name.into(), s))
}
