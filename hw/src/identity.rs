//! The known AGX GPUs: what GET_PARAMS reports for each chip.
//!
//! Chip IDs, generation/variant pairs, die counts, cluster counts and cores per cluster follow
//! the Asahi kernel driver's per-SoC configurations. Where a chip ships in several bins, the
//! table describes the largest one. Revisions and maximum clocks are not in those sources;
//! each such value below is marked as unconfirmed.

use crate::{Generation, Variant};

/// One GPU model, as the kernel describes it in `drm_asahi_params_global`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub generation: Generation,
    pub variant: Variant,
    /// Silicon revision in BCD: 0x00 is A0, 0x11 is B1, 0x20 is C0.
    pub revision: u32,
    /// SoC number in BCD, e.g. 0x8103 for T8103.
    pub chip_id: u32,
    /// Marketing name.
    pub name: &'static str,
    pub num_dies: u32,
    /// Clusters across all dies.
    pub num_clusters: u32,
    /// Core slots per cluster, including fused-off ones.
    pub cores_per_cluster: u32,
    /// Enabled cores, one mask per cluster.
    pub core_masks: &'static [u32],
    pub max_frequency_khz: u32,
}

const REV_B1: u32 = 0x11;
const REV_C0: u32 = 0x20;

const M1_MHZ: u32 = 1_278_000; // unconfirmed: recalled from the M1 device tree's top GPU state
const M1X_MHZ: u32 = 1_296_000; // unconfirmed: as above, for T600x
const M2_MHZ: u32 = 1_398_000; // unconfirmed: as above, for T8112/T602x

/// Every GPU the simulator can impersonate and the driver recognises on real hardware.
pub const KNOWN: &[Identity] = &[
    Identity {
        generation: Generation::G13,
        variant: Variant::G,
        revision: REV_B1, // unconfirmed
        chip_id: 0x8103,
        name: "Apple M1",
        num_dies: 1,
        num_clusters: 1,
        cores_per_cluster: 8,
        core_masks: &[0xff],
        max_frequency_khz: M1_MHZ,
    },
    Identity {
        generation: Generation::G13,
        variant: Variant::S,
        revision: REV_C0, // unconfirmed
        chip_id: 0x6000,
        name: "Apple M1 Pro",
        num_dies: 1,
        num_clusters: 2,
        cores_per_cluster: 8,
        core_masks: &[0xff, 0xff],
        max_frequency_khz: M1X_MHZ,
    },
    Identity {
        generation: Generation::G13,
        variant: Variant::C,
        revision: REV_C0, // unconfirmed
        chip_id: 0x6001,
        name: "Apple M1 Max",
        num_dies: 1,
        num_clusters: 4,
        cores_per_cluster: 8,
        core_masks: &[0xff; 4],
        max_frequency_khz: M1X_MHZ,
    },
    Identity {
        generation: Generation::G13,
        variant: Variant::D,
        revision: REV_C0, // unconfirmed
        chip_id: 0x6002,
        name: "Apple M1 Ultra",
        num_dies: 2,
        num_clusters: 8,
        cores_per_cluster: 8,
        core_masks: &[0xff; 8],
        max_frequency_khz: M1X_MHZ,
    },
    Identity {
        generation: Generation::G14,
        variant: Variant::G,
        revision: REV_B1, // unconfirmed
        chip_id: 0x8112,
        name: "Apple M2",
        num_dies: 1,
        num_clusters: 1,
        cores_per_cluster: 10,
        core_masks: &[0x3ff],
        max_frequency_khz: M2_MHZ,
    },
    Identity {
        generation: Generation::G14,
        variant: Variant::S,
        revision: REV_B1, // unconfirmed
        chip_id: 0x6020,
        name: "Apple M2 Pro",
        num_dies: 1,
        num_clusters: 2,
        cores_per_cluster: 10,
        // 19 cores: one slot of the second cluster is fused off in the largest bin.
        core_masks: &[0x3ff, 0x1ff],
        max_frequency_khz: M2_MHZ,
    },
    Identity {
        generation: Generation::G14,
        variant: Variant::C,
        revision: REV_B1, // unconfirmed
        chip_id: 0x6021,
        name: "Apple M2 Max",
        num_dies: 1,
        num_clusters: 4,
        cores_per_cluster: 10,
        core_masks: &[0x3ff, 0x1ff, 0x3ff, 0x1ff],
        max_frequency_khz: M2_MHZ,
    },
    Identity {
        generation: Generation::G14,
        variant: Variant::D,
        revision: REV_B1, // unconfirmed
        chip_id: 0x6022,
        name: "Apple M2 Ultra",
        num_dies: 2,
        num_clusters: 8,
        cores_per_cluster: 10,
        core_masks: &[0x3ff, 0x1ff, 0x3ff, 0x1ff, 0x3ff, 0x1ff, 0x3ff, 0x1ff],
        max_frequency_khz: M2_MHZ,
    },
    Identity {
        generation: Generation::G16,
        variant: Variant::G,
        // Unconfirmed, all of it except chip ID and generation: no public kernel support for
        // M4 yet. One 10-core cluster matches the largest M4 bin's core count.
        revision: 0x00,
        chip_id: 0x8132,
        name: "Apple M4",
        num_dies: 1,
        num_clusters: 1,
        cores_per_cluster: 10,
        core_masks: &[0x3ff],
        max_frequency_khz: 1_578_000,
    },
];

