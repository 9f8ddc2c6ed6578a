//! What a draw's vertices make and how its indices are read, at Vulkan level: the values a
//! pipeline's and a command buffer's fixed-function state hold. A generation's emitter
//! (`emit/`) turns them into its own words.

use ash::vk;

/// The primitive class a draw assembles. An adjacency topology stands for its plain class:
/// only a geometry shader sees the adjacent vertices (cmd_buffer/geometry.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Points,
    Lines,
    LineStrip,
    Triangles,
    TriangleStrip,
    TriangleFan,
}

impl Topology {
    /// The class of `t`, or none for a topology agx4 does not draw (patch lists).
    pub fn of(t: vk::PrimitiveTopology) -> Option<Topology> {
        Some(match t {
            vk::PrimitiveTopology::POINT_LIST => Topology::Points,
            vk::PrimitiveTopology::LINE_LIST | vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY => {
                Topology::Lines
            }
            vk::PrimitiveTopology::LINE_STRIP
            | vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY => Topology::LineStrip,
            vk::PrimitiveTopology::TRIANGLE_LIST
            | vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY => Topology::Triangles,
            vk::PrimitiveTopology::TRIANGLE_STRIP
            | vk::PrimitiveTopology::TRIANGLE_STRIP_WITH_ADJACENCY => Topology::TriangleStrip,
            vk::PrimitiveTopology::TRIANGLE_FAN => Topology::TriangleFan,
            _ => return None,
        })
    }

    pub fn is_line(self) -> bool {
        matches!(self, Topology::Lines | Topology::LineStrip)
    }
}

/// The size of a bound index buffer's indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexSize {
    U8,
    U16,
    U32,
}

impl IndexSize {
    /// The size of `t`, or none for one agx4 does not offer.
    pub fn of(t: vk::IndexType) -> Option<IndexSize> {
        match t {
            vk::IndexType::UINT8_EXT => Some(IndexSize::U8),
            vk::IndexType::UINT16 => Some(IndexSize::U16),
            vk::IndexType::UINT32 => Some(IndexSize::U32),
            _ => None,
        }
    }

    pub fn bytes(self) -> u32 {
        match self {
            IndexSize::U8 => 1,
            IndexSize::U16 => 2,
            IndexSize::U32 => 4,
        }
    }

    /// The index that restarts a strip when primitive restart is on: all bits set.
    pub fn restart_index(self) -> u32 {
        match self {
            IndexSize::U8 => 0xff,
            IndexSize::U16 => 0xffff,
            IndexSize::U32 => 0xffff_ffff,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_topologies_stand_for_their_plain_class() {
        use vk::PrimitiveTopology as T;
        for (adj, plain) in [
            (T::LINE_LIST_WITH_ADJACENCY, T::LINE_LIST),
            (T::LINE_STRIP_WITH_ADJACENCY, T::LINE_STRIP),
            (T::TRIANGLE_LIST_WITH_ADJACENCY, T::TRIANGLE_LIST),
            (T::TRIANGLE_STRIP_WITH_ADJACENCY, T::TRIANGLE_STRIP),
        ] {
            assert_eq!(Topology::of(adj), Topology::of(plain));
            assert!(Topology::of(adj).is_some());
        }
        assert_eq!(Topology::of(T::PATCH_LIST), None);
    }

    #[test]
    fn restart_index_is_the_largest_index() {
        for t in [
            vk::IndexType::UINT8_EXT,
            vk::IndexType::UINT16,
            vk::IndexType::UINT32,
        ] {
            let s = IndexSize::of(t).unwrap();
            assert_eq!(
                u64::from(s.restart_index()) + 1,
                1u64 << (8 * s.bytes()),
                "{t:?}"
            );
        }
        assert_eq!(IndexSize::of(vk::IndexType::NONE_KHR), None);
    }
}
