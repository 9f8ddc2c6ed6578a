//! G16 facts checked against the byte strings the sources publish.

use super::encode::*;
use super::forms::{tally, FORMS};
use super::length::{frame, length, LengthError};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// niklassheth/agx-re `tools/agx-isa/length_canaries.json`: byte strings with the length the
/// hardware consumed (measured on an M4 or the A18's G17P).
const CANARIES: &[(&str, usize)] = &[
    ("0e000000", 4),
    ("0c20", 2),
    ("54821466", 4),
    ("69010005", 4),
    ("69010105", 4),
    ("09051c0100c0", 6),
    ("09011e05810802c0", 8),
    ("09ff0603010402c0", 8),
    ("090306ff010402c0", 8),
    ("0903060501fe02c0", 8),
    ("2f00560002ffb0400200", 10),
    ("2f0056bf0200b0400200", 10),
    ("2f00567e02fcb0400200", 10),
    ("2707560002ffb4480300", 10),
    ("270756bf0200b4480300", 10),
    ("2707567e02fcb4480300", 10),
    ("09011e05820802000082", 10),
    ("09011e058308020000800100", 12),
    ("10031c0500c0", 6),
    ("10031c0501c00000", 8),
    ("10031c0502c000000000", 10),
    ("10031c0503c0", 6),
    ("10031d0503c00000", 8),
    ("10031e0503c0000000000000", 12),
    ("780d1811", 4),
    ("0a0122821422", 6),
    ("aa033a0505c0", 6),
    ("2a002bc0060006c20000", 10),
    ("0f055415", 4),
    ("0f05541d", 4),
    ("8f04542a", 4),
    ("02ff0703060407c00006", 10),
    ("020307ff060407c00006", 10),
    ("0203070506fe07c00006", 10),
    ("02030705060607c000fe", 10),
    ("0b031eff020800800000", 10),
    ("0bff1e03020800800000", 10),
    ("1be11e05020800800000", 10),
    ("320035032281", 6),
    ("6000e702", 4),
    ("470456000200002c0400", 10),
    ("c70656000200020014a20200", 12),
    ("6710540000012000510100404600", 14),
    ("6701540000010180004000006002", 14),
    ("5c8009a700200000", 8),
    ("670e5404000001ce02000000", 12),
    ("cf02560200040809d4432401", 12),
    ("0f0054d4ffffffffff00", 10),
    ("0f05541a8f105454ffffffffff00", 14),
];

/// Canaries the length rules refuse, because the sources contradict themselves about them.
const DISPUTED: &[(&str, &str)] = &[
    // op04: the hardware consumed 12 bytes (EXP-0157), the descriptor says 8.
    ("04020080000082400c010c02", "op04"),
    ("0442a22a4f80863400000000", "op04"),
    // No published rule gives 4 for this byte 2; the canary records it without one.
    ("2b0009c0", "0x?b"),
];

#[test]
fn every_published_length_is_the_rules_length() {
    for &(bytes, len) in CANARIES {
        let b = hex(bytes);
        assert_eq!(length(&b), Ok(len), "{bytes}");
    }
    for &(bytes, why) in DISPUTED {
        let e = length(&hex(bytes)).unwrap_err();
        assert!(
            matches!(&e, LengthError::Unknown { why: w, .. } if w.contains(why)),
            "{bytes}: {e}"
        );
    }
    // A rule that needs a byte past the end says which.
    assert_eq!(
        length(&hex("09011e")),
        Err(LengthError::Truncated { needs: 4 })
    );
}

