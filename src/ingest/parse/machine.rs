//! `artifacts/machine.txt` (written by `collect`, `collect::probe::MACHINE_SCRIPT`): one
//! `key=value` a line, what host-side timings depend on. Lines without `=`, and keys or values
//! over 256 bytes, are left out (the file is untrusted). Uses std only.

/// The (key, value) pairs in file order, trimmed.
pub(crate) fn parse_machine(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim()))
        .filter(|(k, v)| !k.is_empty() && k.len() <= 256 && v.len() <= 256)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_value_lines_only() {
        let text = "kernel=6.18.44\nnoise\ngpu0.uuid=GPU-1\n=empty\ncpu_model = Xeon \n";
        assert_eq!(
            parse_machine(text),
            [("kernel", "6.18.44"), ("gpu0.uuid", "GPU-1"), ("cpu_model", "Xeon")]
                .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert!(parse_machine(&format!("k={}", "x".repeat(300))).is_empty());
    }
}
