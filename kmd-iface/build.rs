//! Generates the UAPI bindings from `include/agx4_asahi_uapi.h`.

use std::env;
use std::path::PathBuf;

fn main() {
    let header = "include/agx4_asahi_uapi.h";
    println!("cargo:rerun-if-changed={header}");

    let bindings = bindgen::Builder::default()
        .header(header)
        .allowlist_item("(drm|DRM|agx4|AGX4)_.*")
        // Constants keep their C names so code reads like the header it came from.
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(true)
        .derive_eq(true)
        // Layouts are asserted by hand in src/uapi.rs against numbers computed independently.
        .layout_tests(false)
        .use_core()
        .generate()
        .unwrap_or_else(|e| panic!("bindgen failed on {header}: {e}"));

    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("uapi.rs");
    bindings
        .write_to_file(&out)
        .unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}