/// niklassheth/mesa `src/asahi/compiler/test/test-apple9.cpp`: byte strings its packer must
/// produce, and the instructions they encode.
const MESA: &[&str] = &[
    "f9152f8d00020000",
    "af00562402 1c10482000",
    "af00542403 1c00482000",
    "6700540403012000 510100404600",
    "6710440000012000 510100404600",
    "6700440800822000 510100404600",
    "6710440000022000 590100404800",
    "e700560001022100 190000101200",
    "6700540800072000 5d0100404000",
    "6710440201002000 610100404200",
    "e700540000002100 210000901000",
    "6701540000058b8b 000200006002",
    "670154000085 8b8c000200006402",
    "670154000009 8282004000007e02",
    "0ca01006",
    "14a41006 13000001",
    "a707542003 44ac60",
    "2707542003 44b4480300",
    "a701541802 341c786200",
    "f2bf678102 fe05d540bc",
    "02011f0582 0805008006",
    "fc7f",
    "0cf8021218 08a201",
    "4b051e0702 0800000000",
    "42053e070500",
    "49053c070000",
    "f9017c1f0015",
    "49053e07810a0200",
    "29c1340580c0",
    "0a033a0507c0",
    "0a033b0506 0007c00000",
    "2a03230506 0007000000",
    "0f055401 0f040419 0f0604010000",
    "0f0054c6ff ffffffff00",
    "8f0554030002",
    "79213d2341000000",
];

#[test]
fn the_packers_programs_frame_whole() {
    for &bytes in MESA {
        let b = hex(bytes);
        let lens = frame(&b).unwrap_or_else(|(at, e)| panic!("{bytes} at {at}: {e}"));
        assert_eq!(lens.iter().sum::<usize>(), b.len(), "{bytes}");
    }
    // Three instructions: push, else, pop.
    assert_eq!(
        frame(&hex("0f055401 0f040419 0f0604010000")),
        Ok(vec![4, 4, 6])
    );
}

fn src(reg: u8, keep: bool) -> Source {
    Source {
        reg,
        wide: true,
        keep,
    }
}

/// Each encoded form against the packer's bytes for the same instruction, both ways.
#[test]
fn encoded_forms_match_the_packers_bytes() {
    let mov = MovImm {
        dst: 15,
        value: 0x7f,
    };
    assert_eq!(mov.encode().unwrap(), hex("fc7f"));
    assert_eq!(MovImm::decode(&hex("fc7f")), Ok(mov));
    assert!(MovImm {
        dst: 0,
        value: 0x80
    }
    .encode()
    .is_err());
    assert!(MovImm { dst: 16, value: 1 }.encode().is_err());

    for (dst, value, bytes) in [
        (0, 0x1234_5678, "0cf8021218 08a201"),
        (18, 0x3f80_0000, "2c80423e00 00000c"),
        (34, 0x0102_0304, "2c8482000c 001008"),
        (63, 0xffff_ffff, "fcffc2fe1e 0cff0f"),
    ] {
        let m = MovImm32 { dst, value };
        assert_eq!(m.encode().unwrap(), hex(bytes), "r{dst} = {value:#x}");
        assert_eq!(MovImm32::decode(&hex(bytes)), Ok(m));
    }

    for (selector, bytes) in [(0xa0, "0ca01006"), (0xa1, "0ca11006"), (0xa2, "0ca21006")] {
        let g = GetSr { dst: 0, selector };
        assert_eq!(g.encode().unwrap(), hex(bytes));
        assert_eq!(GetSr::decode(&hex(bytes)), Ok(g));
    }

    // dst r4, a r2, b r3, in the packer's four liveness combinations, then slot 6.
    let fadd = |ka, kb, slot| Compact2 {
        op: Compact2Op::FAdd,
        dst: 4,
        a: src(2, ka),
        b: src(3, kb),
        slot,
    };
    let umin = |ka, kb| Compact2 {
        op: Compact2Op::Min(MinMax::Unsigned),
        ..fadd(ka, kb, 0)
    };
    let fmin = |ka, kb, slot| Compact2 {
        op: Compact2Op::Min(MinMax::Float),
        ..fadd(ka, kb, slot)
    };
    let cases = [
        (fadd(false, false, 0), "49053c070000"),
        (fadd(true, false, 0), "498534070000"),
        (fadd(false, true, 0), "49052c870000"),
        (fadd(true, true, 0), "498524870000"),
        (fadd(true, true, 6), "4985248700c0"),
        (umin(false, false), "42053e070500"),
        (umin(true, false), "428536070500"),
        (umin(false, true), "42052e870500"),
        (umin(true, true), "428526870500"),
        (fmin(false, false, 0), "42053e070100"),
        (fmin(true, true, 6), "4285268701c0"),
        // dst r95, a r64, b r79: the split high bits.
        (
            Compact2 {
                dst: 95,
                a: src(64, false),
                b: src(79, false),
                ..fadd(false, false, 0)
            },
            "f9017c1f0015",
        ),
        (
            Compact2 {
                dst: 95,
                a: src(64, false),
                b: src(79, false),
                ..umin(false, false)
            },
            "f2017e1f0515",
        ),
    ];
    for (c, bytes) in cases {
        assert_eq!(c.encode().unwrap(), hex(bytes), "{c:?}");
        assert_eq!(Compact2::decode(&hex(bytes)), Ok(c), "{bytes}");
    }

    // fma dst r4, a r2, b r3, c r5.
    let fma = |ka, kb, kc, slot| Fma {
        dst: 4,
        a: src(2, ka),
        b: src(3, kb),
        c: src(5, kc),
        slot,
    };
    for (f, bytes) in [
        (fma(false, false, false, 0), "49053e07810a0200"),
        (fma(true, false, false, 0), "49853607810a0200"),
        (fma(false, true, false, 0), "49052e87810a0200"),
        (fma(false, false, true, 0), "49053e07018a0200"),
        (fma(true, true, true, 0), "49852687018a0200"),
        (fma(false, false, false, 6), "49053e07810a02c0"),
    ] {
        assert_eq!(f.encode().unwrap(), hex(bytes), "{f:?}");
        assert_eq!(Fma::decode(&hex(bytes)), Ok(f), "{bytes}");
    }
}

