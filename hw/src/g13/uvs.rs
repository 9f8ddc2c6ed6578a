//! The vertex output (UVS) record facts the rasterizer itself reads: the clip-space
//! position, the point size and the user clip distances.
//!
//! From Mesa's asahi driver (`agx_uvs.h`, `agx_nir_lower_uvs.c`): the groups of a record
//! follow a fixed hardware order and the clip distances are the last group, one word per
//! plane, plane k at word k of the group. Output Select's `clip_distance_planes` (one bit per
//! plane) says which planes the clipper tests; the record size (the vertex outputs count)
//! says where the group ends, so the group starts `clip_distance_words` before the end.

/// Word of clip-space position x; y, z and w follow.
pub const POSITION_WORD: usize = 0;

/// Word of the point size, when Output Select says the record has one: the group after the
/// position (Mesa's `agx_uvs.h` order).
pub const POINT_SIZE_WORD: usize = POSITION_WORD + 4;

/// Planes the Output Select word can enable (its `clip_distance_planes` field is 16 bits).
pub const MAX_CLIP_DISTANCE_PLANES: usize = 16;

/// Words of the clip distance group for the enabled `planes`: up to the highest one.
pub fn clip_distance_words(planes: u16) -> usize {
    MAX_CLIP_DISTANCE_PLANES - planes.leading_zeros() as usize
}

/// First word of the clip distance group of a record of `record_words` words, or `None`
/// when the record is too short to hold the group after the position.
pub fn clip_distance_base(record_words: usize, planes: u16) -> Option<usize> {
    let n = clip_distance_words(planes);
    record_words
        .checked_sub(n)
        .filter(|b| *b >= POSITION_WORD + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_group_ends_the_record() {
        assert_eq!(clip_distance_words(0), 0);
        assert_eq!(clip_distance_words(0b1), 1);
        assert_eq!(clip_distance_words(0xff), 8);
        assert_eq!(clip_distance_words(0b100), 3);
        assert_eq!(clip_distance_base(12, 0xff), Some(4));
        assert_eq!(clip_distance_base(11, 0xff), None);
        assert_eq!(clip_distance_base(4, 0), Some(4));
    }
}
