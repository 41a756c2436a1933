//! Known per-GPU link peaks (GB/s, per direction) and NCCL's own effective NVLink constants.
//!
//! Sources:
//! - NVLink 3 (A100): 300 GB/s per direction, 12 links (NVIDIA A100 datasheet).
//! - NVLink 4 (H100, H200): 450 GB/s per direction, 18 links (NVIDIA H100/H200 datasheets).
//! - NVLink 5 (B200): 900 GB/s per direction, 18 links (NVIDIA Blackwell datasheet).
//! - PCIe 4.0 x16 ~31.5 GB/s, PCIe 5.0 x16 ~63 GB/s per direction (PCI-SIG line rates after
//!   128b/130b encoding).
//! - InfiniBand NDR 400 Gb/s = 50 GB/s per NIC (46-48 reached in practice).
//! - NCCL's effective per-NVLink bandwidth, `src/graph/topo.h` (`SM80_NVLINK_BW 20.0`,
//!   `SM90_NVLINK_BW 20.6`, `SM100_NVLINK_BW 40.1`): times the link count it predicts ring
//!   busbw (~240 A100, ~370 H100/H200, ~720 B200).
//!
//! A GPU not in the table has no peak: "unknown", never a guess. PCIe and InfiniBand peaks
//! are listed for the reader only: runs record neither the PCIe generation and width nor the
//! NIC rate reliably, so no expected line is drawn for them ("peak unknown").

/// A GPU model's NVLink facts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NvlinkPeak {
    pub generation: u8,
    pub links: u32,
    /// Marketing per-direction peak per GPU.
    pub peak_gbs: f64,
    /// NCCL's effective per-link constant from `topo.h`.
    pub nccl_per_link_gbs: f64,
}

impl NvlinkPeak {
    /// NCCL's own expectation of ring busbw over `links` NVLinks (e.g. 18 x 20.6 = 370.8).
    pub(crate) fn nccl_expected_gbs(&self, links: u32) -> f64 {
        self.nccl_per_link_gbs * f64::from(links)
    }
}

/// The NVLink facts of a GPU from its `nvidia-smi` name (`NVIDIA H200`, `NVIDIA A100-SXM4-80GB`).
pub(crate) fn nvlink_peak(gpu_name: &str) -> Option<NvlinkPeak> {
    let name = gpu_name.to_ascii_uppercase();
    let has = |model: &str| name.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == model);
    if has("A100") {
        Some(NvlinkPeak { generation: 3, links: 12, peak_gbs: 300.0, nccl_per_link_gbs: 20.0 })
    } else if has("H100") || has("H200") {
        Some(NvlinkPeak { generation: 4, links: 18, peak_gbs: 450.0, nccl_per_link_gbs: 20.6 })
    } else if has("B200") {
        Some(NvlinkPeak { generation: 5, links: 18, peak_gbs: 900.0, nccl_per_link_gbs: 40.1 })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_gpus_and_unknown() {
        let h200 = nvlink_peak("NVIDIA H200").unwrap();
        assert_eq!((h200.generation, h200.links, h200.peak_gbs), (4, 18, 450.0));
        assert!((h200.nccl_expected_gbs(18) - 370.8).abs() < 1e-9);
        assert_eq!(nvlink_peak("NVIDIA A100-SXM4-80GB").unwrap().peak_gbs, 300.0);
        assert_eq!(nvlink_peak("NVIDIA B200").unwrap().nccl_expected_gbs(18), 40.1 * 18.0);
        assert_eq!(nvlink_peak("Tesla V100-SXM2-16GB"), None);
        assert_eq!(nvlink_peak("NVIDIA H1000"), None);
    }
}
