//! The run plan of a fragment entry point: the fragment shader drawn over a
//! framebuffer, as `spvlab run` and the page draw it. The vertex stage is
//! the module's own Vertex entry point when it has one, else another module
//! given as words, else Amber's passthrough vertex shader
//! ([`raster::draws::PASSTHROUGH_VERTEX`]); the draw is Amber's
//! `DRAW_RECT` over the whole framebuffer or a `DRAW_GRID` of cells, whose
//! positions feed the vertex stage's Location 0.
//!
//! Sizes are bounded ([`MAX_SIDE`], [`MAX_CELLS`]) so that a draw's memory
//! and time stay within what a page can hold; past a bound the plan is a
//! [`PlanError::TooLarge`] naming the limit.

use super::PlanError;
use crate::TargetEnv;
use crate::ir::Ir;
use crate::raster::{self, ColorAttachment, ColorFormat, ColorTarget, DrawCmd, DrawIndices, Framebuffer, Pipeline, VertexBuffer, VertexFormat};
use crate::reflect::ExecutionModel;
use alloc::string::String;
use alloc::vec::Vec;

/// The largest framebuffer side, in pixels.
pub const MAX_SIDE: u32 = 4096;
/// The most cells of a grid draw.
pub const MAX_CELLS: u32 = 1 << 16;

/// What is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(tag = "kind", rename_all = "camelCase"))]
pub enum DrawShape {
    /// A rectangle over the whole framebuffer (Amber's `DRAW_RECT`): two
    /// triangles of a strip.
    Rect,
    /// The framebuffer cut into `columns` x `rows` cells of two triangles
    /// each (Amber's `DRAW_GRID`).
    Grid { columns: u32, rows: u32 },
}

/// What a user asks of a draw.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawInputs {
    /// Framebuffer width and height.
    pub size: (u32, u32),
    pub shape: DrawShape,
    /// The colour attachment's format (at Location 0).
    pub format: ColorFormat,
    /// The colour it is cleared to first.
    pub clear: [f32; 4],
    /// A vertex module's words (its first Vertex entry point runs); `None`:
    /// the module's own Vertex entry point, else the passthrough shader.
    pub vertex: Option<Vec<u32>>,
}

impl Default for DrawInputs {
    fn default() -> DrawInputs {
        DrawInputs {
            size: (256, 256),
            shape: DrawShape::Rect,
            format: ColorFormat::B8G8R8A8Unorm,
            clear: [0.0; 4],
            vertex: None,
        }
    }
}

/// Where the vertex stage comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub enum VertexSource {
    /// The module's own Vertex entry point.
    Module,
    /// The module given in [`DrawInputs::vertex`].
    Given,
    /// Amber's passthrough vertex shader.
    Passthrough,
}

/// A draw made ready to run: the vertex stage's module, the pipeline, the
/// draw command and the framebuffer (cleared).
#[derive(Clone, Debug)]
pub struct DrawPlan {
    pub vertex_source: VertexSource,
    pub vertex_words: Vec<u32>,
    pub vertex_ir: Ir,
    pub vertex_entry: String,
    pub pipeline: Pipeline,
    pub cmd: DrawCmd,
    pub framebuffer: Framebuffer,
    /// What was asked: the shape and the clear colour (for an export).
    pub shape: DrawShape,
    pub clear: [f32; 4],
}

fn bounded(what: &'static str, value: u64, limit: u64) -> Result<(), PlanError> {
    if value > limit {
        return Err(PlanError::TooLarge { what: String::from(what), value, limit });
    }
    Ok(())
}

/// The first Vertex entry point of `ir`.
fn vertex_entry(ir: &Ir) -> Option<String> {
    ir.entry_points
        .iter()
        .find(|e| ExecutionModel::of(e.model) == ExecutionModel::Vertex)
        .map(|e| e.name.clone())
}

/// The vertex stage: `(source, words, ir, entry)`.
fn vertex_stage(module: &Ir, words: &[u32], inputs: &DrawInputs) -> Result<(VertexSource, Vec<u32>, Ir, String), PlanError> {
    if let Some(w) = &inputs.vertex {
        let m = crate::binary::read_words(w).map_err(|e| PlanError::BadVertexModule { reason: e.message() })?;
        let ir = Ir::build(m);
        let entry = vertex_entry(&ir).ok_or_else(|| PlanError::BadVertexModule {
            reason: String::from("it has no Vertex entry point"),
        })?;
        return Ok((VertexSource::Given, w.clone(), ir, entry));
    }
    if let Some(entry) = vertex_entry(module) {
        let m = crate::binary::read_words(words).map_err(|e| PlanError::Unreadable { reason: e.message() })?;
        return Ok((VertexSource::Module, words.to_vec(), Ir::build(m), entry));
    }
    let words = crate::text::assemble(raster::draws::PASSTHROUGH_VERTEX, &crate::text::AsmOptions {
        env: TargetEnv::Spv1_0,
        ..Default::default()
    })
    .map_err(|_| PlanError::BadVertexModule { reason: String::from("the passthrough shader does not assemble") })?;
    let m = crate::binary::read_words(&words).map_err(|e| PlanError::Unreadable { reason: e.message() })?;
    Ok((VertexSource::Passthrough, words, Ir::build(m), String::from("main")))
}

