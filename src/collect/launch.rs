//! `nccl-report collect`: run the suite on this machine's GPUs.

use crate::collect::CollectOptions;

pub fn collect(_options: &CollectOptions) -> anyhow::Result<()> {
    unimplemented!("collect")
}
