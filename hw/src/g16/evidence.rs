//! How well each G16 fact is known, and where it was published.

use std::fmt;

/// The strength of the public evidence for one G16 encoding, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EvidenceClass {
    /// Executed on an M4 (T8132) with a checked result.
    RunOnHardware,
    /// One field varied in otherwise identical code and the byte change observed on an M4,
    /// without the variant's result being checked.
    IsolatedByteDifference,
    /// Seen in compiled M4 shaders, not isolated on an M4 (this includes forms checked only
    /// on the A18's G17P, which the sources treat as the same ISA but do not prove it).
    CorpusOnly,
    /// Guessed by analogy or from a single template.
    Inferred,
}

impl EvidenceClass {
    pub const ALL: [EvidenceClass; 4] = [
        EvidenceClass::RunOnHardware,
        EvidenceClass::IsolatedByteDifference,
        EvidenceClass::CorpusOnly,
        EvidenceClass::Inferred,
    ];

    /// Strong enough for agx4 to emit: the result was checked on an M4.
    pub fn emittable(self) -> bool {
        self == EvidenceClass::RunOnHardware
    }

    pub fn name(self) -> &'static str {
        match self {
            EvidenceClass::RunOnHardware => "run on hardware",
            EvidenceClass::IsolatedByteDifference => "isolated byte difference",
            EvidenceClass::CorpusOnly => "corpus only",
            EvidenceClass::Inferred => "inferred",
        }
    }
}

impl fmt::Display for EvidenceClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a fact was published: a public repository and a path in it. Experiments are named
/// by their directory's id (`EXP-M4-38`), which the repositories' RESULTS files carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source {
    pub repo: &'static str,
    pub path: &'static str,
}

/// niklassheth/mesa's Apple9 packer, which runs compute and simple renders on a T8132.
pub const MESA_APPLE9_IR: Source = Source {
    repo: "niklassheth/mesa",
    path: "src/asahi/compiler/agx_apple9_ir.c",
};
/// Its unit tests: the byte strings the packer must produce.
pub const MESA_APPLE9_TESTS: Source = Source {
    repo: "niklassheth/mesa",
    path: "src/asahi/compiler/test/test-apple9.cpp",
};
/// niklassheth/agx-re's ISA notes (experiment results quoted by id).
pub const NK_ISA: Source = Source {
    repo: "niklassheth/agx-re",
    path: "docs/isa/README.md",
};
/// niklassheth/agx-re's generated encoding tables.
pub const NK_TABLES: Source = Source {
    repo: "niklassheth/agx-re",
    path: "docs/isa/encoding-tables.md",
};
/// niklassheth/agx-re's scoreboard slot notes.
pub const NK_SLOTS: Source = Source {
    repo: "niklassheth/agx-re",
    path: "APPLE9_SCOREBOARD_SLOTS.md",
};
/// niklassheth/agx-re's framing witnesses: byte strings with their lengths.
pub const NK_CANARIES: Source = Source {
    repo: "niklassheth/agx-re",
    path: "tools/agx-isa/length_canaries.json",
};
/// ADevWithAnIdea/agx-re's M4 notes.
pub const AD_M4: Source = Source {
    repo: "ADevWithAnIdea/agx-re",
    path: "docs/m4-deltas.md",
};
