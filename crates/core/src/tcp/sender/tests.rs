//! Unit tests of the ACK-processing steps.