impl Identity {
    /// Every known GPU.
    pub fn all() -> &'static [Identity] {
        KNOWN
    }

    /// Look up by `chip_id` as GET_PARAMS reports it.
    pub fn by_chip_id(chip_id: u32) -> Option<&'static Identity> {
        KNOWN.iter().find(|i| i.chip_id == chip_id)
    }

    /// Look up by GPU code (`"g13g"`, `"G14C"`) or SoC name (`"t8103"`), ignoring case.
    pub fn by_name(name: &str) -> Option<&'static Identity> {
        let name = name.trim();
        KNOWN.iter().find(|i| {
            i.code().eq_ignore_ascii_case(name)
                || format!("t{:04x}", i.chip_id).eq_ignore_ascii_case(name)
        })
    }

    /// Look up by the generation and variant numbers GET_PARAMS reports.
    pub fn by_generation(generation: u32, variant: u32) -> Option<&'static Identity> {
        let generation = Generation::from_number(generation)?;
        let variant = Variant::from_letter(variant)?;
        KNOWN
            .iter()
            .find(|i| i.generation == generation && i.variant == variant)
    }

    /// The GPU code, e.g. `G13G`.
    pub fn code(&self) -> String {
        format!("{}{}", self.generation, self.variant)
    }

    /// All cores that are enabled, across clusters.
    pub fn enabled_cores(&self) -> u32 {
        self.core_masks.iter().map(|m| m.count_ones()).sum()
    }

    /// The revision as the vendor writes it, e.g. `B1`.
    pub fn revision_name(&self) -> String {
        let major = (self.revision >> 4) & 0xf;
        let letter = char::from_u32('A' as u32 + major).unwrap_or('?');
        format!("{letter}{}", self.revision & 0xf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Evidence;

    #[test]
    fn lookups_by_chip_and_name_agree() {
        let m1 = Identity::by_chip_id(0x8103).expect("T8103 is known");
        assert_eq!(m1.code(), "G13G");
        assert_eq!(m1.name, "Apple M1");
        assert_eq!(Identity::by_name("g13g"), Some(m1));
        assert_eq!(Identity::by_name("T8103"), Some(m1));
        assert_eq!(Identity::by_name(" G13G "), Some(m1));
        assert_eq!(Identity::by_generation(13, 'G' as u32), Some(m1));
    }

    #[test]
    fn every_named_chip_resolves_to_its_variant() {
        let expect = [
            ("g13s", 0x6000),
            ("g13c", 0x6001),
            ("g13d", 0x6002),
            ("g14g", 0x8112),
            ("g14s", 0x6020),
            ("g14c", 0x6021),
            ("g14d", 0x6022),
            ("g16g", 0x8132),
        ];
        for (code, chip) in expect {
            let id = Identity::by_name(code).unwrap_or_else(|| panic!("{code} unknown"));
            assert_eq!(id.chip_id, chip, "{code}");
            assert_eq!(id.code().to_ascii_lowercase(), code);
        }
    }

    #[test]
    fn unknown_names_and_chips_are_none() {
        assert!(Identity::by_name("g15g").is_none());
        assert!(Identity::by_name("").is_none());
        assert!(Identity::by_chip_id(0x1234).is_none());
        assert!(Identity::by_generation(13, 'X' as u32).is_none());
    }

    #[test]
    fn table_is_self_consistent() {
        for (i, id) in KNOWN.iter().enumerate() {
            assert_eq!(id.core_masks.len() as u32, id.num_clusters, "{}", id.name);
            for m in id.core_masks {
                assert!(
                    *m != 0 && m.count_ones() <= id.cores_per_cluster,
                    "{}",
                    id.name
                );
            }
            for other in &KNOWN[i + 1..] {
                assert_ne!(id.chip_id, other.chip_id);
                assert_ne!(id.code(), other.code());
            }
        }
        assert_eq!(
            Identity::by_name("g14s").map(|i| i.enabled_cores()),
            Some(19)
        );
    }

    #[test]
    fn evidence_follows_generation() {
        assert_eq!(Generation::G13.evidence(), Evidence::Complete);
        assert_eq!(Generation::G14.evidence(), Evidence::Complete);
        assert_eq!(Generation::G16.evidence(), Evidence::Partial);
    }

    #[test]
    fn revision_names() {
        assert_eq!(
            Identity::by_name("g13g").map(|i| i.revision_name()),
            Some("B1".into())
        );
        assert_eq!(
            Identity::by_name("g13c").map(|i| i.revision_name()),
            Some("C0".into())
        );
    }
}