/// The draw of `inputs` for a fragment entry point of `module` (its
/// specialized words).
pub(super) fn plan(module: &Ir, words: &[u32], inputs: &DrawInputs) -> Result<DrawPlan, PlanError> {
    let (w, h) = inputs.size;
    bounded("framebuffer width", w as u64, MAX_SIDE as u64)?;
    bounded("framebuffer height", h as u64, MAX_SIDE as u64)?;
    if w == 0 || h == 0 {
        return Err(PlanError::TooLarge { what: String::from("framebuffer side (at least 1)"), value: 0, limit: MAX_SIDE as u64 });
    }
    let rect = raster::draws::Rect { x: 0.0, y: 0.0, width: w as f32, height: h as f32 };
    let (topology, positions): (raster::Topology, Vec<[f32; 2]>) = match inputs.shape {
        DrawShape::Rect => {
            let (t, v) = raster::draws::draw_rect(rect, (w, h));
            (t, v.to_vec())
        }
        DrawShape::Grid { columns, rows } => {
            if columns == 0 || rows == 0 {
                return Err(PlanError::TooLarge { what: String::from("grid cells (at least 1 a side)"), value: 0, limit: MAX_CELLS as u64 });
            }
            bounded("grid cells", columns as u64 * rows as u64, MAX_CELLS as u64)?;
            raster::draws::draw_grid(rect, columns, rows, (w, h))
        }
    };
    let mut data = Vec::with_capacity(positions.len() * 8);
    for p in &positions {
        data.extend_from_slice(&p[0].to_le_bytes());
        data.extend_from_slice(&p[1].to_le_bytes());
    }
    // R32G32_SFLOAT, as Amber's Vulkan engine binds DRAW_RECT's positions.
    let format = VertexFormat { kind: raster::AttrKind::Float, width: 32, components: 2 };
    let mut pipeline = Pipeline::for_framebuffer(w, h);
    pipeline.vertex_buffers.push(VertexBuffer { location: 0, format, stride: 8, offset: 0, data });
    let cmd = DrawCmd {
        topology,
        indices: DrawIndices::Sequential { first: 0, count: positions.len() as u32 },
        first_instance: 0,
        instances: 1,
    };
    let attachment = ColorAttachment::new(inputs.format, w, h, inputs.clear)
        .ok_or(PlanError::TooLarge { what: String::from("framebuffer bytes"), value: w as u64 * h as u64, limit: MAX_SIDE as u64 * MAX_SIDE as u64 })?;
    let framebuffer = Framebuffer {
        colors: alloc::vec![ColorTarget { location: 0, attachment, blend: raster::BlendState::default() }],
        depth: None,
    };
    let (vertex_source, vertex_words, vertex_ir, vertex_entry) = vertex_stage(module, words, inputs)?;
    Ok(DrawPlan { vertex_source, vertex_words, vertex_ir, vertex_entry, pipeline, cmd, framebuffer, shape: inputs.shape, clear: inputs.clear })
}

/// A draw done on the interpreter: the framebuffer drawn into, what the
/// draw did (its traces among it) and the bound buffers after it.
#[derive(Clone, Debug)]
pub struct Drawn {
    pub framebuffer: Framebuffer,
    pub stats: crate::interp::DrawStats,
    pub buffers: crate::interp::Buffers,
}

impl Drawn {
    /// The colour attachment at Location 0 (the one a [`DrawPlan`] has).
    pub fn image(&self) -> Option<&ColorAttachment> {
        self.framebuffer.colors.iter().find(|c| c.location == 0).map(|c| &c.attachment)
    }
}

impl super::Plan {
    /// The plan's draw on the reference interpreter, with `opts` (the
    /// plan's own options, or a copy with other traces or step budget), on
    /// a copy of its framebuffer and buffers; `None` when the plan is not
    /// a draw. The CLI (`spvlab run` on a Fragment entry point) and the
    /// page (`session.run`) both draw through this.
    pub fn draw_interp(&self, opts: &crate::interp::Options) -> Option<Result<Drawn, crate::interp::RunError>> {
        let d = self.draw.as_ref()?;
        let mut framebuffer = d.framebuffer.clone();
        let mut buffers = self.buffers.clone();
        let stages = crate::interp::Stages {
            vertex: &d.vertex_ir,
            vertex_entry: Some(&d.vertex_entry),
            fragment: &self.ir,
            fragment_entry: Some(&self.entry.name),
        };
        Some(crate::interp::draw(&stages, &d.pipeline, &d.cmd, opts, &mut framebuffer, &mut buffers).map(|stats| Drawn { framebuffer, stats, buffers }))
    }
}
