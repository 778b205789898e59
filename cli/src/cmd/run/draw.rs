//! `spvlab run` on a Fragment entry point: the draw of core's plan
//! (`plan::DrawPlan`) on the reference interpreter, the image written as a
//! PNG with `-o`, and a summary printed: the framebuffer, the fragments run
//! and the image's colours, most frequent first. `--trace-pixel X,Y` prints
//! the path of the fragment at that pixel. `--backend B` draws on a GPU
//! backend too (the Amber executor of `spvlab amber`: the interpreter's draw
//! first, then the GPU's in the child process, compared pixel by pixel);
//! with several backends `-o` writes the first one's image.

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
    amber_out: Option<(&str, spvlab_core::TargetEnv)>,
    backends: &[super::backend::Backend],
    gpu: (bool, &super::backend::GpuFlags),
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
    if let Some((file, env)) = amber_out {
        let text = spvlab_core::amber::page::export_draw_run(a, env, plan, &drawn).map_err(|e| super::fail(&path, &format!("--amber: {e}")))?;
        std::fs::write(file, text).map_err(|err| super::fail(file, &format!("cannot write `{file}`: {err}")))?;
    }
    #[allow(unused_mut)]
    let mut gpus: Vec<GpuDrawn> = Vec::new();
    #[cfg(feature = "gpu")]
    for b in backends {
        if let super::backend::Backend::Gpu(g) = b {
            gpus.push(gpu_draw(plan, *g, gpu, &path));
        }
    }
    #[cfg(not(feature = "gpu"))]
    let _ = (backends, gpu);
    let failed = gpus.iter().any(|g| g.failed());
    let cs = colours(image);
    if let Some(out) = image_out {
        // The first backend named: the interpreter's image, or a GPU's.
        let first = match backends.first() {
            Some(super::backend::Backend::Interp) | None => Some(image),
            Some(_) => gpus.first().and_then(|g| g.image.as_ref()),
        };
        if let Some(img) = first {
            let bytes = png(img).map_err(|e| super::fail(&path, &format!("cannot encode the image: {e}")))?;
            out.write(&bytes)?;
        }
    }
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
        if !gpus.is_empty() {
            v["gpu"] = gpus.iter().map(GpuDrawn::json).collect();
        }
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        print_stdout(&s)?;
        return if failed { Err(CliError::Failed { path, count: 1 }) } else { Ok(()) };
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
    for g in &gpus {
        g.text(&mut s);
    }
    if !pixels.is_empty() {
        super::trace_text(&mut s, a, &plan.ir, &plan.entry, &report);
    }
    print_stdout(&s)?;
    if failed { Err(CliError::Failed { path, count: 1 }) } else { Ok(()) }
}

/// One GPU backend's draw of the plan.
struct GpuDrawn {
    backend: &'static str,
    /// The colour attachment the GPU left (`None`: it did not draw).
    image: Option<ColorAttachment>,
    /// Why it did not draw, and whether that is a refusal ("not
    /// supported"), which is no failure.
    error: Option<(String, bool)>,
    /// The first pixel where it differs from the interpreter's image.
    difference: Option<String>,
}

impl GpuDrawn {
    fn failed(&self) -> bool {
        self.difference.is_some() || self.error.as_ref().is_some_and(|e| !e.1)
    }

    fn text(&self, s: &mut String) {
        match (&self.image, &self.error) {
            // The executor's failures name the backend and say their kind.
            (_, Some((e, _))) => {
                let _ = writeln!(s, "{e}");
            }
            (Some(img), None) => {
                let cs = colours(img);
                let top: Vec<String> = cs.iter().take(3).map(|(c, n)| format!("({}, {}, {}, {}) {n}", c[0], c[1], c[2], c[3])).collect();
                let _ = writeln!(s, "{}: drew {}x{}; colours {}{}", self.backend, img.width, img.height, top.join(", "), if cs.len() > 3 { ", ..." } else { "" });
                let _ = match &self.difference {
                    Some(d) => writeln!(s, "  differs from the interpreter: {d}"),
                    None => writeln!(s, "  the same image as the interpreter's"),
                };
            }
            (None, None) => {}
        }
    }

    fn json(&self) -> Value {
        let mut v = json!({ "backend": self.backend, "ok": self.image.is_some() && self.error.is_none() });
        if let Some(img) = &self.image {
            v["colours"] = colours(img).iter().map(|(c, n)| json!({"rgba": c, "pixels": n})).collect();
        }
        if let Some((e, refusal)) = &self.error {
            v["error"] = json!({ "message": e, "refusal": refusal });
        }
        v["differs"] = json!(self.difference);
        v
    }
}

/// The draw of `plan` on GPU backend `b` through the Amber executor (the
/// interpreter's draw first, as its guard and its reference; the GPU's in
/// the child process unless `--in-process`).
#[cfg(feature = "gpu")]
fn gpu_draw(plan: &Plan, b: spvlab_gpu::Backend, (force, flags): (bool, &super::backend::GpuFlags), path: &str) -> GpuDrawn {
    use spvlab_core::amber::{DrawJob, ExecError, Stage};
    let mut out = GpuDrawn { backend: b.name(), image: None, error: None, difference: None };
    let Some(d) = plan.draw.as_ref() else { return out };
    let mut exec = super::backend::Backend::Gpu(b).executor(force, flags);
    let job = DrawJob {
        vertex: Stage { ir: &d.vertex_ir, words: &d.vertex_words, entry: &d.vertex_entry, shader: "vertex" },
        fragment: Stage { ir: &plan.ir, words: &plan.words, entry: &plan.entry.name, shader: path },
        pipeline: &d.pipeline,
        draw: &d.cmd,
        opts: &plan.options,
    };
    let (mut fb, mut bufs) = (d.framebuffer.clone(), plan.buffers.clone());
    match exec.as_dyn().draw(&job, &mut fb, &mut bufs) {
        Ok(()) => {
            out.image = fb.colors.iter().find(|c| c.location == 0).map(|c| c.attachment.clone());
            out.difference = exec.differences().into_iter().next();
        }
        Err(e) => {
            let refusal = match &e {
                ExecError::Backend(f) => f.as_any().downcast_ref::<spvlab_gpu::ExecFailure>().is_some_and(|f| {
                    matches!(f, spvlab_gpu::ExecFailure::Gpu(g) if g.kind.is_refusal())
                }),
                _ => false,
            };
            out.error = Some((e.to_string(), refusal));
        }
    }
    out
}
