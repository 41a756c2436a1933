//! What commands print on stdout (`collect --dry-run`, the Slurm script, `import`), written so
//! that a closed pipe (`collect --dry-run | head`) is an `io::Error` of kind `BrokenPipe` the
//! binary ends on quietly, not the panic of `println!`. Uses std only.

use std::fmt;
use std::io::{self, Write};

/// Writes `text` to stdout; `outln!`/`out!` call it.
pub fn write(text: fmt::Arguments) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(text)?;
    out.flush()
}

/// Whether `error` (or what caused it) is a write to a closed pipe.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

/// `println!` that returns the write's error (with `?`) instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::core::stdout::write(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` that returns the write's error (with `?`) instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::core::stdout::write(format_args!($($arg)*))?
    };
}

pub(crate) use {out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_is_found_through_the_context() {
        let error = anyhow::Error::from(io::Error::from(io::ErrorKind::BrokenPipe)).context("printing the plan");
        assert!(is_broken_pipe(&error));
        assert!(!is_broken_pipe(&anyhow::anyhow!("no such run")));
        let other = anyhow::Error::from(io::Error::from(io::ErrorKind::PermissionDenied));
        assert!(!is_broken_pipe(&other));
    }
}
