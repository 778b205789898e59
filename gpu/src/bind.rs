//! Bindings beyond the module's own buffers: the buffer our WGSL lowering
//! introduces for a push-constant block (WebGPU has no push constants), and
//! images, samplers and texel buffers.

use crate::{Backend, Job, ResourceKind};
use spvlab_core::wgsl::{BindingResource, IntroducedKind, StorageAccess};

/// Our lowering of the module of `job` ([`Backend::Wgsl`] only).
fn lowered<'a>(job: &Job<'a>) -> Option<&'a spvlab_core::wgsl::Wgsl> {
    job.wgsl.filter(|_| job.backend == Backend::Wgsl)
}

/// Where a push-constant block lives in the WGSL of `job` (our lowering,
/// [`Backend::Wgsl`] only): its (group, binding) and whether it is a
/// uniform buffer (else a read-only storage buffer). `None`: the WGSL has
/// none, or this is another backend (they get wgpu's immediates).
pub(crate) fn push_constant_buffer(job: &Job) -> Option<(u32, u32, bool)> {
    lowered(job)?.introduced.iter().find_map(|i| match i.kind {
        IntroducedKind::PushConstantUniform => Some((i.group, i.binding, true)),
        IntroducedKind::PushConstantStorage => Some((i.group, i.binding, false)),
    })
}

/// The binding kind of an introduced push-constant buffer, as the module's
/// own buffers' kinds.
pub(crate) fn push_kind(uniform: bool) -> ResourceKind {
    if uniform { ResourceKind::UniformBuffer } else { ResourceKind::StorageBuffer }
}

/// The (group, binding) of every buffer the WGSL of `job` declares
/// `var<storage, read>` (a NonWritable storage buffer, or a push-constant
/// block as one): the bind group layout must say read-only to match.
pub(crate) fn read_only_buffers(job: &Job) -> Vec<(u32, u32)> {
    let bindings = lowered(job).map_or(&[][..], |w| &w.bindings);
    bindings
        .iter()
        .filter(|b| matches!(b.resource, BindingResource::Storage { read_only: true, .. }))
        .map(|b| (b.group, b.binding))
        .collect()
}

