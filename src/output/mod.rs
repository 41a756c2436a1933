//! Everything that leaves the process: the one module that writes the site (`write`), the output folder lock, `publish` and `serve`.

pub(crate) mod out_dir;
pub(crate) mod publish;
pub(crate) mod serve;
pub(crate) mod write;
