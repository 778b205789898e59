//! A draw: the vertex shader for each vertex the primitives use (and each
//! instance), the fixed function of [`crate::raster`] (primitive assembly,
//! clipping, rasterisation into 2x2 quads), the fragment shader for each
//! quad's four lanes together (derivatives across the quad; helper lanes
//! run and write nothing), then per covered fragment the sample mask, the
//! depth test (with the shader's FragDepth, else the interpolated depth
//! with the pipeline's bias and clamp), blending and the colour write.
//!
//! The vertex outputs are kept per vertex as component words (a float's
//! bits or an integer), `Location * 4 + Component`; the fragment inputs are
//! interpolated from them as their decorations say (integers flat). The
//! stages' uniform and storage buffers come from one [`Buffers`], read and
//! written by both; all vertices of an instance run before its fragments.

use super::exec::stage::Lanes;
use super::io::{Leaf, Slot};
use super::mem::{BufKey, Val, at, at_mut};
use super::program::Program;
use super::trace::{Gather, TraceReport};
use super::{Buffers, DrawSite, Options, RunError, RunErrorKind};
use crate::grammar::{built_in as bi, execution_model};
use crate::ir::Ir;
use crate::raster::{self, AttrValue, DrawCmd, DrawIndices, Framebuffer, Interpolation, Pipeline, PrimitiveInfo, Quad};
use alloc::vec;
use alloc::vec::Vec;

/// The shader stages of a draw: each a module and its entry point's name
/// (`None`: the module's first entry point of that stage). The two may be
/// one module.
#[derive(Clone, Copy, Debug)]
pub struct Stages<'a> {
    pub vertex: &'a Ir,
    pub vertex_entry: Option<&'a str>,
    pub fragment: &'a Ir,
    pub fragment_entry: Option<&'a str>,
}

/// What a finished draw did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Vertex shader invocations (vertices times instances).
    pub vertices: u64,
    /// Fragment shader invocations for covered pixels.
    pub fragments: u64,
    /// Helper lanes run beside them.
    pub helpers: u64,
    /// Instructions executed, both stages together.
    pub steps: u64,
    /// The vertex stage's paths, by `[vertex, instance, 0]`
    /// ([`Options::trace`]; `None` when it is off).
    pub vertex_trace: Option<TraceReport>,
    /// The fragment stage's paths, by pixel `[x, y, 0]` (covered fragments
    /// only).
    pub fragment_trace: Option<TraceReport>,
}

/// Take a program's buffers out of `buffers` (by `prog.bufs`).
fn take_bufs(prog: &Program, opts: &Options, buffers: &mut Buffers) -> Vec<Option<Vec<u8>>> {
    prog.bufs
        .iter()
        .map(|k| match k {
            BufKey::Binding(s, b) => buffers.remove(&(*s, *b)),
            BufKey::PushConstant => opts.push_constants.clone(),
            BufKey::Workgroup => None,
        })
        .collect()
}

fn give_bufs(prog: &Program, bufs: Vec<Option<Vec<u8>>>, buffers: &mut Buffers) {
    for (k, b) in prog.bufs.iter().zip(bufs) {
        if let (BufKey::Binding(s, bd), Some(b)) = (k, b) {
            buffers.insert((*s, *bd), b);
        }
    }
}

/// Write the scalar `x` at `leaf` in memory `mem`.
#[inline]
fn put_leaf(mem: &mut [Val], leaf: &Leaf, x: u64) {
    if let Some(slot) = mem.get_mut(leaf.var as usize).and_then(|v| at_mut(v, &leaf.path)) {
        match slot {
            Val::Scalar(y) => *y = x,
            s => *s = Val::Scalar(x),
        }
    }
}

/// The scalar at `leaf` in `mem` (`None`: undefined).
#[inline]
fn get_leaf(mem: &[Val], leaf: &Leaf) -> Option<u64> {
    match mem.get(leaf.var as usize).and_then(|v| at(v, &leaf.path)) {
        Some(Val::Scalar(x)) => Some(*x),
        _ => None,
    }
}