/// The least size of the buffer at (set, binding) that the WGSL of `job`
/// declares (WGSL's SizeOf of its type, which may exceed the SPIR-V data's:
/// WebGPU refuses a smaller binding); 0 for the other backends.
pub(crate) fn wgsl_min_size(job: &Job, set: u32, binding: u32) -> u64 {
    let bindings = lowered(job).map_or(&[][..], |w| &w.bindings);
    bindings
        .iter()
        .filter(|b| (b.group, b.binding) == (set, binding))
        .map(|b| match b.resource {
            BindingResource::Uniform { min_size } | BindingResource::Storage { min_size, .. } => min_size,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

use crate::{Gpu, GpuError, GpuErrorKind};
use spvlab_core::interp::image::{Format, NumKind};
use spvlab_core::ir::Type;
use spvlab_core::reflect::Resource;
use std::collections::BTreeMap;
use std::num::NonZeroU32;

/// What an extra binding holds.
pub(crate) enum Res {
    /// An array of buffers (one per element).
    Buffers(Vec<wgpu::Buffer>),
    View(wgpu::TextureView),
    Sampler(wgpu::Sampler),
}

/// A storage image to read back into its bytes' key.
#[derive(Clone)]
pub(crate) struct TexBack {
    pub key: (u32, u32),
    pub texture: wgpu::Texture,
    pub size: wgpu::Extent3d,
    /// Bytes of a row, unpadded, and padded to wgpu's copy alignment.
    pub row: u32,
    pub padded_row: u32,
    pub len: usize,
}

/// The bindings beyond plain buffers: images, samplers and arrays of
/// buffers, with what must be read back after the dispatch.
#[derive(Default)]
pub(crate) struct Extra {
    /// Per set: each binding's layout entry and resource.
    pub entries: BTreeMap<u32, Vec<(wgpu::BindGroupLayoutEntry, Res)>>,
    /// The elements of arrays of buffers, by their bytes' key.
    pub buffers: BTreeMap<(u32, u32), (wgpu::Buffer, usize)>,
    pub textures: Vec<TexBack>,
}

/// Whether this file binds `r` (the runner binds the other buffers itself).
pub(crate) fn handles(r: &Resource) -> bool {
    use ResourceKind as K;
    match r.kind {
        K::StorageBuffer | K::UniformBuffer => r.descriptor_array,
        K::StorageImage | K::SampledImage | K::Sampler => !r.descriptor_array,
        _ => false,
    }
}

/// wgpu's format of an Amber/Vulkan image format.
fn texture_format(f: &Format) -> Option<wgpu::TextureFormat> {
    use wgpu::TextureFormat as T;
    let chans: String = f.comps.iter().map(|c| ['R', 'G', 'B', 'A'][c.0 as usize & 3]).collect();
    let bits: Vec<u8> = f.comps.iter().map(|c| c.1).collect();
    let same = bits.windows(2).all(|w| w[0] == w[1]);
    let k = f.kind;
    Some(match (chans.as_str(), same.then(|| bits[0]), k) {
        ("R", Some(8), NumKind::Unorm) => T::R8Unorm,
        ("R", Some(8), NumKind::Snorm) => T::R8Snorm,
        ("R", Some(8), NumKind::Uint) => T::R8Uint,
        ("R", Some(8), NumKind::Sint) => T::R8Sint,
        ("RG", Some(8), NumKind::Unorm) => T::Rg8Unorm,
        ("RG", Some(8), NumKind::Snorm) => T::Rg8Snorm,
        ("RG", Some(8), NumKind::Uint) => T::Rg8Uint,
        ("RG", Some(8), NumKind::Sint) => T::Rg8Sint,
        ("RGBA", Some(8), NumKind::Unorm) => T::Rgba8Unorm,
        ("RGBA", Some(8), NumKind::Snorm) => T::Rgba8Snorm,
        ("RGBA", Some(8), NumKind::Uint) => T::Rgba8Uint,
        ("RGBA", Some(8), NumKind::Sint) => T::Rgba8Sint,
        ("BGRA", Some(8), NumKind::Unorm) => T::Bgra8Unorm,
        ("R", Some(16), NumKind::Uint) => T::R16Uint,
        ("R", Some(16), NumKind::Sint) => T::R16Sint,
        ("R", Some(16), NumKind::Sfloat) => T::R16Float,
        ("R", Some(16), NumKind::Unorm) => T::R16Unorm,
        ("R", Some(16), NumKind::Snorm) => T::R16Snorm,
        ("RG", Some(16), NumKind::Uint) => T::Rg16Uint,
        ("RG", Some(16), NumKind::Sint) => T::Rg16Sint,
        ("RG", Some(16), NumKind::Sfloat) => T::Rg16Float,
        ("RGBA", Some(16), NumKind::Uint) => T::Rgba16Uint,
        ("RGBA", Some(16), NumKind::Sint) => T::Rgba16Sint,
        ("RGBA", Some(16), NumKind::Sfloat) => T::Rgba16Float,
        ("RGBA", Some(16), NumKind::Unorm) => T::Rgba16Unorm,
        ("RGBA", Some(16), NumKind::Snorm) => T::Rgba16Snorm,
        ("R", Some(32), NumKind::Uint) => T::R32Uint,
        ("R", Some(32), NumKind::Sint) => T::R32Sint,
        ("R", Some(32), NumKind::Sfloat) => T::R32Float,
        ("RG", Some(32), NumKind::Uint) => T::Rg32Uint,
        ("RG", Some(32), NumKind::Sint) => T::Rg32Sint,
        ("RG", Some(32), NumKind::Sfloat) => T::Rg32Float,
        ("RGBA", Some(32), NumKind::Uint) => T::Rgba32Uint,
        ("RGBA", Some(32), NumKind::Sint) => T::Rgba32Sint,
        ("RGBA", Some(32), NumKind::Sfloat) => T::Rgba32Float,
        ("R", Some(64), NumKind::Uint) => T::R64Uint,
        // Packed formats list their components from the lowest bit.
        ("RGB", None, NumKind::Ufloat) if bits == [11, 11, 10] => T::Rg11b10Ufloat,
        ("RGBA", None, NumKind::Unorm) if bits == [10, 10, 10, 2] => T::Rgb10a2Unorm,
        ("RGBA", None, NumKind::Uint) if bits == [10, 10, 10, 2] => T::Rgb10a2Uint,
        _ => return None,
    })
}

/// The OpTypeImage of variable `var` (through an array, a sampled image).
fn image_type(ir: &spvlab_core::ir::Ir, var: u32) -> Option<(u32, u32, u32)> {
    let mut t = ir.global(var)?.pointee?;
    loop {
        match &ir.ty(t)?.ty {
            Type::Array { element, .. } | Type::RuntimeArray { element } => t = *element,
            Type::SampledImage { image } => t = *image,
            Type::Image { dim, arrayed, ms, .. } => return Some((*dim, *arrayed, *ms)),
            _ => return None,
        }
    }
}

impl Extra {
    /// Make the bindings of `res` (those [`handles`] takes) for `job`.
    /// Each resource comes with the job of the stage declaring it and that
    /// stage; a binding two stages declare is made once, visible to both.
    pub(crate) fn make(gpu: &Gpu, job: &Job, res: &[(&Job, &Resource, wgpu::ShaderStages)]) -> Result<Extra, GpuError> {
        use spvlab_core::grammar::dim;
        let mut ex = Extra::default();
        if res.is_empty() {
            return Ok(ex);
        }
        let unsupported = |m: String| gpu.fail(job, GpuErrorKind::Unsupported, m);
        let Some(opts) = job.resources else {
            return Err(unsupported("images, samplers and arrays of descriptors need the dispatch's resources".into()));
        };
        let mut textures: BTreeMap<(u32, u32), (wgpu::Texture, wgpu::TextureFormat, wgpu::TextureViewDimension)> = BTreeMap::new();
        for &(stage_job, r, stage) in res {
            let (Some(set), Some(binding)) = (r.set, r.binding) else {
                return Err(unsupported(format!("%{} has no DescriptorSet and Binding", r.variable)));
            };
            if let Some(e) = ex.entries.get_mut(&set).and_then(|v| v.iter_mut().find(|(l, _)| l.binding == binding)) {
                e.0.visibility |= stage;
                continue;
            }
            let key = *job.aliases.get(&(set, binding)).unwrap_or(&(set, binding));
            let (ty, count, resource) = match r.kind {
                ResourceKind::StorageBuffer | ResourceKind::UniformBuffer => {
                    let keys = opts.descriptor_arrays.get(&(set, binding)).cloned().unwrap_or_else(|| vec![key]);
                    let mut bufs = Vec::new();
                    for k in &keys {
                        if let Some((b, _)) = ex.buffers.get(k) {
                            bufs.push(b.clone());
                            continue;
                        }
                        let Some(data) = job.buffers.get(k) else {
                            return Err(unsupported(format!("an element of the array of buffers at {set}.{binding} has no bytes")));
                        };
                        let buf = upload(gpu, data, r.size.unwrap_or(0), r.kind);
                        ex.buffers.insert(*k, (buf.clone(), data.len()));
                        bufs.push(buf);
                    }
                    let ty = wgpu::BindingType::Buffer {
                        ty: match r.kind {
                            ResourceKind::UniformBuffer => wgpu::BufferBindingType::Uniform,
                            _ => wgpu::BufferBindingType::Storage { read_only: false },
                        },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    };
                    (ty, NonZeroU32::new(bufs.len() as u32), Res::Buffers(bufs))
                }
                ResourceKind::Sampler => {
                    let Some(s) = opts.samplers.get(&(set, binding)) else {
                        return Err(unsupported(format!("no sampler given for {set}.{binding}")));
                    };
                    if !s.normalized {
                        return Err(unsupported("a sampler with unnormalized coordinates (wgpu has none)".into()));
                    }
                    use spvlab_core::interp::image::Address as A;
                    let mode = |a: A| match a {
                        A::ClampToEdge => Ok(wgpu::AddressMode::ClampToEdge),
                        A::Repeat => Ok(wgpu::AddressMode::Repeat),
                        A::MirroredRepeat => Ok(wgpu::AddressMode::MirrorRepeat),
                        A::Other => Err(unsupported("a sampler address mode wgpu lacks".into())),
                    };
                    let filter = if s.linear { wgpu::FilterMode::Linear } else { wgpu::FilterMode::Nearest };
                    let sampler = gpu.device.create_sampler(&wgpu::SamplerDescriptor {
                        address_mode_u: mode(s.address[0])?,
                        address_mode_v: mode(s.address[1])?,
                        address_mode_w: mode(s.address[2])?,
                        mag_filter: filter,
                        min_filter: filter,
                        ..Default::default()
                    });
                    let kind = if s.linear { wgpu::SamplerBindingType::Filtering } else { wgpu::SamplerBindingType::NonFiltering };
                    (wgpu::BindingType::Sampler(kind), None, Res::Sampler(sampler))
                }
                _ => {
                    let Some((d, arrayed, ms)) = image_type(stage_job.ir, r.variable) else {
                        return Err(unsupported(format!("%{} is not an image", r.variable)));
                    };
                    if ms != 0 {
                        return Err(unsupported("a multisampled image (wgpu has no multisampled storage textures, and no texture uploads to multisampled ones)".into()));
                    }
                    let Some(img) = opts.images.get(&key) else {
                        return Err(unsupported(format!("no image given for {set}.{binding}")));
                    };
                    let Some(format) = texture_format(&img.format) else {
                        return Err(unsupported(format!("image format {:?} (wgpu has no such texture format)", img.format)));
                    };
                    let [w, h, depth] = img.size.map(|x| x.max(1));
                    let (dimension, view) = match (d, arrayed != 0) {
                        (dim::Dim1D, false) => (wgpu::TextureDimension::D1, wgpu::TextureViewDimension::D1),
                        (dim::Dim2D, false) => (wgpu::TextureDimension::D2, wgpu::TextureViewDimension::D2),
                        (dim::Dim2D, true) => (wgpu::TextureDimension::D2, wgpu::TextureViewDimension::D2Array),
                        (dim::Dim3D, false) => (wgpu::TextureDimension::D3, wgpu::TextureViewDimension::D3),
                        _ => return Err(unsupported("an image of a dimension the GPU runner does not bind (1D arrays, cubes, texel buffers)".into())),
                    };
                    let size = wgpu::Extent3d { width: w, height: h, depth_or_array_layers: depth };
                    if let std::collections::btree_map::Entry::Vacant(e) = textures.entry(key) {
                        let Some(data) = job.buffers.get(&key) else {
                            return Err(unsupported(format!("the image at {set}.{binding} has no bytes")));
                        };
                        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
                            label: None,
                            size,
                            mip_level_count: 1,
                            sample_count: 1,
                            dimension,
                            format,
                            usage: wgpu::TextureUsages::STORAGE_BINDING
                                | wgpu::TextureUsages::TEXTURE_BINDING
                                | wgpu::TextureUsages::COPY_DST
                                | wgpu::TextureUsages::COPY_SRC,
                            view_formats: &[],
                        });
                        let texel = img.format.texel_bytes() as u32;
                        let row = w * texel;
                        let mut bytes = data.clone();
                        bytes.resize((row * h * depth) as usize, 0);
                        gpu.queue.write_texture(
                            texture.as_image_copy(),
                            &bytes,
                            wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(row), rows_per_image: Some(h) },
                            size,
                        );
                        ex.textures.push(TexBack {
                            key,
                            texture: texture.clone(),
                            size,
                            row,
                            padded_row: crate::round_up(row as u64, wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64) as u32,
                            len: data.len(),
                        });
                        e.insert((texture, format, view));
                    }
                    let (texture, format, _) = &textures[&key];
                    let v = texture.create_view(&wgpu::TextureViewDescriptor { dimension: Some(view), ..Default::default() });
                    let ty = if r.kind == ResourceKind::StorageImage {
                        wgpu::BindingType::StorageTexture { access: storage_access(stage_job, set, binding), format: *format, view_dimension: view }
                    } else {
                        // Filterable where the format is (a linear
                        // sampler may only sample such a texture).
                        let sample_type = format.sample_type(None, Some(gpu.features)).unwrap_or(wgpu::TextureSampleType::Float { filterable: false });
                        wgpu::BindingType::Texture { sample_type, view_dimension: view, multisampled: false }
                    };
                    (ty, None, Res::View(v))
                }
            };
            let entry = wgpu::BindGroupLayoutEntry { binding, visibility: stage, ty, count };
            ex.entries.entry(set).or_default().push((entry, resource));
        }
        Ok(ex)
    }

    /// The array elements of `set`, as bind group entries (`arrays` holds
    /// the buffer bindings they borrow: fill it with [`Extra::arrays`]).
    pub(crate) fn arrays(&self, set: u32) -> Vec<Vec<wgpu::BufferBinding<'_>>> {
        self.entries
            .get(&set)
            .map(|v| {
                v.iter()
                    .map(|(_, r)| match r {
                        Res::Buffers(bs) => bs.iter().map(|b| b.as_entire_buffer_binding()).collect(),
                        _ => Vec::new(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn group_entries<'a>(&'a self, set: u32, arrays: &'a [Vec<wgpu::BufferBinding<'a>>]) -> Vec<wgpu::BindGroupEntry<'a>> {
        let Some(v) = self.entries.get(&set) else { return Vec::new() };
        v.iter()
            .zip(arrays)
            .map(|((l, r), a)| wgpu::BindGroupEntry {
                binding: l.binding,
                resource: match r {
                    Res::Buffers(_) => wgpu::BindingResource::BufferArray(a),
                    Res::View(v) => wgpu::BindingResource::TextureView(v),
                    Res::Sampler(s) => wgpu::BindingResource::Sampler(s),
                },
            })
            .collect()
    }

    pub(crate) fn layout_entries(&self, set: u32) -> Vec<wgpu::BindGroupLayoutEntry> {
        self.entries.get(&set).map(|v| v.iter().map(|(l, _)| *l).collect()).unwrap_or_default()
    }
}

/// Copy each storage image into a staging buffer of padded rows.
pub(crate) fn copy_textures(device: &wgpu::Device, enc: &mut wgpu::CommandEncoder, textures: &[TexBack]) -> Vec<wgpu::Buffer> {
    textures
        .iter()
        .map(|t| {
            let rows = t.size.height * t.size.depth_or_array_layers;
            let s = device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: (t.padded_row as u64 * rows as u64).max(4),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_texture_to_buffer(
                t.texture.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &s,
                    layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(t.padded_row), rows_per_image: Some(t.size.height) },
                },
                t.size,
            );
            s
        })
        .collect()
}

