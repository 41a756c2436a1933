//! `manifest.txt`: `key=value` lines, then `commands:` and indented command lines.

use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Manifest {
    /// Every `key=value` pair, in file order (keys may repeat; the first wins in `get`).
    pub entries: Vec<(String, String)>,
    /// The lines after `commands:`, without their indentation.
    pub commands: Vec<String>,
}

impl Manifest {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}
