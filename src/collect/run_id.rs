//! Run id validation: nothing that could escape the runs or site folder.
