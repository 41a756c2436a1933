//! Run id validation: nothing that could escape the runs or site folder.
//!
//! A run id names a folder under `runs/` and under the site's `runs/`, so it must be one
//! plain path component on every platform and in a URL path segment.

use thiserror::Error;

/// The longest accepted run id, in bytes (seed ids such as `20250101T000000Z` use 16).
pub const MAX_LEN: usize = 128;

/// Why a string is not a valid run id.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RunIdError {
    #[error("the run id is empty")]
    Empty,
    #[error("the run id is {0} bytes long; at most {MAX_LEN} are allowed")]
    TooLong(usize),
    #[error("the run id is \"..\", which names the parent folder")]
    ParentDir,
    #[error("the run id starts with '.' (dot-folders are temporary or hidden)")]
    LeadingDot,
    #[error("the run id contains the path separator {0:?}")]
    Separator(char),
    #[error("the run id contains a NUL byte")]
    Nul,
    #[error("the run id contains the control character {0:?}")]
    Control(char),
}

/// Checks that `id` can name a run folder: nonempty, at most [`MAX_LEN`] bytes, not `..`,
/// not starting with `.`, and free of `/`, `\`, NUL and other control characters.
///
/// Used by `import` and `collect` before anything is written, and by the site builder for
/// every folder it finds under `runs/`.
///
/// ```
/// use nccl_report::core::run_id::{validate, RunIdError};
/// assert!(validate("20250101T000000Z").is_ok());
/// assert_eq!(validate("a/b"), Err(RunIdError::Separator('/')));
/// ```
pub fn validate(id: &str) -> Result<(), RunIdError> {
    if id.is_empty() {
        return Err(RunIdError::Empty);
    }
    if id.len() > MAX_LEN {
        return Err(RunIdError::TooLong(id.len()));
    }
    if id == ".." {
        return Err(RunIdError::ParentDir);
    }
    if id.starts_with('.') {
        return Err(RunIdError::LeadingDot);
    }
    id.chars().try_for_each(check_char)
}

fn check_char(c: char) -> Result<(), RunIdError> {
    match c {
        '/' | '\\' => Err(RunIdError::Separator(c)),
        '\0' => Err(RunIdError::Nul),
        c if c.is_control() => Err(RunIdError::Control(c)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_seed_and_free_form_ids() {
        for id in ["20250101T000000Z", "h200-1gpu", "run 2 (retry)", "ü", "a..b", "x."] {
            assert_eq!(validate(id), Ok(()), "{id:?}");
        }
        assert_eq!(validate(&"a".repeat(MAX_LEN)), Ok(()));
    }

    #[test]
    fn refuses_what_could_escape() {
        assert_eq!(validate(""), Err(RunIdError::Empty));
        assert_eq!(validate(&"a".repeat(MAX_LEN + 1)), Err(RunIdError::TooLong(129)));
        assert_eq!(validate(".."), Err(RunIdError::ParentDir));
        assert_eq!(validate("."), Err(RunIdError::LeadingDot));
        assert_eq!(validate(".hidden"), Err(RunIdError::LeadingDot));
        assert_eq!(validate("a/b"), Err(RunIdError::Separator('/')));
        assert_eq!(validate("a\\b"), Err(RunIdError::Separator('\\')));
        assert_eq!(validate("a\0b"), Err(RunIdError::Nul));
        assert_eq!(validate("a\nb"), Err(RunIdError::Control('\n')));
        assert_eq!(validate("a\u{7f}"), Err(RunIdError::Control('\u{7f}')));
        assert_eq!(validate("a\u{9b}"), Err(RunIdError::Control('\u{9b}')));
    }
}
