//! `manifest.txt` -> `Manifest`: `key=value` lines, then `commands:` and indented lines.

use crate::core::model::manifest::Manifest;
use crate::ingest::parse::ParseError;

pub(crate) fn parse_manifest(bytes: &[u8]) -> Result<Manifest, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        ParseError::new(Some(line), "invalid UTF-8")
    })?;
    let mut manifest = Manifest::default();
    let mut in_commands = false;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if in_commands {
            if line.trim().is_empty() {
                continue;
            }
            manifest.commands.push(line.trim_start().to_string());
        } else if line.trim() == "commands:" {
            in_commands = true;
        } else if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        } else if let Some((key, value)) = line.split_once('=') {
            manifest.entries.push((key.trim().to_string(), value.to_string()));
        } else {
            return Err(ParseError::new(
                Some(index as u64 + 1),
                format!("expected key=value or \"commands:\", found {:?}", truncate(line)),
            ));
        }
    }
    Ok(manifest)
}

fn truncate(line: &str) -> String {
    line.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_commands() {
        let m = parse_manifest(
            b"run_id=x\ncycles=10\ncpu_affinity=0,2 (local rank i uses entry i)\ncommands:\n torchrun a\n b=c\n",
        )
        .unwrap();
        assert_eq!(m.get("cycles"), Some("10"));
        assert_eq!(m.get("cpu_affinity"), Some("0,2 (local rank i uses entry i)"));
        assert_eq!(m.commands, vec!["torchrun a", "b=c"]);
    }

    #[test]
    fn rejects_garbage_with_line() {
        let err = parse_manifest(b"a=b\nnot a pair\n").unwrap_err();
        assert_eq!(err.line, Some(2));
    }
}