/// The image's bytes, its rows unpadded.
pub(crate) fn unpad(t: &TexBack, bytes: &[u8]) -> Vec<u8> {
    let rows = (t.size.height * t.size.depth_or_array_layers) as usize;
    let mut out = Vec::with_capacity(t.row as usize * rows);
    for k in 0..rows {
        let at = k * t.padded_row as usize;
        out.extend_from_slice(bytes.get(at..at + t.row as usize).unwrap_or(&[]));
    }
    out.truncate(t.len);
    out
}

/// The access of the storage texture at (set, binding): as our WGSL
/// declares it, else (the other backends) read-write.
fn storage_access(job: &Job, set: u32, binding: u32) -> wgpu::StorageTextureAccess {
    let bindings = lowered(job).map_or(&[][..], |w| &w.bindings);
    let access = bindings.iter().find_map(|b| match b.resource {
        BindingResource::StorageTexture { access } if (b.group, b.binding) == (set, binding) => Some(access),
        _ => None,
    });
    match access {
        Some(StorageAccess::Read) => wgpu::StorageTextureAccess::ReadOnly,
        Some(StorageAccess::Write) => wgpu::StorageTextureAccess::WriteOnly,
        Some(StorageAccess::ReadWrite) | None => wgpu::StorageTextureAccess::ReadWrite,
    }
}