fn site(mut e: RunError, site: DrawSite) -> RunError {
    e.invocation = None;
    e.site = Some(site);
    e
}

/// An attribute component as the input's type: a float's bits, else an
/// integer's low 32 bits.
fn attr_bits(v: AttrValue, float: bool) -> u64 {
    let bits = match (v, float) {
        (AttrValue::F(f), true) => (f as f32).to_bits(),
        (AttrValue::I(i), true) => (i as f32).to_bits(),
        (AttrValue::U(u), true) => (u as f32).to_bits(),
        (AttrValue::F(f), false) => f as i64 as u32,
        (AttrValue::I(i), false) => i as u32,
        (AttrValue::U(u), false) => u as u32,
    };
    bits as u64
}

/// Run a draw: see the module doc. `opts` gives the resources as for a
/// compute run (push constants, images, samplers, descriptor arrays,
/// aliases), the step budget of each invocation, the traces and robust
/// access; its entry point and workgroups are not read. `fb` is drawn into
/// in place. An error names its vertex or fragment in [`RunError::site`].
pub fn draw(
    stages: &Stages,
    pipeline: &Pipeline,
    cmd: &DrawCmd,
    opts: &Options,
    fb: &mut Framebuffer,
    buffers: &mut Buffers,
) -> Result<DrawStats, RunError> {
    let vprog = Program::for_stage(stages.vertex, opts, execution_model::Vertex, stages.vertex_entry)?;
    let fprog = Program::for_stage(stages.fragment, opts, execution_model::Fragment, stages.fragment_entry)?;
    let mut stats = DrawStats::default();
    let mut prims = raster::assemble(cmd.topology, cmd.assembly());
    // The vertex numbers used, each once; the primitives then index them.
    let mut verts: Vec<u32> = prims.iter().flat_map(|p| p.vertices[..(p.len as usize).min(3)].iter().copied()).collect();
    verts.sort_unstable();
    verts.dedup();
    for p in &mut prims {
        for v in &mut p.vertices[..(p.len as usize).min(3)] {
            *v = verts.binary_search(v).unwrap_or(0) as u32;
        }
    }
    let nw = vprog
        .outputs
        .iter()
        .chain(&fprog.inputs)
        .filter_map(|l| match l.slot {
            Slot::Word(w) => Some(w as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut words = vec![0u32; verts.len().saturating_mul(nw)];
    let mut positions = vec![[0.0f32; 4]; verts.len()];
    let mut point_sizes = vec![1.0f32; verts.len()];
    let base_vertex = match cmd.indices {
        DrawIndices::Sequential { first, .. } => first,
        DrawIndices::Indexed { .. } => 0,
    };
    let tracing = opts.trace != super::Trace::Off;
    let mut vgather = tracing.then(Gather::default);
    let mut fgather = tracing.then(Gather::default);
    let frag = FragPlan::new(&fprog, fb);
    for i in 0..cmd.instances {
        let instance = cmd.first_instance.wrapping_add(i);
        // The vertex stage.
        let mut bufs = take_bufs(&vprog, opts, buffers);
        let r = (|| -> Result<(), RunError> {
            let mut lanes = Lanes::new(&vprog, opts, &mut bufs, 1);
            for (ci, &v) in verts.iter().enumerate() {
                let at_site = |e| site(e, DrawSite::Vertex { vertex: v, instance });
                lanes.start(0, [v, instance, 0], false).map_err(at_site)?;
                let mem = lanes.mem(0);
                for leaf in &vprog.inputs {
                    let x = match leaf.slot {
                        Slot::Word(w) => {
                            let value = match pipeline.input(w / 4) {
                                Some(b) => b.format.read(b.vertex(v), (w % 4) as usize),
                                None => AttrValue::F(if w % 4 == 3 { 1.0 } else { 0.0 }),
                            };
                            attr_bits(value, leaf.float)
                        }
                        Slot::BuiltIn(b, _) => match b {
                            bi::VertexIndex => v as u64,
                            bi::InstanceIndex => instance as u64,
                            bi::BaseVertex => base_vertex as u64,
                            bi::BaseInstance => cmd.first_instance as u64,
                            bi::DrawIndex | bi::ViewIndex => 0,
                            _ => return Err(at_site(RunError::of(None, RunErrorKind::UnsupportedBuiltIn { built_in: b }))),
                        },
                    };
                    put_leaf(mem, leaf, x);
                }
                lanes.run().map_err(at_site)?;
                let mem = lanes.mem(0);
                positions[ci] = [f32::NAN; 4];
                for leaf in &vprog.outputs {
                    let x = get_leaf(mem, leaf);
                    match leaf.slot {
                        Slot::Word(w) => {
                            if let Some(d) = words.get_mut(ci * nw + w as usize) {
                                *d = x.unwrap_or(0) as u32;
                            }
                        }
                        Slot::BuiltIn(bi::Position, c) if c < 4 => {
                            positions[ci][c as usize] = x.map_or(f32::NAN, |x| f32::from_bits(x as u32));
                        }
                        Slot::BuiltIn(bi::PointSize, _) => {
                            point_sizes[ci] = x.map_or(1.0, |x| f32::from_bits(x as u32));
                        }
                        _ => {}
                    }
                }
                if let (Some(g), Some(r)) = (&mut vgather, lanes.take_rec(0)) {
                    g.add([v, instance, 0], *r);
                }
                stats.vertices += 1;
            }
            stats.steps += lanes.steps;
            Ok(())
        })();
        give_bufs(&vprog, bufs, buffers);
        r?;
        // Rasterisation and the fragment stage.
        let mut bufs = take_bufs(&fprog, opts, buffers);
        let mut failed: Option<RunError> = None;
        {
            let mut lanes = Lanes::new(&fprog, opts, &mut bufs, 4);
            let mut ctx = Frag {
                prog: &fprog,
                plan: &frag,
                pipeline,
                fb: &mut *fb,
                words: &words,
                nw,
                positions: &positions,
                point_sizes: &point_sizes,
                stats: &mut stats,
                gather: fgather.as_mut(),
            };
            raster::draw(&pipeline.state, &prims, &positions, &point_sizes, |info, quad| {
                if failed.is_none()
                    && let Err(e) = ctx.quad(&mut lanes, info, quad)
                {
                    failed = Some(e);
                }
            });
            ctx.stats.steps += lanes.steps;
        }
        give_bufs(&fprog, bufs, buffers);
        if let Some(mut e) = failed {
            if let Some(g) = fgather.take() {
                e.trace = Some(alloc::boxed::Box::new(g.report(&fprog)));
            }
            return Err(e);
        }
    }
    stats.vertex_trace = vgather.map(|g| g.report(&vprog));
    stats.fragment_trace = fgather.map(|g| g.report(&fprog));
    Ok(stats)
}

/// Where the fragment shader's outputs go: per colour target the leaves of
/// its Location's four components, and the FragDepth and SampleMask leaves.
struct FragPlan {
    colors: Vec<[Option<usize>; 4]>,
    depth: Option<usize>,
    mask: Option<usize>,
}

impl FragPlan {
    fn new(prog: &Program, fb: &Framebuffer) -> FragPlan {
        let find = |slot: Slot| prog.outputs.iter().position(|l| l.slot == slot);
        FragPlan {
            colors: fb.colors.iter().map(|t| core::array::from_fn(|c| find(Slot::Word(t.location.saturating_mul(4).saturating_add(c as u32))))).collect(),
            depth: find(Slot::BuiltIn(bi::FragDepth, 0)),
            mask: find(Slot::BuiltIn(bi::SampleMask, 0)),
        }
    }
}

/// The fragment stage of one instance's draw.
struct Frag<'d> {
    prog: &'d Program<'d>,
    plan: &'d FragPlan,
    pipeline: &'d Pipeline,
    fb: &'d mut Framebuffer,
    words: &'d [u32],
    nw: usize,
    positions: &'d [[f32; 4]],
    point_sizes: &'d [f32],
    stats: &'d mut DrawStats,
    gather: Option<&'d mut Gather>,
}

impl Frag<'_> {
    /// Vertex `k` of the primitive's component word `w`.
    #[inline]
    fn word(&self, info: &PrimitiveInfo, k: usize, w: u32) -> u32 {
        let v = info.primitive.vertices[k.min(info.primitive.len.saturating_sub(1) as usize)] as usize;
        self.words.get(v * self.nw + w as usize).copied().unwrap_or(0)
    }

    /// The value of input `leaf` for lane `k` of `quad`.
    fn input(&self, leaf: &Leaf, info: &PrimitiveInfo, quad: &Quad, k: usize) -> Result<u64, RunErrorKind> {
        let lane = &quad.lanes[k];
        let (x, y) = quad.pixel(k);
        Ok(match leaf.slot {
            Slot::Word(w) => {
                if !leaf.float || leaf.interp == Interpolation::Flat {
                    self.word(info, 0, w) as u64
                } else {
                    let vals = [0, 1, 2].map(|j| f32::from_bits(self.word(info, j, w)));
                    raster::interpolate(leaf.interp, lane, vals).to_bits() as u64
                }
            }
            Slot::BuiltIn(b, c) => match b {
                bi::FragCoord => match c {
                    0 => (x as f32 + 0.5).to_bits() as u64,
                    1 => (y as f32 + 0.5).to_bits() as u64,
                    2 => lane.depth.to_bits() as u64,
                    _ => lane.inv_w.to_bits() as u64,
                },
                bi::FrontFacing => info.front_facing as u64,
                bi::HelperInvocation => quad.is_helper(k) as u64,
                bi::PrimitiveId => info.index as u64,
                bi::SampleId | bi::Layer | bi::ViewIndex | bi::ViewportIndex => 0,
                bi::SamplePosition => 0.5f32.to_bits() as u64,
                // The quad is the fragments' subgroup (its group operations
                // run over the quad's lanes), lane k at x + k % 2, y + k / 2.
                bi::SubgroupSize => 4,
                bi::SubgroupLocalInvocationId => k as u64,
                bi::SampleMask => (c == 0 && quad.is_covered(k)) as u64,
                bi::PointCoord => {
                    // The point's centre and size in framebuffer space.
                    let v = info.primitive.vertices[0] as usize;
                    let p = self.positions.get(v).copied().unwrap_or([0.0; 4]);
                    let size = self.point_sizes.get(v).copied().unwrap_or(1.0);
                    let vp = &self.pipeline.state.viewport;
                    let centre = if c == 0 { vp.x + vp.width / 2.0 * (1.0 + p[0] / p[3]) } else { vp.y + vp.height / 2.0 * (1.0 + p[1] / p[3]) };
                    let at = if c == 0 { x } else { y } as f32 + 0.5;
                    (0.5 + (at - centre) / size).to_bits() as u64
                }
                _ => return Err(RunErrorKind::UnsupportedBuiltIn { built_in: b }),
            },
        })
    }

    /// The depth test (and write) of lane `k` at `(x, y)`: its depth is
    /// `frag_depth` (the shader's FragDepth), else the interpolated one with
    /// the pipeline's bias; clamped where the pipeline clamps. True without
    /// a depth attachment.
    fn depth_test(&mut self, info: &PrimitiveInfo, quad: &Quad, k: usize, x: u32, y: u32, frag_depth: Option<f32>) -> bool {
        let Some(d) = &mut self.fb.depth else { return true };
        let vp = &self.pipeline.state.viewport;
        let z = frag_depth.unwrap_or_else(|| {
            let z = quad.lanes[k].depth;
            match &d.bias {
                Some(b) => z + b.offset(d.buffer.format, info.depth_slope),
                None => z,
            }
        });
        let z = if d.clamp { z.clamp(vp.min_depth.min(vp.max_depth), vp.max_depth.max(vp.min_depth)) } else { z };
        d.buffer.test(d.state, x, y, z)
    }

    fn quad(&mut self, lanes: &mut Lanes, info: &PrimitiveInfo, quad: &Quad) -> Result<(), RunError> {
        let primitive = info.index as u32;
        let at_site = |e: RunError| {
            let [x, y, _] = e.invocation.unwrap_or([quad.x, quad.y, 0]);
            site(e, DrawSite::Fragment { x, y, primitive })
        };
        // Early fragment tests: the depth test and write first; a lane that
        // fails it runs as a helper (writing nothing), and FragDepth is not
        // read.
        let mut failed_early = [false; 4];
        if self.prog.early_tests && self.fb.depth.is_some() {
            for (k, failed) in failed_early.iter_mut().enumerate() {
                let (x, y) = quad.pixel(k);
                *failed = quad.is_covered(k) && !self.depth_test(info, quad, k, x, y, None);
            }
        }
        for k in 0..4 {
            let (x, y) = quad.pixel(k);
            lanes.start(k, [x, y, 0], quad.is_helper(k) || failed_early[k]).map_err(at_site)?;
            for leaf in &self.prog.inputs {
                let v = self.input(leaf, info, quad, k).map_err(|kind| site(RunError::of(None, kind), DrawSite::Fragment { x, y, primitive }))?;
                put_leaf(lanes.mem(k), leaf, v);
            }
        }
        lanes.run().map_err(at_site)?;
        let covered = quad.covered.count_ones() as u64;
        self.stats.fragments += covered;
        self.stats.helpers += 4 - covered;
        for k in 0..4 {
            if !quad.is_covered(k) {
                continue;
            }
            let (x, y) = quad.pixel(k);
            if let Some(g) = self.gather.as_deref_mut()
                && let Some(r) = lanes.take_rec(k)
            {
                g.add([x, y, 0], *r);
            }
            if lanes.helper[k] || lanes.killed[k] || failed_early[k] {
                continue;
            }
            let undefined = |location: Option<u32>, component: u32| {
                site(RunError::of(None, RunErrorKind::UndefinedOutput { location, component }), DrawSite::Fragment { x, y, primitive })
            };
            let mem = lanes.mem(k);
            let out = |i: usize| get_leaf(mem, &self.prog.outputs[i]);
            if let Some(i) = self.plan.mask
                && out(i).is_some_and(|m| m & 1 == 0)
            {
                continue;
            }
            if !self.prog.early_tests {
                let frag_depth = match self.plan.depth {
                    Some(i) => Some(f32::from_bits(out(i).ok_or_else(|| undefined(None, 0))? as u32)),
                    None => None,
                };
                if !self.depth_test(info, quad, k, x, y, frag_depth) {
                    continue;
                }
            }
            for (t, leaves) in self.fb.colors.iter_mut().zip(&self.plan.colors) {
                if leaves.iter().all(Option::is_none) {
                    continue;
                }
                let Some(dst) = t.attachment.read(x, y) else { continue };
                let mut src = dst;
                for (c, l) in leaves.iter().enumerate() {
                    if let Some(i) = *l {
                        let leaf = &self.prog.outputs[i];
                        let bits = out(i).ok_or_else(|| undefined(Some(t.location), c as u32))? as u32;
                        src[c] = match (leaf.float, t.attachment.format.signed()) {
                            (true, _) => f32::from_bits(bits),
                            (false, Some(false)) => bits as f32,
                            (false, _) => bits as i32 as f32,
                        };
                    }
                }
                let rgba = t.blend.blend(t.attachment.format, src, [0.0; 4], dst, self.pipeline.blend_constant);
                t.attachment.write(x, y, rgba);
            }
        }
        Ok(())
    }
}