/// A decode refuses bits the form does not explain, and registers beyond a form's reach do
/// not encode.
#[test]
fn unexplained_bits_and_out_of_reach_registers_are_refused() {
    // fadd with the falu2 saturate bit's neighbour (byte 4 bit 7) set.
    let e = Compact2::decode(&hex("49053c078000")).unwrap_err();
    assert_eq!(e, FormError::Unexplained { bits: 0x80 << 32 });
    let c = Compact2 {
        op: Compact2Op::FMul,
        dst: 96,
        a: src(0, true),
        b: src(1, true),
        slot: 0,
    };
    assert_eq!(c.encode(), Err(FormError::Reach { reg: 96, max: 95 }));
    let m = MovImm32 { dst: 64, value: 1 };
    assert_eq!(m.encode(), Err(FormError::Reach { reg: 64, max: 63 }));
    // Every encoded instruction has the length the rules give it.
    for bytes in [
        MovImm { dst: 3, value: 9 }.encode().unwrap(),
        MovImm32 { dst: 40, value: 7 }.encode().unwrap(),
        GetSr {
            dst: 9,
            selector: 0xa4,
        }
        .encode()
        .unwrap(),
        Compact2 { slot: 3, ..c_ok() }.encode().unwrap(),
    ] {
        assert_eq!(length(&bytes), Ok(bytes.len()), "{bytes:02x?}");
    }
}

fn c_ok() -> Compact2 {
    Compact2 {
        op: Compact2Op::Max(MinMax::Signed),
        dst: 70,
        a: src(65, true),
        b: src(5, false),
        slot: 0,
    }
}

#[test]
fn every_form_names_its_evidence_and_source() {
    let counts = tally();
    assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), FORMS.len());
    for f in FORMS {
        assert!(
            !f.source.repo.is_empty() && !f.source.path.is_empty(),
            "{}",
            f.name
        );
        // agx4 encodes only forms whose results were checked on an M4.
        assert!(!f.encoded || f.evidence.emittable(), "{}", f.name);
    }
}

/// Every form `needs` names is in the table (a misspelt name would report a form missing
/// that the sources document).
#[test]
fn every_form_the_instruction_model_needs_is_in_the_table() {
    let source = include_str!("needs.rs");
    let mut named = 0;
    for part in source.split("form(\"").skip(1) {
        let name = &part[..part.find('"').unwrap()];
        assert!(FORMS.iter().any(|f| f.name == name), "{name}");
        named += 1;
    }
    assert!(named > 30, "{named}");
    // And a decoded G13 program maps through: stop needs G16's stop.
    let (stop, _) = crate::g13::decode(&[0x88, 0x00]).unwrap();
    assert_eq!(stop, crate::isa::Instr::Stop);
    let n = super::needs::needs(&stop);
    assert!(matches!(n[..], [super::needs::Need::Form(f)] if f.name == "stop"));
}

