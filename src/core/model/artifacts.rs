//! The hardware artifacts a run records: `nvidia-smi --query-gpu` lines and the
//! `nvidia-smi topo -m` matrix.

use serde::Serialize;

/// One line of `nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,pci.bus_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuInfo {
    pub index: String,
    pub name: String,
    pub uuid: String,
    pub driver_version: String,
    pub memory_total: String,
    pub pci_bus_id: String,
}

/// `nvidia-smi topo -m`: column headers and rows of cells, as printed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TopologyMatrix {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Link kinds found between GPUs (`NV18`, `SYS`, `PIX`...), sorted, for the headline.
    pub gpu_links: Vec<String>,
}
