//! Replays an agx4 trace (recorded with `AGX4_TRACE=<file>`) into a fresh simulated device and
//! reports whether every GPU object ends with the contents the live run left in it.
//!
//! Usage: `agx4-replay <trace> [<output directory>]`; with a directory, the final contents of
//! every object are written there, one file per object.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.len() > 2 || args[0] == "--help" {
        eprintln!("usage: agx4-replay <trace> [<output directory>]");
        return ExitCode::from(2);
    }
    match kmd_iface::trace::replay(Path::new(&args[0]), args.get(1).map(Path::new)) {
        Ok(r) => {
            println!(
                "replayed {} records, {} submissions; {} objects compared, {} differ",
                r.records,
                r.submits,
                r.objects_compared,
                r.mismatches.len()
            );
            if r.mismatches.is_empty() {
                ExitCode::SUCCESS
            } else {
                println!(
                    "objects whose final contents differ from the live run: {:?}",
                    r.mismatches
                );
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("agx4-replay: {e}");
            ExitCode::FAILURE
        }
    }
}