/// Compares, conversions and control flow against the packer's bytes, both ways.
#[test]
fn control_flow_compares_and_conversions_match_the_packers_bytes() {
    let cmp = |cond, invert, ka, kb| PredicateCompare {
        bank: 0,
        cond,
        invert,
        a: src(1, ka),
        b: src(2, kb),
    };
    use PredicateCond::*;
    for (p, bytes) in [
        (cmp(SLt, false, false, false), "0a033a0507c0"),
        (cmp(SLt, true, false, false), "1a033a0507c0"),
        (cmp(SLt, false, true, false), "0a03320507c0"),
        (cmp(SLt, false, false, true), "0a032a0507c0"),
        (cmp(SLt, false, true, true), "0a03220507c0"),
        (cmp(FGt, false, false, false), "0a033a0502c0"),
        (cmp(UGt, false, false, false), "0a033a0504c0"),
        (
            PredicateCompare {
                a: src(63, false),
                b: src(62, false),
                ..cmp(ULt, false, false, false)
            },
            "0a7f3a7d05c0",
        ),
        (
            PredicateCompare {
                bank: 5,
                a: src(1, false),
                b: src(2, false),
                ..cmp(ULt, false, false, false)
            },
            "aa033a0505c0",
        ),
    ] {
        assert_eq!(p.encode().unwrap(), hex(bytes), "{p:?}");
        assert_eq!(PredicateCompare::decode(&hex(bytes)), Ok(p), "{bytes}");
    }

    use ExecControl::*;
    for (c, bytes) in [
        (
            Push {
                src: 0,
                invert: false,
            },
            "0f055401",
        ),
        (
            Push {
                src: 0,
                invert: true,
            },
            "0f055421",
        ),
        (
            Push {
                src: 5,
                invert: false,
            },
            "0f055415",
        ),
        (
            Push {
                src: 7,
                invert: false,
            },
            "0f05541d",
        ),
        (Else, "0f040419"),
        (Pop, "0f0604010000"),
        (LoopPush, "0f05541a"),
        (
            LoopUpdate {
                bank: 0,
                invert: true,
            },
            "8f045422",
        ),
        (
            LoopUpdate {
                bank: 1,
                invert: true,
            },
            "8f045426",
        ),
        (
            LoopUpdate {
                bank: 2,
                invert: true,
            },
            "8f04542a",
        ),
        (LoopPop, "0f0604020000"),
        (Break { scope: 3, depth: 2 }, "8f0554030002"),
        (Break { scope: 3, depth: 1 }, "8f0554030001"),
        (
            Jump {
                if_none: false,
                offset: -58,
            },
            "0f0054c6ffffffffff00",
        ),
        (
            Jump {
                if_none: true,
                offset: 92,
            },
            "0f01545c000000000000",
        ),
    ] {
        assert_eq!(c.encode().unwrap(), hex(bytes), "{c:?}");
        assert_eq!(ExecControl::decode(&hex(bytes)), Ok(c), "{bytes}");
    }
    // The start of a direct call is not a push.
    assert!(ExecControl::decode(&hex("0f05541a8f105454ffffffffff00")).is_err());

    let conv = |to_float, signed, keep| Convert {
        to_float,
        signed,
        dst: 16,
        src: src(17, keep),
    };
    for (c, bytes) in [
        (conv(true, true, false), "a707542003 44ac60"),
        (conv(true, false, false), "a707542003 44ac20"),
        (conv(true, false, true), "a707542003 448c20"),
        (conv(true, true, true), "a707542003 448c60"),
        (conv(false, true, true), "2707542003 44b4480300"),
        (conv(false, false, true), "2707542003 44b4080300"),
    ] {
        assert_eq!(c.encode().unwrap(), hex(bytes), "{c:?}");
        assert_eq!(Convert::decode(&hex(bytes)), Ok(c), "{bytes}");
    }
}
