//! Run id validation: nothing that could escape the runs or site folder.

/// Checks that `id` can name a folder under `runs/` and `site/runs/`.
pub fn validate(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("empty".into());
    }
    if id.starts_with('.') || id.contains('/') || id.contains('\\') || id.chars().any(char::is_control) {
        return Err("must not start with '.' or hold '/', '\\' or control characters".into());
    }
    Ok(())
}