/// A buffer holding `data` (at least `least` bytes, rounded up to what a
/// uniform or storage binding of `kind` needs), uploaded.
pub(crate) fn upload(gpu: &Gpu, data: &[u8], least: u64, kind: ResourceKind) -> wgpu::Buffer {
    let align = if kind == ResourceKind::UniformBuffer { 16 } else { 4 };
    let size = crate::round_up((data.len() as u64).max(least).max(4), align);
    let buf = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut padded = data.to_vec();
    padded.resize(size as usize, 0);
    gpu.queue.write_buffer(&buf, 0, &padded);
    buf
}

/// A stage's module as the runner binds it: its combined image samplers
/// split into an image and a sampler ([`spvlab_core::wgsl::split_combined_samplers`]:
/// wgpu has no combined image samplers), the pairs our WGSL declares.
pub(crate) struct SplitModule {
    pub words: Vec<u32>,
    pub ir: spvlab_core::ir::Ir,
    pub combined: Vec<spvlab_core::wgsl::Combined>,
}

/// The split module of `job`; `None` when it has no combined image
/// sampler. A combined image sampler that cannot be split (passed to a
/// function) is refused, with the use that stops it.
pub(crate) fn split(gpu: &Gpu, job: &Job) -> Result<Option<SplitModule>, GpuError> {
    let s = spvlab_core::wgsl::split_combined_samplers(job.ir).map_err(|why| gpu.fail(job, GpuErrorKind::Unsupported, format!("{why} (wgpu binds a combined image sampler as an image and a sampler)")))?;
    let Some(s) = s else { return Ok(None) };
    let module = spvlab_core::binary::read_words(&s.words).map_err(|e| gpu.fail(job, GpuErrorKind::Unsupported, format!("the module with its combined image samplers split does not read: {}", e.message())))?;
    Ok(Some(SplitModule { ir: spvlab_core::ir::Ir::build(module), words: s.words, combined: s.combined }))
}

/// The dispatch's resources with each split sampler's state also at the
/// sampler's binding (the Amber runner gives it at the combined one's).
pub(crate) fn split_options(opts: Option<&spvlab_core::interp::Options>, splits: &[&SplitModule]) -> Option<spvlab_core::interp::Options> {
    let mut o = opts?.clone();
    for c in splits.iter().flat_map(|s| &s.combined) {
        if let Some(s) = o.samplers.get(&c.texture).cloned() {
            o.samplers.insert(c.sampler, s);
        }
    }
    Some(o)
}
