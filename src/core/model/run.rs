//! A run as read from disk: every input parsed, plus the diagnostics met on the way.
//! Produced by `load`, consumed by `summarize`.

use crate::core::diag::Diagnostic;
use crate::core::model::artifacts::{GpuInfo, TopologyMatrix};
use crate::core::model::hosts::HostFacts;
use crate::core::model::manifest::Manifest;
use crate::core::model::nccl_log::NcclLogFacts;
use crate::core::model::nccl_tests::NcclTestsOutput;
use crate::core::model::sections::{SectionRows, WorkerSection};

#[derive(Debug, Clone, Default)]
pub struct RawRun {
    pub id: String,
    pub manifest: Option<Manifest>,
    pub gpus: Vec<GpuInfo>,
    pub topology: Option<TopologyMatrix>,
    /// The hosts of a multi-node run (`artifacts/<host>/`), by host name; empty otherwise.
    pub hosts: Vec<HostFacts>,
    /// Other artifacts as text (run-relative name, content), e.g. ibv_devinfo.
    pub other_artifacts: Vec<(String, String)>,
    /// WorkerSection files that parsed, in the seed's glob order (case, then file name).
    pub sections: Vec<SectionData>,
    /// (case, section) pairs with at least one unreadable file: not summarized.
    pub broken_sections: Vec<(String, WorkerSection)>,
    pub nccl_tests: Vec<NcclTestsFile>,
    /// Merged facts of all NCCL_DEBUG logs, and the files they came from.
    pub nccl_log: Option<NcclLogFacts>,
    pub nccl_log_files: Vec<String>,
    /// NCCL Inspector records per case folder (sorted by case), when the run has dumps.
    pub inspector: Vec<crate::core::model::inspector::InspectorCase>,
    /// The run's own NOTES.md (untrusted markdown).
    pub notes: Option<String>,
    /// The seed's summary files archived in the run: (name, bytes).
    pub archived_outputs: Vec<(String, Vec<u8>)>,
    /// Every file of the run, run-relative, with its size (for the file list on the run page).
    pub files: Vec<(String, u64)>,
    pub total_bytes: u64,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone)]
pub struct SectionData {
    pub case: String,
    pub rank: u64,
    pub file: String,
    pub rows: SectionRows,
}

impl SectionData {
    pub fn section(&self) -> WorkerSection {
        match self.rows {
            SectionRows::Contracts(_) => WorkerSection::Contracts,
            SectionRows::Async(_) => WorkerSection::Async,
            SectionRows::Decomposition(_) => WorkerSection::Decomposition,
            SectionRows::Fragmentation(_) => WorkerSection::Fragmentation,
            SectionRows::Decode(_) => WorkerSection::Decode,
            SectionRows::Numerics(_) => WorkerSection::Numerics,
        }
    }
}

#[derive(Debug, Clone)]
pub struct NcclTestsFile {
    /// `g4` from `raw/nccl_tests_g4.stdout`.
    pub name: String,
    pub file: String,
    /// `g<N>` gives N (as the seed); otherwise the ranks the output lists.
    pub world_size: Option<u64>,
    pub output: NcclTestsOutput,
}
