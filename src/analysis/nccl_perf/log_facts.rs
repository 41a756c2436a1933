//! NCCL log facts as a person would write them: the CUDA driver as `13.0` (NCCL prints
//! `cudaDriverVersion 13000`, CUDA's `major * 1000 + minor * 10`), graph-search patterns by
//! name, and the channel counts explained (what the graph search found, what the communicator
//! uses after NCCL duplicated them). Pure; uses `model` only.

use crate::core::model::nccl_log::{GraphPattern, NcclLogFacts};

/// `13000` -> `13.0`, `12040` -> `12.4`; anything else is kept as printed.
pub(crate) fn cuda_driver(printed: &str) -> String {
    match printed.parse::<u64>() {
        Ok(version) if version >= 1000 => format!("{}.{}", version / 1000, version % 1000 / 10),
        _ => printed.to_string(),
    }
}

/// NCCL's `NCCL_TOPO_PATTERN_*` (`src/include/graph.h`, 2.28.9) by name; `pattern N` for a
/// value it does not define.
pub(crate) fn pattern_name(pattern: u64) -> String {
    let name = match pattern {
        1 => "balanced tree",
        2 => "split tree",
        3 => "tree",
        4 => "ring",
        5 => "NVLS",
        6 => "CollNet direct",
        _ => return format!("pattern {pattern}"),
    };
    name.to_string()
}

/// `64 per communicator; the ring graph search found 32, which NCCL duplicated (x2)`: the
/// communicator's count (`Channel 00/64` lines) against the ring search's `nChannels` (the
/// rings are what the communicator's channels are built from). `None` without channel lines.
pub(crate) fn channels(facts: &NcclLogFacts) -> Option<String> {
    let counts: Vec<String> = facts.channel_counts.iter().map(u64::to_string).collect();
    let communicator = format!("{} per communicator", counts.join(", "));
    let ring: Vec<&GraphPattern> = facts.graph_patterns.iter().filter(|p| p.pattern == 4).collect();
    let (&[count], &[search]) = (facts.channel_counts.as_slice(), ring.as_slice()) else {
        return (!counts.is_empty()).then_some(communicator);
    };
    let found = search.n_channels;
    let explained = if found == count {
        format!("{communicator}, as the ring graph search found")
    } else if found > 0 && count % found == 0 {
        format!("{communicator}: the ring graph search found {found}, which NCCL duplicated (x{})", count / found)
    } else {
        format!("{communicator}; the ring graph search found {found}")
    };
    Some(explained)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n_channels: u64) -> GraphPattern {
        GraphPattern {
            pattern: 4,
            cross_nic: 0,
            n_channels,
            bw_intra: 60.0,
            bw_inter: 60.0,
            type_intra: "LOC".into(),
            type_inter: "PIX".into(),
            same_channels: 1,
        }
    }

    #[test]
    fn driver_versions_read_as_cuda_prints_them() {
        assert_eq!(cuda_driver("13000"), "13.0");
        assert_eq!(cuda_driver("12040"), "12.4");
        assert_eq!(cuda_driver("12090"), "12.9");
        assert_eq!(cuda_driver("abc"), "abc");
    }

    #[test]
    fn patterns_by_nccl_name() {
        let names: Vec<String> = (1..=7).map(pattern_name).collect();
        assert_eq!(names, ["balanced tree", "split tree", "tree", "ring", "NVLS", "CollNet direct", "pattern 7"]);
    }

    #[test]
    fn channels_against_the_ring_search() {
        let mut facts = NcclLogFacts { channel_counts: vec![64], graph_patterns: vec![ring(32)], ..Default::default() };
        assert_eq!(
            channels(&facts).as_deref(),
            Some("64 per communicator: the ring graph search found 32, which NCCL duplicated (x2)")
        );
        facts.graph_patterns = vec![ring(64)];
        assert_eq!(channels(&facts).as_deref(), Some("64 per communicator, as the ring graph search found"));
        facts.graph_patterns = vec![ring(24)];
        assert_eq!(channels(&facts).as_deref(), Some("64 per communicator; the ring graph search found 24"));
        facts.channel_counts = vec![2, 4];
        assert_eq!(channels(&facts).as_deref(), Some("2, 4 per communicator"));
        assert_eq!(channels(&NcclLogFacts::default()), None);
    }
}
