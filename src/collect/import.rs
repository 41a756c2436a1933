//! `nccl-report import`: copy run folders into the runs folder.

use crate::collect::ImportOptions;

pub fn import_runs(_options: &ImportOptions) -> anyhow::Result<()> {
    unimplemented!("import")
}
