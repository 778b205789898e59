//! Primitive assembly (the Vulkan spec's "Primitive Topologies"), with the
//! provoking vertex first in every primitive.

use alloc::vec::Vec;

/// `VkPrimitiveTopology`, less adjacency and patches (they need a geometry
/// or tessellation stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    PointList,
    LineList,
    LineStrip,
    TriangleList,
    TriangleStrip,
    TriangleFan,
}

impl Topology {
    /// The topology named as in Vulkan and Amber (`TRIANGLE_STRIP`, with or
    /// without the `VK_PRIMITIVE_TOPOLOGY_` prefix).
    pub fn from_name(name: &str) -> Option<Topology> {
        let name = name.strip_prefix("VK_PRIMITIVE_TOPOLOGY_").unwrap_or(name);
        Some(match name {
            "POINT_LIST" => Topology::PointList,
            "LINE_LIST" => Topology::LineList,
            "LINE_STRIP" => Topology::LineStrip,
            "TRIANGLE_LIST" => Topology::TriangleList,
            "TRIANGLE_STRIP" => Topology::TriangleStrip,
            "TRIANGLE_FAN" => Topology::TriangleFan,
            _ => return None,
        })
    }

    /// Vertices per primitive.
    pub fn vertices(self) -> usize {
        match self {
            Topology::PointList => 1,
            Topology::LineList | Topology::LineStrip => 2,
            _ => 3,
        }
    }
}

/// Where a draw's vertex numbers come from.
#[derive(Clone, Copy, Debug)]
pub enum Indices<'a> {
    /// `vkCmdDraw`: `first..first + count`.
    Sequential { first: u32, count: u32 },
    /// `vkCmdDrawIndexed`: the index values (already offset by
    /// `vertexOffset`); `restart` is the restart index (0xFFFF for 16-bit
    /// indices, 0xFFFFFFFF for 32-bit) when primitive restart is enabled.
    List {
        indices: &'a [u32],
        restart: Option<u32>,
    },
}

/// One primitive: its vertex numbers (`VertexIndex`: the index value for an
/// indexed draw), `len` of them (1, 2 or 3); `vertices[0]` is the provoking
/// vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Primitive {
    pub vertices: [u32; 3],
    pub len: u8,
}

/// The primitives of a draw, in order. Incomplete primitives at the end (or
/// before a restart) are dropped, as the spec says.
pub fn assemble(topology: Topology, indices: Indices) -> Vec<Primitive> {
    let mut out = Vec::new();
    match indices {
        Indices::Sequential { first, count } => {
            let run = (0..count).map(|i| first.wrapping_add(i));
            assemble_run(topology, run, &mut out);
        }
        Indices::List { indices, restart } => match restart {
            Some(r)
                if matches!(
                    topology,
                    Topology::LineStrip | Topology::TriangleStrip | Topology::TriangleFan
                ) =>
            {
                for run in indices.split(|&i| i == r) {
                    assemble_run(topology, run.iter().copied(), &mut out);
                }
            }
            // Restart does not apply to list topologies: the restart value
            // is then an ordinary index (Vulkan 1.3 without
            // primitiveTopologyListRestart).
            _ => assemble_run(topology, indices.iter().copied(), &mut out),
        },
    }
    out
}

fn assemble_run(topology: Topology, run: impl Iterator<Item = u32>, out: &mut Vec<Primitive>) {
    // The first vertex of the run (fans) and the last two seen (strips).
    let (mut first, mut a, mut b) = (0u32, 0u32, 0u32);
    for (n, v) in (0u64..).zip(run) {
        match topology {
            Topology::PointList => out.push(Primitive {
                vertices: [v, 0, 0],
                len: 1,
            }),
            Topology::LineList => {
                if n % 2 == 1 {
                    out.push(Primitive {
                        vertices: [a, v, 0],
                        len: 2,
                    });
                }
            }
            Topology::LineStrip => {
                if n >= 1 {
                    out.push(Primitive {
                        vertices: [a, v, 0],
                        len: 2,
                    });
                }
            }
            Topology::TriangleList => {
                if n % 3 == 2 {
                    out.push(Primitive {
                        vertices: [b, a, v],
                        len: 3,
                    });
                }
            }
            Topology::TriangleStrip => {
                if n >= 2 {
                    // Triangle i = n - 2 is {v_i, v_{i+1+i%2}, v_{i+2-i%2}}.
                    let vertices = if (n - 2).is_multiple_of(2) {
                        [b, a, v]
                    } else {
                        [b, v, a]
                    };
                    out.push(Primitive { vertices, len: 3 });
                }
            }
            Topology::TriangleFan => {
                if n >= 2 {
                    // Triangle i = n - 2 is {v_{i+1}, v_{i+2}, v_0}.
                    out.push(Primitive {
                        vertices: [a, v, first],
                        len: 3,
                    });
                }
            }
        }
        if n == 0 {
            first = v;
        }
        // For lists the pair resets at each primitive's start.
        match topology {
            Topology::LineList if n.is_multiple_of(2) => a = v,
            Topology::TriangleList if n.is_multiple_of(3) => b = v,
            Topology::TriangleList if n % 3 == 1 => a = v,
            Topology::LineList | Topology::TriangleList | Topology::PointList => {}
            _ => {
                b = a;
                a = v;
            }
        }
    }
}
