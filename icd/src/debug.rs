//! `AGX4_DEBUG`: comma-separated debug switches, read once.
//!
//! - `panic=<vkEntryPoint>`: the named entry point panics on entry. The panic must be caught
//!   at the API boundary and become an error code; tests use this to prove it.
//! - `stubs`: log every call to an entry point that is not implemented.
//! - `noshm`: X11 presentation does not use MIT-SHM (PutImage instead), to test that path.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

#[derive(Default)]
pub struct Debug {
    pub panic_in: Option<String>,
    pub log_stubs: bool,
    pub no_shm: bool,
}

static DEBUG: OnceLock<Debug> = OnceLock::new();

/// Set once `AGX4_DEBUG` names an entry point to panic: the panic barrier of every entry point
/// tests only this flag on its common path, with no call (entry.rs).
static PANIC_ASKED: AtomicBool = AtomicBool::new(false);

pub fn get() -> &'static Debug {
    DEBUG.get_or_init(|| {
        let d = parse(&std::env::var("AGX4_DEBUG").unwrap_or_default());
        PANIC_ASKED.store(d.panic_in.is_some(), Ordering::Relaxed);
        d
    })
}

/// Whether some entry point was asked to panic. The loader reaches every entry point through
/// `vk_icdGetInstanceProcAddr`, which reads the switches first (loader.rs).
#[inline(always)]
pub fn panic_asked() -> bool {
    PANIC_ASKED.load(Ordering::Relaxed)
}

fn parse(s: &str) -> Debug {
    let mut d = Debug::default();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        match item.split_once('=') {
            Some(("panic", name)) => d.panic_in = Some(name.to_string()),
            None if item == "stubs" => d.log_stubs = true,
            None if item == "noshm" => d.no_shm = true,
            _ => eprintln!("agx4: ignoring unknown AGX4_DEBUG item '{item}'"),
        }
    }
    d
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_items() {
        let d = super::parse("stubs, panic=vkCreateFence,bogus");
        assert!(d.log_stubs);
        assert_eq!(d.panic_in.as_deref(), Some("vkCreateFence"));
        assert!(super::parse("").panic_in.is_none());
    }
}
