//! Target environments, named as SPIRV-Tools names them (`--target-env`).

/// A target environment: a SPIR-V version plus the client API's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TargetEnv {
    Spv1_0,
    Spv1_1,
    Spv1_2,
    Spv1_3,
    Spv1_4,
    Spv1_5,
    #[default]
    Spv1_6,
    Vulkan1_0,
    Vulkan1_1,
    Vulkan1_1Spv1_4,
    Vulkan1_2,
    Vulkan1_3,
    Vulkan1_4,
    OpenCl1_2,
    OpenCl1_2Embedded,
    OpenCl2_0,
    OpenCl2_0Embedded,
    OpenCl2_1,
    OpenCl2_1Embedded,
    OpenCl2_2,
    OpenCl2_2Embedded,
    OpenGl4_0,
    OpenGl4_1,
    OpenGl4_2,
    OpenGl4_3,
    OpenGl4_5,
}

/// The names SPIRV-Tools accepts, in the order its help text lists them.
pub const TARGET_ENVS: &[(&str, TargetEnv)] = &[
    ("spv1.0", TargetEnv::Spv1_0),
    ("spv1.1", TargetEnv::Spv1_1),
    ("spv1.2", TargetEnv::Spv1_2),
    ("spv1.3", TargetEnv::Spv1_3),
    ("spv1.4", TargetEnv::Spv1_4),
    ("spv1.5", TargetEnv::Spv1_5),
    ("spv1.6", TargetEnv::Spv1_6),
    ("vulkan1.0", TargetEnv::Vulkan1_0),
    ("vulkan1.1", TargetEnv::Vulkan1_1),
    ("vulkan1.1spv1.4", TargetEnv::Vulkan1_1Spv1_4),
    ("vulkan1.2", TargetEnv::Vulkan1_2),
    ("vulkan1.3", TargetEnv::Vulkan1_3),
    ("vulkan1.4", TargetEnv::Vulkan1_4),
    ("opencl1.2", TargetEnv::OpenCl1_2),
    ("opencl1.2embedded", TargetEnv::OpenCl1_2Embedded),
    ("opencl2.0", TargetEnv::OpenCl2_0),
    ("opencl2.0embedded", TargetEnv::OpenCl2_0Embedded),
    ("opencl2.1", TargetEnv::OpenCl2_1),
    ("opencl2.1embedded", TargetEnv::OpenCl2_1Embedded),
    ("opencl2.2", TargetEnv::OpenCl2_2),
    ("opencl2.2embedded", TargetEnv::OpenCl2_2Embedded),
    ("opengl4.0", TargetEnv::OpenGl4_0),
    ("opengl4.1", TargetEnv::OpenGl4_1),
    ("opengl4.2", TargetEnv::OpenGl4_2),
    ("opengl4.3", TargetEnv::OpenGl4_3),
    ("opengl4.5", TargetEnv::OpenGl4_5),
];

impl TargetEnv {
    pub fn parse(name: &str) -> Option<TargetEnv> {
        TARGET_ENVS.iter().find(|(n, _)| *n == name).map(|&(_, e)| e)
    }

    pub fn name(self) -> &'static str {
        TARGET_ENVS.iter().find(|&&(_, e)| e == self).map_or("spv1.6", |(n, _)| n)
    }

    /// The SPIR-V version `(major, minor)` this environment uses.
    pub fn spirv_version(self) -> (u8, u8) {
        use TargetEnv::*;
        match self {
            Spv1_0 | Vulkan1_0 | OpenCl1_2 | OpenCl1_2Embedded | OpenCl2_0 | OpenCl2_0Embedded
            | OpenCl2_1 | OpenCl2_1Embedded | OpenGl4_0 | OpenGl4_1 | OpenGl4_2 | OpenGl4_3
            | OpenGl4_5 => (1, 0),
            Spv1_1 => (1, 1),
            Spv1_2 | OpenCl2_2 | OpenCl2_2Embedded => (1, 2),
            Spv1_3 | Vulkan1_1 => (1, 3),
            Spv1_4 | Vulkan1_1Spv1_4 => (1, 4),
            Spv1_5 | Vulkan1_2 => (1, 5),
            Spv1_6 | Vulkan1_3 | Vulkan1_4 => (1, 6),
        }
    }

    /// The version word of a module header for this environment.
    pub fn version_word(self) -> u32 {
        let (major, minor) = self.spirv_version();
        (major as u32) << 16 | (minor as u32) << 8
    }

    pub fn is_vulkan(self) -> bool {
        use TargetEnv::*;
        matches!(self, Vulkan1_0 | Vulkan1_1 | Vulkan1_1Spv1_4 | Vulkan1_2 | Vulkan1_3 | Vulkan1_4)
    }

    pub fn is_opencl(self) -> bool {
        use TargetEnv::*;
        matches!(
            self,
            OpenCl1_2 | OpenCl1_2Embedded | OpenCl2_0 | OpenCl2_0Embedded | OpenCl2_1
                | OpenCl2_1Embedded | OpenCl2_2 | OpenCl2_2Embedded
        )
    }

    pub fn is_opengl(self) -> bool {
        use TargetEnv::*;
        matches!(self, OpenGl4_0 | OpenGl4_1 | OpenGl4_2 | OpenGl4_3 | OpenGl4_5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &(n, e) in TARGET_ENVS {
            assert_eq!(TargetEnv::parse(n), Some(e));
            assert_eq!(e.name(), n);
        }
        assert_eq!(TargetEnv::parse("spv2.0"), None);
    }

    #[test]
    fn version_words() {
        assert_eq!(TargetEnv::Spv1_0.version_word(), 0x0001_0000);
        assert_eq!(TargetEnv::Vulkan1_1.version_word(), 0x0001_0300);
        assert_eq!(TargetEnv::Vulkan1_3.version_word(), 0x0001_0600);
    }
}
