//! `spvlab run` on a Fragment entry point: the draw of core's plan
//! (`plan::DrawPlan`) on the reference interpreter, the image written as a
//! PNG with `-o`, and a summary printed: the framebuffer, the fragments run
//! and the image's colours, most frequent first. `--trace-pixel X,Y` prints
//! the path of the fragment at that pixel.

use std::fmt::Write as _;

use serde_json::{Value, json};
use spvlab_core::analysis::Analysis;
use spvlab_core::interp::Trace;
use spvlab_core::plan::{DrawShape, Plan};
use spvlab_core::raster::ColorAttachment;

use crate::error::CliError;
use crate::io::{Output, print_stdout};

/// `--size WxH`.
pub fn size(v: &str) -> Result<(u32, u32), CliError> {
    let bad = || CliError::Usage(format!("--size wants WIDTHxHEIGHT (e.g. 256x256), not `{v}`"));
    let (w, h) = v.split_once(['x', 'X']).ok_or_else(bad)?;
    Ok((w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?))
}

/// `--draw rect | grid:C,R`.
pub fn shape(v: &str) -> Result<DrawShape, CliError> {
    let bad = || CliError::Usage(format!("--draw wants `rect` or `grid:COLUMNS,ROWS`, not `{v}`"));
    if v == "rect" {
        return Ok(DrawShape::Rect);
    }
    let cells = v.strip_prefix("grid:").ok_or_else(bad)?;
    let (c, r) = cells.split_once(',').ok_or_else(bad)?;
    Ok(DrawShape::Grid { columns: c.trim().parse().map_err(|_| bad())?, rows: r.trim().parse().map_err(|_| bad())? })
}

/// `--trace-pixel X,Y`.
pub fn pixel(v: &str) -> Result<(u32, u32), CliError> {
    let bad = || CliError::Usage(format!("--trace-pixel wants X,Y, not `{v}`"));
    let (x, y) = v.split_once(',').ok_or_else(bad)?;
    Ok((x.trim().parse().map_err(|_| bad())?, y.trim().parse().map_err(|_| bad())?))
}

/// The attachment as a PNG file (8-bit RGBA).
pub fn png(a: &ColorAttachment) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, a.width, a.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(&a.rgba8()).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The image's colours (as 8-bit RGBA) with their pixel counts, most
/// frequent first (ties by colour).
fn colours(a: &ColorAttachment) -> Vec<([u8; 4], u64)> {
    let mut counts = std::collections::BTreeMap::<[u8; 4], u64>::new();
    for p in a.rgba8().chunks_exact(4) {
        *counts.entry([p[0], p[1], p[2], p[3]]).or_default() += 1;
    }
    let mut v: Vec<([u8; 4], u64)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// The most colours the summary lists.
const SHOWN_COLOURS: usize = 8;

pub fn run(
    a: &Analysis,
    plan: &Plan,
    path: String,
    pixels: &[(u32, u32)],
    json_out: bool,
    image_out: Option<&Output>,
) -> Result<(), CliError> {
    let mut opts = plan.options.clone();
    opts.trace = if pixels.is_empty() {
        Trace::Off
    } else {
        Trace::Invocations(pixels.iter().map(|&(x, y)| [x, y, 0]).collect())
    };
    let Some(drawn) = plan.draw_interp(&opts) else {
        return Err(CliError::Usage(String::from("the entry point does not draw")));
    };
    let drawn = drawn.map_err(|err| {
        eprint!("{}", super::located(a, &path, &err));
        CliError::Failed { path: path.clone(), count: 1 }
    })?;
    let stats = &drawn.stats;
    let Some(image) = drawn.image() else {
        return Err(super::fail(&path, "the draw has no colour attachment"));
    };
    if let Some(out) = image_out {
        let bytes = png(image).map_err(|e| super::fail(&path, &format!("cannot encode the image: {e}")))?;
        out.write(&bytes)?;
    }
    let cs = colours(image);
    let report = stats.fragment_trace.clone().unwrap_or_default();
    for &(x, y) in pixels {
        if report.path([x, y, 0]).is_none() {
            eprintln!("note: --trace-pixel {x},{y}: no fragment ran at that pixel");
        }
    }
    if json_out {
        let colours: Vec<Value> = cs.iter().map(|(c, n)| json!({"rgba": c, "pixels": n})).collect();
        let mut v = json!({
            "entryPoint": plan.entry.name, "framebuffer": [image.width, image.height],
            "format": format!("{:?}", image.format), "vertices": stats.vertices,
            "fragments": stats.fragments, "helpers": stats.helpers, "steps": stats.steps,
            "colours": colours,
        });
        if !pixels.is_empty() {
            v["trace"] = super::trace_json(a, &plan.ir, &plan.entry, &report);
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        return print_stdout(&s);
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "drew {}x{} {:?}: {} vertices, {} fragments ({} helper lanes), {} steps",
        image.width, image.height, image.format, stats.vertices, stats.fragments, stats.helpers, stats.steps
    );
    let _ = writeln!(s, "colours (8-bit RGBA, pixels):");
    for (c, n) in cs.iter().take(SHOWN_COLOURS) {
        let _ = writeln!(s, "  ({}, {}, {}, {}) {n}", c[0], c[1], c[2], c[3]);
    }
    if cs.len() > SHOWN_COLOURS {
        let _ = writeln!(s, "  ... {} more colours", cs.len() - SHOWN_COLOURS);
    }
    if !pixels.is_empty() {
        super::trace_text(&mut s, a, &plan.ir, &plan.entry, &report);
    }
    print_stdout(&s)
}
